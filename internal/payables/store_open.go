package payables

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// openAt is a supplier invoice open at the end of a day, with what was
// paid of it through that day, in its currency and in the kronor 2440
// was settled with.
type openAt struct {
	Invoice
	PaidThen   money.Amount `db:"paid_then"`
	BookedThen money.Amount `db:"booked_then"`
}

// OpenAt answers the company's supplier invoices dated through day and
// open at its end: not a credit note, not credited by a credit note dated
// through day, with less paid through day than their total; booked says
// whether those on 2440 or those kontantmetoden keeps outside the books
// are asked, foreign whether only those in another currency than kronor.
// Their items are read too.
func (s *Store) OpenAt(ctx context.Context, company uuid.UUID, day time.Time, booked, foreign bool) ([]openAt, error) {
	var rows []struct {
		openAt
		Items []byte `db:"items_json"`
	}
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `
		SELECT `+columns("$2::date")+`, coalesce(p.paid, 0) AS paid_then, coalesce(p.booked, 0) AS booked_then,
			(SELECT coalesce(jsonb_agg(to_jsonb(l) ORDER BY l.sort_order), '[]') FROM supplier_invoice_items l
			 WHERE l.company_id = i.company_id AND l.supplier_invoice_id = i.id) AS items_json
		FROM supplier_invoices i
		LEFT JOIN LATERAL (SELECT sum(x.amount) AS paid, sum(x.booked_sek) AS booked FROM supplier_invoice_payments x
			WHERE x.company_id = i.company_id AND x.supplier_invoice_id = i.id AND x.payment_date <= $2) p ON true
		WHERE i.company_id = $1 AND NOT i.is_credit_note AND i.status <> 'reversed' AND i.invoice_date <= $2
		  AND NOT i.paid_with_private_funds
		  AND (i.registration_journal_entry_id IS NOT NULL) = $3 AND ($3 OR i.cash_method)
		  AND (NOT $4 OR i.currency <> 'SEK')
		  AND i.total - coalesce(p.paid, 0) > 0
		  AND NOT EXISTS (SELECT 1 FROM supplier_invoices c WHERE c.company_id = i.company_id
		                  AND c.credited_invoice_id = i.id AND c.status <> 'reversed' AND c.invoice_date <= $2)
		ORDER BY i.invoice_date, i.arrival_number`, company, store.Day(day), booked, foreign)
	if err != nil {
		return nil, err
	}
	out := make([]openAt, len(rows))
	for i, r := range rows {
		out[i] = r.openAt
		if out[i].Items, err = itemsOf(r.Items); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Credited answers what the credit notes of invoice id (not reversed)
// have credited of each of its lines (a credit of the whole invoice names
// none), and how many such credit notes it has, in one statement.
func (s *Store) Credited(ctx context.Context, company, id uuid.UUID) (map[uuid.UUID]Tally, int, error) {
	var rows []struct {
		Item   *uuid.UUID    `db:"credited_item_id"`
		Amount *money.Amount `db:"amount"`
		VAT    *money.Amount `db:"vat"`
		Notes  int           `db:"notes"`
	}
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `
		WITH n AS (SELECT id FROM supplier_invoices WHERE company_id = $1 AND credited_invoice_id = $2 AND status <> 'reversed')
		SELECT l.credited_item_id, sum(-l.amount) AS amount, sum(-l.vat_amount) AS vat, (SELECT count(*) FROM n) AS notes
		FROM n JOIN supplier_invoice_items l ON l.company_id = $1 AND l.supplier_invoice_id = n.id
		WHERE l.credited_item_id IS NOT NULL
		GROUP BY l.credited_item_id
		UNION ALL SELECT NULL, NULL, NULL, (SELECT count(*) FROM n)`, company, id)
	if err != nil {
		return nil, 0, err
	}
	out := make(map[uuid.UUID]Tally, len(rows))
	notes := 0
	for _, r := range rows {
		notes = r.Notes
		if r.Item != nil && r.Amount != nil && r.VAT != nil {
			out[*r.Item] = Tally{Amount: *r.Amount, VAT: *r.VAT}
		}
	}
	return out, notes, nil
}

// PartialNotes answers the credit notes (not reversed) that credit part
// of invoice id, dated through day when day is set, with their items.
func (s *Store) PartialNotes(ctx context.Context, company, id uuid.UUID, through *time.Time) ([]Invoice, error) {
	var rows []struct {
		Invoice
		Items []byte `db:"items_json"`
	}
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `
		SELECT `+columns("current_date")+`, (SELECT coalesce(jsonb_agg(to_jsonb(l) ORDER BY l.sort_order), '[]')
			FROM supplier_invoice_items l WHERE l.company_id = i.company_id AND l.supplier_invoice_id = i.id) AS items_json
		FROM supplier_invoices i
		WHERE i.company_id = $1 AND i.credited_invoice_id = $2 AND i.status <> 'reversed'
		  AND ($3::date IS NULL OR i.invoice_date <= $3)
		  AND EXISTS (SELECT 1 FROM supplier_invoice_items l WHERE l.company_id = i.company_id
		              AND l.supplier_invoice_id = i.id AND l.credited_item_id IS NOT NULL)
		ORDER BY i.invoice_date, i.arrival_number`, company, id, store.DayOrNil(through))
	if err != nil {
		return nil, err
	}
	out := make([]Invoice, len(rows))
	for i, r := range rows {
		out[i] = r.Invoice
		if out[i].Items, err = itemsOf(r.Items); err != nil {
			return nil, err
		}
	}
	return out, nil
}
