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
// or those kontantmetoden keeps outside the books (not booked) are asked;
// foreign whether only those in another currency than kronor.
// Their lines are read too.
func (s *Store) OpenAt(ctx context.Context, company uuid.UUID, day time.Time, booked, foreign bool) ([]openAt, error) {
	var rows []openAt
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `
		SELECT `+columns("$2::date")+`, coalesce(p.paid, 0) AS paid_then
		FROM invoices i
		LEFT JOIN LATERAL (SELECT sum(x.amount) AS paid FROM invoice_payments x
			WHERE x.company_id = i.company_id AND x.invoice_id = i.id AND x.payment_date <= $2) p ON true
		WHERE i.company_id = $1 AND i.document_type = 'invoice' AND i.credited_invoice_id IS NULL
		  AND i.status NOT IN ('draft', 'cancelled') AND i.invoice_date <= $2
		  AND (i.journal_entry_id IS NOT NULL) = $3 AND ($3 OR NOT i.booking_deferred)
		  AND (NOT $4 OR i.currency <> 'SEK')
		  AND i.total - coalesce(p.paid, 0) > 0
		  AND NOT EXISTS (SELECT 1 FROM invoices c WHERE c.company_id = i.company_id AND c.credited_invoice_id = i.id
		                  AND c.status NOT IN ('draft', 'cancelled') AND c.invoice_date <= $2)
		ORDER BY i.invoice_date, i.invoice_number`, company, store.Day(day), booked, foreign)
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

// Credited answers what the credit notes of invoice id have credited of
// each of its lines (a credit of a whole invoice names none), and how
// many credit notes it has, in one statement.
func (s *Store) Credited(ctx context.Context, company, id uuid.UUID) (map[uuid.UUID]Tally, int, error) {
	var rows []struct {
		Item     *uuid.UUID      `db:"credited_item_id"`
		Quantity *money.Quantity `db:"quantity"`
		Net      *money.Amount   `db:"net"`
		Notes    int             `db:"notes"`
	}
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `
		WITH n AS (SELECT id FROM invoices WHERE company_id = $1 AND credited_invoice_id = $2)
		SELECT l.credited_item_id,
			sum(-l.quantity) FILTER (WHERE l.unit_price = o.unit_price AND l.discount_percent = o.discount_percent) AS quantity,
			sum(-l.net_amount) AS net, (SELECT count(*) FROM n) AS notes
		FROM n
		JOIN invoice_items l ON l.company_id = $1 AND l.invoice_id = n.id AND l.credited_item_id IS NOT NULL
		JOIN invoice_items o ON o.company_id = $1 AND o.id = l.credited_item_id
		GROUP BY l.credited_item_id
		UNION ALL SELECT NULL, NULL, NULL, (SELECT count(*) FROM n)`, company, id)
	if err != nil {
		return nil, 0, err
	}
	out := map[uuid.UUID]Tally{}
	notes := 0
	for _, r := range rows {
		notes = r.Notes
		if r.Item == nil {
			continue
		}
		t := Tally{}
		if r.Quantity != nil {
			t.Quantity = *r.Quantity
		}
		if r.Net != nil {
			t.Net = *r.Net
		}
		out[*r.Item] = t
	}
	return out, notes, nil
}

// PartialNotes answers the credit notes of invoice id that credit part
// of it (their lines name its lines), dated through day when day is set,
// with their lines.
func (s *Store) PartialNotes(ctx context.Context, company, id uuid.UUID, through *time.Time) ([]Invoice, error) {
	var notes []Invoice
	err := s.db.Q(ctx).SelectContext(ctx, &notes, `SELECT `+columns("current_date")+` FROM invoices i
		WHERE i.company_id = $1 AND i.credited_invoice_id = $2 AND ($3::date IS NULL OR i.invoice_date <= $3)
		  AND EXISTS (SELECT 1 FROM invoice_items l WHERE l.company_id = i.company_id AND l.invoice_id = i.id
		              AND l.credited_item_id IS NOT NULL)
		ORDER BY i.invoice_date, i.created_at`, company, id, store.DayOrNil(through))
	if err != nil || len(notes) == 0 {
		return notes, err
	}
	ids := make([]uuid.UUID, len(notes))
	for i := range notes {
		ids[i] = notes[i].ID
	}
	lines, err := s.LinesOf(ctx, company, ids)
	for i := range notes {
		notes[i].Lines = lines[notes[i].ID]
	}
	return notes, err
}
