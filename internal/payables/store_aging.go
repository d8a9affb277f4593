package payables

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Outstanding is a supplier invoice or credit note as it stood on a day:
// what was still open of it after the payments and credits dated up to
// that day.
type Outstanding struct {
	ID           uuid.UUID    `db:"id"`
	Number       string       `db:"invoice_number"`
	SupplierID   uuid.UUID    `db:"supplier_id"`
	SupplierName string       `db:"supplier_name"`
	InvoiceDate  time.Time    `db:"invoice_date"`
	DueDate      time.Time    `db:"due_date"`
	Currency     string       `db:"currency"`
	CreditNote   bool         `db:"is_credit_note"`
	Status       string       `db:"status"`
	Total        money.Amount `db:"total"`
	// Open is what is still owed in the invoice's currency; OpenSEK the
	// kronor still on 2440 (at the rates it was booked at).
	Open    money.Amount `db:"open"`
	OpenSEK money.Amount `db:"open_sek"`
	Paid    money.Amount `db:"paid"`
}

// OutstandingOn lists the company's supplier invoices and credit notes
// dated on or before day with anything open on day, by supplier and due
// date. A reversed registration is left out whatever day is asked: it
// never was a debt. A credit note's settlement of its original counts on
// the original from the credit note's day.
func (s *Store) OutstandingOn(ctx context.Context, company uuid.UUID, day time.Time) ([]Outstanding, error) {
	out := []Outstanding{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, outstanding+`
		ORDER BY supplier_name, supplier_id, due_date, invoice_date, id`, company, store.Day(day))
	return out, err
}

// OpenTotalOn sums in kronor what OutstandingOn lists, and what of it was
// due before day.
func (s *Store) OpenTotalOn(ctx context.Context, company uuid.UUID, day time.Time) (total, overdue money.Amount, err error) {
	err = s.db.Q(ctx).QueryRowxContext(ctx, `SELECT coalesce(sum(open_sek), 0),
		coalesce(sum(open_sek) FILTER (WHERE due_date < $2), 0) FROM (`+outstanding+`) t`, company, store.Day(day)).
		Scan(&total, &overdue)
	return total, overdue, err
}

// outstanding is the company's ($1) supplier invoices and credit notes
// open on day ($2), as OutstandingOn describes them.
const outstanding = `
	WITH pay AS (
		SELECT p.supplier_invoice_id AS id, sum(p.amount) AS paid, sum(p.booked_sek) AS paid_sek
		FROM supplier_invoice_payments p WHERE p.company_id = $1 AND p.payment_date <= $2
		GROUP BY p.supplier_invoice_id
		UNION ALL
		SELECT cn.credited_invoice_id, -sum(p.amount), -sum(p.booked_sek)
		FROM supplier_invoice_payments p
		JOIN supplier_invoices cn ON cn.company_id = p.company_id AND cn.id = p.supplier_invoice_id
		WHERE p.company_id = $1 AND p.source = 'credit_note' AND p.payment_date <= $2
		GROUP BY cn.credited_invoice_id),
	paid AS (SELECT id, sum(paid) AS paid, sum(paid_sek) AS paid_sek FROM pay GROUP BY id)
	SELECT * FROM (
		SELECT i.id, i.supplier_invoice_number AS invoice_number, i.supplier_id, s.name AS supplier_name, i.invoice_date, i.due_date,
			i.currency, i.is_credit_note, i.status, i.total, i.total - coalesce(x.paid, 0) AS open,
			i.total_sek - coalesce(x.paid_sek, 0) AS open_sek, coalesce(x.paid, 0) AS paid
		FROM supplier_invoices i
		JOIN suppliers s ON s.company_id = i.company_id AND s.id = i.supplier_id
		LEFT JOIN paid x ON x.id = i.id
		WHERE i.company_id = $1 AND i.status <> 'reversed' AND i.invoice_date <= $2) o
	WHERE open <> 0`

// SupplierTotal is what the company bought of one supplier.
type SupplierTotal struct {
	SupplierID uuid.UUID    `db:"supplier_id"`
	Name       string       `db:"name"`
	TotalSEK   money.Amount `db:"total_sek"`
	Count      int          `db:"invoice_count"`
}

// TopSuppliers are the n suppliers the company bought the most from in
// invoices dated from..to, in kronor; credit notes (negative) count
// against them,
// reversed registrations not at all.
func (s *Store) TopSuppliers(ctx context.Context, company uuid.UUID, from, to time.Time, n int) ([]SupplierTotal, error) {
	out := []SupplierTotal{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		SELECT i.supplier_id, s.name, sum(i.total_sek) AS total_sek,
			count(*) FILTER (WHERE NOT i.is_credit_note) AS invoice_count
		FROM supplier_invoices i JOIN suppliers s ON s.company_id = i.company_id AND s.id = i.supplier_id
		WHERE i.company_id = $1 AND i.status <> 'reversed' AND i.invoice_date BETWEEN $2 AND $3
		GROUP BY i.supplier_id, s.name ORDER BY 3 DESC, s.name LIMIT $4`, company, store.Day(from), store.Day(to), n)
	return out, err
}
