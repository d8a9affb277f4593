package invoicing

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/store"
)

// Delivery is a row of peppol_deliveries: one e-invoice handed to the
// Peppol network, and how it fares.
type Delivery struct {
	CompanyID      uuid.UUID  `db:"company_id"`
	ID             uuid.UUID  `db:"id"`
	InvoiceID      uuid.UUID  `db:"invoice_id"`
	DocumentID     uuid.UUID  `db:"document_id"`
	Status         string     `db:"status"`
	Provider       string     `db:"provider"`
	Sender         string     `db:"sender"`
	Receiver       string     `db:"receiver"`
	DocumentType   string     `db:"document_type"`
	TransmissionID *string    `db:"transmission_id"`
	Attempts       int        `db:"attempts"`
	ErrorCode      *string    `db:"error_code"`
	ErrorMessage   *string    `db:"error_message"`
	NextAttemptAt  *time.Time `db:"next_attempt_at"`
	CreatedAt      time.Time  `db:"created_at"`
	SubmittedAt    *time.Time `db:"submitted_at"`
	DeliveredAt    *time.Time `db:"delivered_at"`
}

const deliveryColumns = `company_id, id, invoice_id, document_id, status, provider, sender, receiver, document_type,
	transmission_id, attempts, error_code, error_message, next_attempt_at, created_at, submitted_at, delivered_at`

// QueueDelivery writes a queued delivery in the transaction of ctx. The
// unique index allows one live delivery per invoice: a second is the
// caller's 409.
func (s *Store) QueueDelivery(ctx context.Context, d Delivery) (Delivery, bool, error) {
	var out Delivery
	err := s.db.Q(ctx).GetContext(ctx, &out, `INSERT INTO peppol_deliveries (company_id, id, invoice_id, document_id,
			provider, sender, receiver, document_type, next_attempt_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING `+deliveryColumns,
		d.CompanyID, d.ID, d.InvoiceID, d.DocumentID, d.Provider, d.Sender, d.Receiver, d.DocumentType, d.NextAttemptAt,
		d.CreatedAt)
	if store.UniqueViolation(err, "peppol_deliveries_live") {
		return Delivery{}, false, nil
	}
	return out, err == nil, err
}

// LiveDelivery answers the invoice's delivery under way or done, nil
// when there is none (never sent, or rejected or given up).
func (s *Store) LiveDelivery(ctx context.Context, company, invoice uuid.UUID) (*Delivery, error) {
	var d Delivery
	err := s.db.Q(ctx).GetContext(ctx, &d, `SELECT `+deliveryColumns+` FROM peppol_deliveries
		WHERE company_id = $1 AND invoice_id = $2
			AND (status IN ('queued', 'submitted', 'delivered') OR (status = 'failed' AND next_attempt_at IS NOT NULL))`,
		company, invoice)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return &d, err
}

// Deliveries answers an invoice's deliveries, oldest first.
func (s *Store) Deliveries(ctx context.Context, company, invoice uuid.UUID) ([]Delivery, error) {
	out := []Delivery{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+deliveryColumns+` FROM peppol_deliveries
		WHERE company_id = $1 AND invoice_id = $2 ORDER BY created_at, id`, company, invoice)
	return out, err
}

// SentCount is how many e-invoices the company has had delivered or
// under way.
func (s *Store) SentCount(ctx context.Context, company uuid.UUID) (int, error) {
	var n int
	err := s.db.Q(ctx).GetContext(ctx, &n, `SELECT count(*) FROM peppol_deliveries
		WHERE company_id = $1 AND status IN ('queued', 'submitted', 'delivered')`, company)
	return n, err
}

// ClaimDelivery takes the delivery most due to be submitted or followed
// and leases it until now+lease: its next_attempt_at moves past the
// lease, so no other worker takes it while this one talks to the access
// point outside any transaction, and another does if this one dies.
// nil when none is due.
func (s *Store) ClaimDelivery(ctx context.Context, now time.Time, lease time.Duration) (*Delivery, error) {
	var d Delivery
	err := s.db.Q(ctx).GetContext(ctx, &d, `UPDATE peppol_deliveries SET next_attempt_at = $2
		WHERE (company_id, id) = (SELECT company_id, id FROM peppol_deliveries
			WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= $1
			ORDER BY next_attempt_at LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING `+deliveryColumns, now, now.Add(lease))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return &d, err
}

// UpdateDelivery writes where a claimed delivery stands now.
func (s *Store) UpdateDelivery(ctx context.Context, d Delivery) error {
	if d.ErrorMessage != nil && len(*d.ErrorMessage) > 2000 {
		m := (*d.ErrorMessage)[:2000]
		d.ErrorMessage = &m
	}
	_, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE peppol_deliveries SET status = $3, transmission_id = $4,
			attempts = $5, error_code = $6, error_message = $7, next_attempt_at = $8, submitted_at = $9, delivered_at = $10
		WHERE company_id = $1 AND id = $2`, d.CompanyID, d.ID, d.Status, d.TransmissionID, d.Attempts, d.ErrorCode,
		d.ErrorMessage, d.NextAttemptAt, d.SubmittedAt, d.DeliveredAt)
	return store.Refused(err)
}
