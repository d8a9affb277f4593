package invoicing

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// openAt is an invoice open at the end of a day, with what was paid of it
// through that day.
type openAt struct {
	Invoice
	PaidThen money.Amount `db:"paid_then"`
}

// OpenAt answers the company's invoices issued through day and open at
// its end: not a credit note, not credited by a credit note dated through
// day, with less paid through day (payments and Skatteverket's payouts)
// than their total; booked says whether those with a verifikat (booked)
// or those kontantmetoden keeps outside the books (not booked) are asked.
// Their lines are read too.
func (s *Store) OpenAt(ctx context.Context, company uuid.UUID, day time.Time, booked bool) ([]openAt, error) {
	var rows []openAt
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `
		SELECT `+columns("$2::date")+`, coalesce(p.paid, 0) AS paid_then
		FROM invoices i
		LEFT JOIN LATERAL (SELECT sum(x.amount) AS paid FROM invoice_payments x
			WHERE x.company_id = i.company_id AND x.invoice_id = i.id AND x.payment_date <= $2) p ON true
		WHERE i.company_id = $1 AND i.document_type = 'invoice' AND i.credited_invoice_id IS NULL
		  AND i.status NOT IN ('draft', 'cancelled') AND i.invoice_date <= $2
		  AND (i.journal_entry_id IS NOT NULL) = $3 AND ($3 OR NOT i.booking_deferred)
		  AND i.total - coalesce(p.paid, 0) > 0
		  AND NOT EXISTS (SELECT 1 FROM invoices c WHERE c.company_id = i.company_id AND c.credited_invoice_id = i.id
		                  AND c.status NOT IN ('draft', 'cancelled') AND c.invoice_date <= $2)
		ORDER BY i.invoice_date, i.invoice_number`, company, store.Day(day), booked)
	if err != nil || len(rows) == 0 {
		return rows, err
	}
	ids := make([]uuid.UUID, len(rows))
	for i := range rows {
		ids[i] = rows[i].ID
	}
	lines, err := s.LinesOf(ctx, company, ids)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		rows[i].Lines = lines[rows[i].ID]
	}
	return rows, nil
}
