package invoicing

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Outstanding is an issued invoice or credit note as it stood on a day:
// what was still open of it after the payments, payouts and credits dated
// up to that day.
type Outstanding struct {
	ID           uuid.UUID    `db:"id"`
	Number       *string      `db:"invoice_number"`
	CustomerID   uuid.UUID    `db:"customer_id"`
	CustomerName string       `db:"customer_name"`
	InvoiceDate  time.Time    `db:"invoice_date"`
	DueDate      time.Time    `db:"due_date"`
	Currency     string       `db:"currency"`
	CreditNote   bool         `db:"credit_note"`
	Total        money.Amount `db:"total"`
	// Open is the customer's part still open, in the invoice's currency;
	// OpenDeduction the ROT/RUT part Skatteverket has yet to pay.
	Open          money.Amount `db:"open"`
	OpenDeduction money.Amount `db:"open_deduction"`
	// OpenSEK is all of it still on the receivable accounts, in kronor.
	OpenSEK money.Amount `db:"open_sek"`
	Paid    money.Amount `db:"paid"`
}

// OutstandingOn lists the company's invoices and credit notes dated on or
// before day with anything open on day, by customer name and due date. A
// credit note's settlement of its original counts on the original from
// the credit note's day; what the credit note owes the customer back is
// open on the credit note.
func (s *Store) OutstandingOn(ctx context.Context, company uuid.UUID, day time.Time) ([]Outstanding, error) {
	out := []Outstanding{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, outstanding+`
		ORDER BY customer_name, customer_id, due_date, invoice_date, id`, company, store.Day(day))
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

// outstanding is the company's ($1) invoices and credit notes open on day
// ($2), as OutstandingOn describes them.
const outstanding = `
	WITH pay AS (
		SELECT p.invoice_id AS id,
			coalesce(sum(p.amount) FILTER (WHERE p.source <> 'rot_rut_payout'), 0) AS paid,
			coalesce(sum(p.amount) FILTER (WHERE p.source = 'rot_rut_payout'), 0) AS payout,
			sum(p.amount_sek) AS paid_sek
		FROM invoice_payments p WHERE p.company_id = $1 AND p.payment_date <= $2 GROUP BY p.invoice_id
		UNION ALL
		SELECT cn.credited_invoice_id, -sum(p.amount), 0, -sum(p.amount_sek)
		FROM invoice_payments p JOIN invoices cn ON cn.company_id = p.company_id AND cn.id = p.invoice_id
		WHERE p.company_id = $1 AND p.source = 'credit_note' AND p.payment_date <= $2
		GROUP BY cn.credited_invoice_id),
	paid AS (SELECT id, sum(paid) AS paid, sum(payout) AS payout, sum(paid_sek) AS paid_sek FROM pay GROUP BY id)
	SELECT * FROM (
		SELECT i.id, i.invoice_number, i.customer_id, i.customer_name, i.invoice_date, i.due_date, i.currency,
			i.credited_invoice_id IS NOT NULL AS credit_note, i.total,
			i.total - i.deduction_total - coalesce(x.paid, 0) AS open,
			i.deduction_total - coalesce(x.payout, 0) AS open_deduction,
			coalesce(i.total_sek, i.total) - coalesce(x.paid_sek, 0) AS open_sek,
			coalesce(x.paid, 0) AS paid
		FROM invoices i LEFT JOIN paid x ON x.id = i.id
		WHERE i.company_id = $1 AND i.document_type = 'invoice' AND i.status NOT IN ('draft', 'cancelled')
			AND i.invoice_date <= $2) o
	WHERE open <> 0 OR open_deduction <> 0`

// FirstIssued is the date of the company's first issued invoice, nil when
// it has none: where the register starts covering the receivables.
func (s *Store) FirstIssued(ctx context.Context, company uuid.UUID) (*time.Time, error) {
	var d *time.Time
	err := s.db.Q(ctx).GetContext(ctx, &d, `SELECT min(invoice_date) FROM invoices
		WHERE company_id = $1 AND document_type = 'invoice' AND status NOT IN ('draft', 'cancelled')`, company)
	return d, err
}

// PaymentDays is the average number of days from invoice date to full
// payment of the invoices paid from..to, nil when none was.
func (s *Store) PaymentDays(ctx context.Context, company uuid.UUID, from, to time.Time) (*float64, error) {
	var avg *float64
	err := s.db.Q(ctx).GetContext(ctx, &avg, `SELECT round(avg(paid_at - invoice_date), 1)::float8 FROM invoices
		WHERE company_id = $1 AND document_type = 'invoice' AND credited_invoice_id IS NULL AND status = 'paid'
			AND paid_at BETWEEN $2 AND $3`, company, store.Day(from), store.Day(to))
	return avg, err
}

// EUSale is an invoice or credit note for a sale to another EU state
// under reverse charge: what the EU sales list reports.
type EUSale struct {
	ID           uuid.UUID `db:"id"`
	Number       *string   `db:"invoice_number"`
	CustomerID   uuid.UUID `db:"customer_id"`
	CustomerName string    `db:"customer_name"`
	// Treatment is eu_goods, eu_services or eu_triangulation.
	Treatment   string       `db:"vat_treatment"`
	InvoiceDate time.Time    `db:"invoice_date"`
	AmountSEK   money.Amount `db:"amount_sek"`
	// Validated is whether VIES had validated the buyer's VAT number.
	Validated bool `db:"buyer_vat_number_validated"`
}

// EUSalesIn lists the issued invoices and credit notes dated from..to
// that sold goods or services to another EU state under reverse charge,
// with their value before VAT in kronor, at the invoice's rate (negative
// for a credit note).
func (s *Store) EUSalesIn(ctx context.Context, company uuid.UUID, from, to time.Time) ([]EUSale, error) {
	out := []EUSale{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		SELECT id, invoice_number, customer_id, customer_name, vat_treatment, invoice_date,
			coalesce(buyer_vat_number_validated, true) AS buyer_vat_number_validated,
			CASE WHEN currency = 'SEK' THEN subtotal ELSE round(subtotal * exchange_rate, 2) END AS amount_sek
		FROM invoices
		WHERE company_id = $1 AND document_type = 'invoice' AND status NOT IN ('draft', 'cancelled')
			AND vat_treatment IN ('eu_goods', 'eu_services', 'eu_triangulation') AND invoice_date BETWEEN $2 AND $3
		ORDER BY customer_id, invoice_date, invoice_number`, company, store.Day(from), store.Day(to))
	return out, err
}

// Standing is what a company's invoices ask of a bookkeeper: drafts not
// issued, and invoices overdue with what is left of them in kronor (an
// invoice in another currency at its own rate).
type Standing struct {
	Company    uuid.UUID    `db:"company_id"`
	Drafts     int          `db:"drafts"`
	Overdue    int          `db:"overdue"`
	OverdueSEK money.Amount `db:"overdue_sek"`
}

// Standings answers the standing of each company of ids that has drafts
// or open invoices, on day today.
func (s *Store) Standings(ctx context.Context, ids []uuid.UUID, today time.Time) (map[uuid.UUID]Standing, error) {
	var rows []Standing
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `
		SELECT company_id, count(*) FILTER (WHERE status = 'draft') AS drafts, count(*) FILTER (WHERE late) AS overdue,
			coalesce(sum(CASE WHEN currency = 'SEK' THEN left_to_pay
				ELSE round(left_to_pay * total_sek / nullif(total, 0), 2) END) FILTER (WHERE late), 0) AS overdue_sek
		FROM (SELECT company_id, status, currency, total, total_sek, total - deduction_total - paid_amount AS left_to_pay,
				invoices_overdue(status, due_date, total, deduction_total, paid_amount, $2) AS late
			FROM invoices WHERE company_id = ANY($1) AND document_type = 'invoice'
			  AND status IN ('draft', 'sent', 'partially_paid')) i
		GROUP BY company_id`, pq.Array(ids), store.Day(today))
	return store.Index(rows, func(r Standing) uuid.UUID { return r.Company }), err
}
