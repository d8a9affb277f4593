package mail

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/store"
)

// Email is a row of the outbox.
type Email struct {
	CompanyID     uuid.UUID      `db:"company_id"`
	ID            uuid.UUID      `db:"id"`
	InvoiceID     *uuid.UUID     `db:"invoice_id"`
	Kind          string         `db:"kind"` // invoice, reminder
	ReminderLevel *int           `db:"reminder_level"`
	Status        string         `db:"status"`
	FromName      string         `db:"from_name"`
	ReplyTo       *string        `db:"reply_to"`
	To            string         `db:"to_address"`
	Cc            pq.StringArray `db:"cc"`
	Bcc           pq.StringArray `db:"bcc"`
	Subject       string         `db:"subject"`
	Body          string         `db:"body"`
	MessageID     string         `db:"message_id"`
	Transport     *string        `db:"transport"`
	Attempts      int            `db:"attempts"`
	LastError     *string        `db:"last_error"`
	NextAttemptAt time.Time      `db:"next_attempt_at"`
	CreatedAt     time.Time      `db:"created_at"`
	SentAt        *time.Time     `db:"sent_at"`
}

// Store holds the SQL of the outbox.
type Store struct{ db *store.DB }

// NewStore returns the outbox store on db.
func NewStore(db *store.DB) *Store { return &Store{db: db} }

// Queue writes e to be sent after the commit of the transaction of ctx.
func (s *Store) Queue(ctx context.Context, e Email) (Email, error) {
	var out Email
	err := s.db.Q(ctx).GetContext(ctx, &out, `INSERT INTO outgoing_emails (company_id, id, invoice_id, kind, reminder_level,
			from_name, reply_to, to_address, cc, bcc, subject, body, message_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING *`,
		e.CompanyID, e.ID, e.InvoiceID, e.Kind, e.ReminderLevel, e.FromName, e.ReplyTo, e.To, e.Cc, e.Bcc,
		e.Subject, e.Body, e.MessageID)
	return out, store.Refused(err)
}

// claim takes the oldest due e-mail, or one whose worker stopped
// mid-send, as sending until lease has passed.
func (s *Store) claim(ctx context.Context, lease time.Duration) (*Email, error) {
	var e Email
	err := s.db.Q(ctx).GetContext(ctx, &e, `UPDATE outgoing_emails o SET status = 'sending', attempts = attempts + 1,
			next_attempt_at = now() + $1 * interval '1 second'
		WHERE (o.company_id, o.id) = (SELECT company_id, id FROM outgoing_emails
			WHERE status IN ('queued', 'sending') AND next_attempt_at <= now()
			ORDER BY next_attempt_at LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING o.*`, int64(lease/time.Second))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return &e, err
}

// finish records what became of a claimed e-mail's attempt; false when
// the e-mail was no longer its worker's (another took it over).
func (s *Store) finish(ctx context.Context, e Email, status, transport string, cause *string, again time.Duration) (bool, error) {
	res, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE outgoing_emails SET status = $3, transport = $4, last_error = $5,
			next_attempt_at = now() + $6 * interval '1 second',
			sent_at = CASE WHEN $3 IN ('sent', 'dropped') THEN now() END
		WHERE company_id = $1 AND id = $2 AND status = 'sending' AND attempts = $7`,
		e.CompanyID, e.ID, status, transport, cause, int64(again/time.Second), e.Attempts)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// OfInvoice answers an invoice's e-mails, oldest first.
func (s *Store) OfInvoice(ctx context.Context, company, invoice uuid.UUID) ([]Email, error) {
	out := []Email{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT * FROM outgoing_emails WHERE company_id = $1 AND invoice_id = $2
		ORDER BY created_at, id`, company, invoice)
	return out, err
}

// Requeue queues a failed e-mail of the invoice again, now, and answers
// it; nil when the invoice has no such e-mail. One that is not failed is
// answered as it is, with false.
func (s *Store) Requeue(ctx context.Context, company, invoice, id uuid.UUID) (*Email, bool, error) {
	var e Email
	err := s.db.Q(ctx).GetContext(ctx, &e, `SELECT * FROM outgoing_emails
		WHERE company_id = $1 AND invoice_id = $2 AND id = $3 FOR UPDATE`, company, invoice, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil || e.Status != "failed" {
		return &e, false, err
	}
	err = s.db.Q(ctx).GetContext(ctx, &e, `UPDATE outgoing_emails SET status = 'queued', next_attempt_at = now()
		WHERE company_id = $1 AND id = $2 RETURNING *`, company, id)
	return &e, true, err
}
