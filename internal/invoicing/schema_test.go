package invoicing

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// seller writes, in SQL, a company with a customer and a 1930 account,
// and answers both.
func seller(t *testing.T, d *store.DB) (company, customer uuid.UUID) {
	t.Helper()
	if err := d.Get(&company, `WITH u AS (INSERT INTO users (email) VALUES ('f' || gen_random_uuid() || '@example.se') RETURNING id)
		INSERT INTO companies (name, entity_type, first_fiscal_year_start, first_fiscal_year_end, created_by)
		SELECT 'Fakturor AB', 'aktiebolag', '2026-01-01', '2026-12-31', id FROM u RETURNING id`); err != nil {
		t.Fatal(err)
	}
	customer = uuid.New()
	if _, err := d.Exec(`INSERT INTO customers (company_id, id, name, customer_type, country, language, default_payment_terms, search_name)
		VALUES ($1, $2, 'Kund AB', 'swedish_business', 'SE', 'sv', 30, 'kund ab')`, company, customer); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Exec(`INSERT INTO accounts (company_id, account_number, account_name, account_type, normal_balance, is_bas)
		VALUES ($1, '1930', 'Bank', 'asset', 'debit', true)`, company); err != nil {
		t.Fatal(err)
	}
	return company, customer
}

// sales writes, in SQL, a seller and a draft invoice of 10 000 + 25 %
// with one line. It answers the company and the invoice.
func sales(t *testing.T, d *store.DB) (uuid.UUID, uuid.UUID) {
	t.Helper()
	company, customer := seller(t, d)
	var invoice uuid.UUID
	if err := d.Get(&invoice, `INSERT INTO invoices (company_id, document_type, customer_id, customer_name, invoice_date, due_date,
			currency, vat_treatment, subtotal, vat_amount, total)
		VALUES ($1, 'invoice', $2, 'Kund AB', '2026-03-01', '2026-03-31', 'SEK', 'standard', 10000, 2500, 12500) RETURNING id`,
		company, customer); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Exec(`INSERT INTO invoice_items (company_id, invoice_id, sort_order, description, quantity, unit, unit_price,
			vat_rate, net_amount, vat_amount)
		VALUES ($1, $2, 0, 'Konsulttimmar', 10, 'tim', 1000, 0.25, 10000, 2500)`, company, invoice); err != nil {
		t.Fatal(err)
	}
	return company, invoice
}

// refused runs sql and wants it refused with an error that says want.
func refused(t *testing.T, d *store.DB, what, want, sql string, args ...any) {
	t.Helper()
	if _, err := d.Exec(sql, args...); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: %v, want an error saying %q", what, err, want)
	}
}

func exec(t *testing.T, d *store.DB, sql string, args ...any) {
	t.Helper()
	if _, err := d.Exec(sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// A draft changes freely; an issued invoice keeps what it says, moves only
// along the state table, and what is paid follows its payments, which
// are never changed. Only an unnumbered draft is deleted.
func TestInvoiceGuards(t *testing.T) {
	d := pgtest.New(t)
	c, inv := sales(t, d)
	where := ` WHERE company_id = $1 AND id = $2`
	exec(t, d, `UPDATE invoices SET notes = 'Tack!', due_date = '2026-04-15'`+where, c, inv)
	exec(t, d, `UPDATE invoice_items SET description = 'Konsulttimmar mars' WHERE company_id = $1 AND invoice_id = $2`, c, inv)
	refused(t, d, "a payment of a draft", "a payment is of an issued invoice",
		`INSERT INTO invoice_payments (company_id, invoice_id, payment_date, amount, amount_sek, account_number, source)
		 VALUES ($1, $2, '2026-03-20', 100, 100, '1930', 'manual')`, c, inv)
	refused(t, d, "sent without a number", "invoices_check",
		`UPDATE invoices SET status = 'sent', sent_at = now()`+where, c, inv)
	exec(t, d, `UPDATE invoices SET status = 'sent', invoice_number = '1', sent_at = now()`+where, c, inv)

	for what, sql := range map[string]string{
		"the total":    `UPDATE invoices SET subtotal = 8000, total = 10500` + where,
		"the due date": `UPDATE invoices SET due_date = '2026-05-01'` + where,
		"the notes":    `UPDATE invoices SET notes = 'Ändrad'` + where,
	} {
		refused(t, d, what, "INVOICE_UPDATE_NOT_DRAFT", sql, c, inv)
	}
	refused(t, d, "the number", "never change", `UPDATE invoices SET invoice_number = '2'`+where, c, inv)
	refused(t, d, "a line", "INVOICE_UPDATE_NOT_DRAFT",
		`UPDATE invoice_items SET unit_price = 1 WHERE company_id = $1 AND invoice_id = $2`, c, inv)
	refused(t, d, "a new line", "INVOICE_UPDATE_NOT_DRAFT",
		`INSERT INTO invoice_items (company_id, invoice_id, sort_order, description, quantity, unit, unit_price, vat_rate, net_amount, vat_amount)
		 VALUES ($1, $2, 1, 'Extra', 1, 'st', 1, 0.25, 1, 0.25)`, c, inv)
	refused(t, d, "deleting it", "INVOICE_DELETE_NOT_DRAFT", `DELETE FROM invoices`+where, c, inv)
	refused(t, d, "back to draft", "does not move from sent to draft", `UPDATE invoices SET status = 'draft'`+where, c, inv)
	refused(t, d, "paid with nothing paid", "follows the payments",
		`UPDATE invoices SET status = 'paid', paid_amount = 12500`+where, c, inv)

	// 5 000 paid: partially paid, and nothing else.
	exec(t, d, `INSERT INTO invoice_payments (company_id, invoice_id, payment_date, amount, amount_sek, account_number, source)
		VALUES ($1, $2, '2026-03-20', 5000, 5000, '1930', 'manual')`, c, inv)
	refused(t, d, "paid, with 5 000 of 12 500", "is not paid", `UPDATE invoices SET status = 'paid', paid_amount = 5000`+where, c, inv)
	exec(t, d, `UPDATE invoices SET status = 'partially_paid', paid_amount = 5000`+where, c, inv)
	refused(t, d, "a refund on an invoice", "in the sign of its total",
		`INSERT INTO invoice_payments (company_id, invoice_id, payment_date, amount, amount_sek, account_number, source)
		 VALUES ($1, $2, '2026-03-21', -10, -10, '1930', 'manual')`, c, inv)
	tx, err := d.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO invoice_payments (company_id, invoice_id, payment_date, amount, amount_sek, account_number, source)
		VALUES ($1, $2, '2026-03-21', 7501, 7501, '1930', 'manual')`, c, inv); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`UPDATE invoices SET status = 'paid', paid_amount = 12501`+where, c, inv); err == nil ||
		!strings.Contains(err.Error(), "is not paid") {
		t.Errorf("more than is owed: %v", err)
	}
	tx.Rollback()
	refused(t, d, "changing a payment", "permission denied", `UPDATE invoice_payments SET amount = 1 WHERE company_id = $1`, c)
	refused(t, d, "removing a payment", "permission denied", `DELETE FROM invoice_payments WHERE company_id = $1`, c)
	for _, table := range []string{"invoices", "invoice_items", "invoice_payments", "invoice_series"} {
		refused(t, d, "truncating "+table, "", `TRUNCATE `+table)
	}

	// An unnumbered draft goes with its lines; a numbered one stays.
	_, draft := sales(t, d)
	var company uuid.UUID
	if err := d.Get(&company, `SELECT company_id FROM invoices WHERE id = $1`, draft); err != nil {
		t.Fatal(err)
	}
	exec(t, d, `DELETE FROM invoices`+where, company, draft)
	var left int
	if err := d.Get(&left, `SELECT count(*) FROM invoice_items WHERE company_id = $1 AND invoice_id = $2`, company, draft); err != nil || left != 0 {
		t.Fatalf("the deleted draft left %d lines (%v)", left, err)
	}
	_, numbered := sales(t, d)
	exec(t, d, `UPDATE invoices SET invoice_number = 'OF-1' WHERE id = $1`, numbered)
	refused(t, d, "a numbered draft", "INVOICE_DELETE_NOT_DRAFT", `DELETE FROM invoices WHERE id = $1`, numbered)
	exec(t, d, `UPDATE invoices SET status = 'cancelled', cancelled_at = now() WHERE id = $1`, numbered)
}

// A series counts up one at a time and is never removed.
func TestSeriesGuard(t *testing.T) {
	d := pgtest.New(t)
	c, _ := sales(t, d)
	exec(t, d, `INSERT INTO invoice_series (company_id, series, last_number) VALUES ($1, 'OF', 1)`, c)
	exec(t, d, `UPDATE invoice_series SET last_number = last_number + 1 WHERE company_id = $1`, c)
	refused(t, d, "a step of two", "one at a time", `UPDATE invoice_series SET last_number = last_number + 2 WHERE company_id = $1`, c)
	refused(t, d, "back", "one at a time", `UPDATE invoice_series SET last_number = 1 WHERE company_id = $1`, c)
	refused(t, d, "removing it", "permission denied", `DELETE FROM invoice_series WHERE company_id = $1`, c)
}

// Overdue: sent or partially paid, due before the day, something left.
func TestOverdue(t *testing.T) {
	d := pgtest.New(t)
	for _, c := range []struct {
		status, due, today     string
		total, deduction, paid string
		want                   bool
	}{
		{"sent", "2026-03-31", "2026-04-01", "12500", "0", "0", true},
		{"sent", "2026-03-31", "2026-03-31", "12500", "0", "0", false}, // due today is not late
		{"partially_paid", "2026-03-31", "2026-04-01", "12500", "0", "5000", true},
		{"paid", "2026-03-31", "2026-04-01", "12500", "0", "12500", false},
		{"sent", "2026-03-31", "2026-04-01", "0", "0", "0", false}, // nothing to pay
		{"sent", "2026-03-31", "2026-04-01", "17500", "3750", "13750", false},
		{"draft", "2026-03-31", "2026-04-01", "12500", "0", "0", false},
		{"sent", "2026-03-31", "2026-04-01", "-12500", "0", "0", true}, // a refund owed
	} {
		var got bool
		if err := d.Get(&got, `SELECT invoices_overdue($1, $2, $3, $4, $5, $6)`, c.status, c.due, c.total, c.deduction, c.paid, c.today); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%+v: overdue %v", c, got)
		}
	}
}
