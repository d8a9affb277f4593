package invoicing

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Overdue is an invoice a reminder may be due for.
type Overdue struct {
	ID        uuid.UUID    `db:"id"`
	Due       time.Time    `db:"due_date"`
	Remaining money.Amount `db:"remaining"`
	// Sent is the highest level sent, 0 for none; Since the day of the
	// last reminder (the due date before the first); FeeCharged whether a
	// fee was charged already.
	Sent       int       `db:"sent"`
	Since      time.Time `db:"since"`
	FeeCharged bool      `db:"fee_charged"`
}

// RemindingCompanies answers the companies that send reminders.
func (s *Store) RemindingCompanies(ctx context.Context) ([]uuid.UUID, error) {
	var out []uuid.UUID
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT company_id FROM company_settings
		WHERE send_invoice_reminders ORDER BY company_id`)
	return out, err
}

// HoldReminders takes the company's reminder run for the transaction of
// ctx; false when another replica has it.
func (s *Store) HoldReminders(ctx context.Context, company uuid.UUID) (bool, error) {
	var ok bool
	err := s.db.Q(ctx).GetContext(ctx, &ok, `SELECT pg_try_advisory_xact_lock(hashtext('invoice_reminders'), hashtext($1::text))`,
		company)
	return ok, err
}

// OverdueOn answers the company's issued SEK and foreign invoices past
// their due date on today with something left to pay, with the reminders
// they have had.
func (s *Store) OverdueOn(ctx context.Context, company uuid.UUID, today time.Time) ([]Overdue, error) {
	var out []Overdue
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT i.id, i.due_date,
			i.total - i.deduction_total - i.paid_amount AS remaining,
			coalesce(max(r.level), 0) AS sent, coalesce(max(r.sent_on), i.due_date) AS since,
			coalesce(bool_or(r.fee > 0), false) AS fee_charged
		FROM invoices i LEFT JOIN invoice_reminders r ON r.company_id = i.company_id AND r.invoice_id = i.id
		WHERE i.company_id = $1 AND i.document_type = 'invoice' AND i.credited_invoice_id IS NULL
			AND i.status IN ('sent', 'partially_paid') AND i.due_date < $2::date
			AND i.total - i.deduction_total - i.paid_amount > 0
		GROUP BY i.company_id, i.id ORDER BY i.due_date, i.id`, company, store.Day(today))
	return out, err
}

// InsertReminder records a reminder sent.
func (s *Store) InsertReminder(ctx context.Context, r Reminder) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `INSERT INTO invoice_reminders (company_id, invoice_id, level, sent_on,
			days_overdue, remaining, fee, interest, interest_rate, email_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, r.CompanyID, r.InvoiceID, r.Level, store.Day(r.SentOn),
		r.DaysOverdue, r.Remaining, r.Fee, r.Interest, r.Rate, r.EmailID)
	return store.Refused(err)
}

// Reminders answers an invoice's reminders, by level, with their
// e-mails' status.
func (s *Store) Reminders(ctx context.Context, company, invoice uuid.UUID) ([]Reminder, error) {
	out := []Reminder{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT r.company_id, r.invoice_id, r.level, r.sent_on, r.days_overdue,
			r.remaining, r.fee, r.interest, r.interest_rate, r.email_id, e.status AS email_status
		FROM invoice_reminders r LEFT JOIN outgoing_emails e ON e.company_id = r.company_id AND e.id = r.email_id
		WHERE r.company_id = $1 AND r.invoice_id = $2 ORDER BY r.level`, company, invoice)
	return out, err
}

// Outstanding answers the reminder fees and interest an invoice's
// customer still owes: what the reminders claimed less what payments took.
func (s *Store) Outstanding(ctx context.Context, company, invoice uuid.UUID) (fees, interest money.Amount, err error) {
	var row struct {
		Fees     money.Amount `db:"fees"`
		Interest money.Amount `db:"interest"`
	}
	err = s.db.Q(ctx).GetContext(ctx, &row, `SELECT
			coalesce((SELECT sum(fee) FROM invoice_reminders WHERE company_id = $1 AND invoice_id = $2), 0)
			- coalesce((SELECT sum(fee) FROM invoice_charge_payments c WHERE `+chargesStanding+`), 0) AS fees,
			coalesce((SELECT sum(interest) FROM invoice_reminders WHERE company_id = $1 AND invoice_id = $2), 0)
			- coalesce((SELECT sum(interest) FROM invoice_charge_payments c WHERE `+chargesStanding+`), 0)
			AS interest`, company, invoice)
	return row.Fees, row.Interest, err
}

// chargesStanding picks the charges taken by payments of invoice $2 not
// undone: an undone payment's charges are owed again.
const chargesStanding = `c.company_id = $1 AND c.invoice_id = $2 AND NOT EXISTS (SELECT 1 FROM invoice_payments u
	WHERE u.company_id = $1 AND u.reverses_id = c.payment_id)`

// PayCharges records what of the reminder charges a payment took.
func (s *Store) PayCharges(ctx context.Context, company, invoice, payment uuid.UUID, fee, interest money.Amount) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `INSERT INTO invoice_charge_payments (company_id, invoice_id, payment_id, fee, interest)
		VALUES ($1, $2, $3, $4, $5)`, company, invoice, payment, fee, interest)
	return store.Refused(err)
}
