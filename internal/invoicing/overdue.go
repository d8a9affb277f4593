package invoicing

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/mail"
	"github.com/kontera/kontera/internal/outbox"
	"github.com/kontera/kontera/internal/store"
)

// The events of an invoice's life after it was sent, beyond the spec's:
// it fell overdue, or an e-mail of it could not be delivered.
const (
	EventOverdue     = "invoice.overdue"
	EventEmailFailed = "invoice.email_failed"
)

// OverdueLookback is how many days back a due date is still announced:
// a sweep that did not run for a few days catches up, and an upgrade does
// not announce years of old debts at once.
const OverdueLookback = 7

// AnnounceOverdue emits invoice.overdue for every invoice, in every
// company, that is overdue on today (sent or partly paid, due before
// today and at most OverdueLookback days before, something left to pay)
// and not yet announced, in the transaction of ctx, and answers how many.
// Each invoice is announced once, whichever replica sweeps first.
func (s *Sales) AnnounceOverdue(ctx context.Context, today time.Time) (int, error) {
	due, err := s.store.markOverdue(ctx, today, OverdueLookback)
	if err != nil {
		return 0, err
	}
	for _, d := range due {
		inv, err := s.store.Get(ctx, d.company, d.invoice, today, false, Read)
		if err != nil {
			return 0, err
		}
		if _, err := outbox.Emit(ctx, s.store.db, d.company, EventOverdue, map[string]any{"invoice": Detail(inv),
			"days_overdue": int(today.Sub(d.due).Hours() / 24)}); err != nil {
			return 0, err
		}
	}
	return len(due), nil
}

type overdueRow struct {
	company uuid.UUID
	invoice uuid.UUID
	due     time.Time
}

// markOverdue records the invoices AnnounceOverdue announces and answers
// them; a row another transaction wrote first is not answered.
func (s *Store) markOverdue(ctx context.Context, today time.Time, lookback int) ([]overdueRow, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `INSERT INTO invoice_overdue_notices (company_id, invoice_id, due_date)
		SELECT company_id, id, due_date FROM invoices
		WHERE document_type = 'invoice' AND status IN ('sent', 'partially_paid') AND credited_invoice_id IS NULL
			AND due_date < $1::date AND due_date >= $1::date - $2::int
			AND total - deduction_total - paid_amount > 0
		ORDER BY due_date, company_id, id
		ON CONFLICT DO NOTHING
		RETURNING company_id, invoice_id, due_date`, store.Day(today), lookback)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []overdueRow
	for rows.Next() {
		var r overdueRow
		if err := rows.Scan(&r.company, &r.invoice, &r.due); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// EmailFailed emits invoice.email_failed for an e-mail of an invoice (the
// invoice itself or a reminder) whose delivery has ended failed, in the
// transaction that records it: the e-mail as it now stands, with the
// reply that ended it. An e-mail of no invoice says nothing.
func (s *Sales) EmailFailed(ctx context.Context, e mail.Email) error {
	if e.InvoiceID == nil {
		return nil
	}
	_, err := outbox.Emit(ctx, s.store.db, e.CompanyID, EventEmailFailed, map[string]any{"invoice_id": *e.InvoiceID,
		"email": wireEmail(e)})
	return err
}
