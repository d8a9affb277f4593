package tests

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
)

// invoiceRow writes, in SQL as the application, an invoice of 10 000 +
// 25 % to customer with one line: a draft, or issued with number and
// due on due when number is not "". It answers the invoice's id.
func (b *partiesBooks) invoiceRow(customer, number, due string) uuid.UUID {
	b.t.Helper()
	ctx := context.Background()
	var id uuid.UUID
	if err := b.db.GetContext(ctx, &id, `INSERT INTO invoices (company_id, document_type, customer_id, customer_name,
			invoice_date, due_date, currency, vat_treatment, subtotal, vat_amount, total)
		VALUES ($1, 'invoice', $2, 'Kund AB', '2026-03-01', $3, 'SEK', 'standard', 10000, 2500, 12500) RETURNING id`,
		b.company, customer, due); err != nil {
		b.t.Fatal(err)
	}
	if _, err := b.db.ExecContext(ctx, `INSERT INTO invoice_items (company_id, invoice_id, sort_order, description,
			quantity, unit, unit_price, vat_rate, net_amount, vat_amount)
		VALUES ($1, $2, 0, 'Konsulttimmar', 10, 'tim', 1000, 0.25, 10000, 2500)`, b.company, id); err != nil {
		b.t.Fatal(err)
	}
	if number != "" {
		if _, err := b.db.ExecContext(ctx, `UPDATE invoices SET status = 'sent', invoice_number = $3, sent_at = now()
			WHERE company_id = $1 AND id = $2`, b.company, id, number); err != nil {
			b.t.Fatal(err)
		}
	}
	return id
}

// Open invoices hold their customer: a sent or partially paid invoice,
// overdue or not, is embedded by expand=invoices (overdue as the clock
// reads the day in Stockholm) and keeps the customer from being archived
// (409 CUSTOMER_HAS_INVOICES); a draft or a paid invoice does not.
func TestOpenInvoicesHoldTheCustomer(t *testing.T) {
	now := time.Date(2026, 3, 31, 22, 30, 0, 0, time.UTC) // 1 April, 00:30 in Stockholm
	b := newPartiesBooks(t, clock(func() time.Time { return now }))
	drafted := b.createCustomer(map[string]any{"name": "Utkast AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	b.invoiceRow(drafted, "", "2026-03-31")
	if r := b.get(b.path("customers/"+drafted+"?expand=invoices"), b.token).status(t, 200); len(r.list("data.invoices")) != 0 {
		t.Fatalf("a draft is open: %s", r.Body)
	}
	b.write("DELETE", "customers/"+drafted, nil).status(t, 204)

	owing := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	inv := b.invoiceRow(owing, "2026-0042", "2026-03-31")
	r := b.get(b.path("customers/"+owing+"?expand=invoices"), b.token).status(t, 200)
	open := r.list("data.invoices")
	if len(open) != 1 {
		t.Fatalf("open invoices: %s", r.Body)
	}
	got := open[0].(map[string]any)
	if got["id"] != inv.String() || got["invoice_number"] != "2026-0042" || got["status"] != "overdue" ||
		got["total"] != 12500.0 || got["balance_due"] != 12500.0 || got["due_date"] != "2026-03-31" {
		t.Fatalf("the open invoice: %v", got)
	}
	if e := b.write("DELETE", "customers/"+owing, nil).errorCode(t, 409, "CUSTOMER_HAS_INVOICES"); e.at("error.details.open_invoices") != 1.0 {
		t.Fatalf("refusal: %s", e.Body)
	}

	// 5 000 paid: partially paid, 7 500 due, still open.
	pay := func(amount string) {
		t.Helper()
		if _, err := b.db.Exec(`INSERT INTO accounts (company_id, account_number, account_name, account_type, normal_balance, is_bas)
			VALUES ($1, '1930', 'Företagskonto', 'asset', 'debit', true) ON CONFLICT DO NOTHING`, b.company); err != nil {
			t.Fatal(err)
		}
		if _, err := b.db.Exec(`INSERT INTO invoice_payments (company_id, invoice_id, payment_date, amount, amount_sek, account_number, source)
			VALUES ($1, $2, '2026-04-01', $3, $3, '1930', 'manual')`, b.company, inv, amount); err != nil {
			t.Fatal(err)
		}
		if _, err := b.db.Exec(`UPDATE invoices SET paid_amount = paid_amount + $3::numeric,
				status = CASE WHEN paid_amount + $3::numeric = total THEN 'paid' ELSE 'partially_paid' END
			WHERE company_id = $1 AND id = $2`, b.company, inv, amount); err != nil {
			t.Fatal(err)
		}
	}
	pay("5000")
	r = b.get(b.path("customers/"+owing+"?expand=invoices"), b.token).status(t, 200)
	if open := r.list("data.invoices"); len(open) != 1 || open[0].(map[string]any)["balance_due"] != 7500.0 ||
		open[0].(map[string]any)["status"] != "overdue" {
		t.Fatalf("partly paid: %s", r.Body)
	}
	// Not overdue the day it falls due.
	now = time.Date(2026, 3, 31, 21, 30, 0, 0, time.UTC) // 31 March, 23:30 in Stockholm
	r = b.get(b.path("customers/"+owing+"?expand=invoices"), b.token).status(t, 200)
	if open := r.list("data.invoices"); len(open) != 1 || open[0].(map[string]any)["status"] != "partially_paid" {
		t.Fatalf("on its due day: %s", r.Body)
	}
	pay("7500")
	if r := b.get(b.path("customers/"+owing+"?expand=invoices"), b.token).status(t, 200); len(r.list("data.invoices")) != 0 {
		t.Fatalf("a paid invoice is open: %s", r.Body)
	}
	b.write("DELETE", "customers/"+owing, nil).status(t, 204)
}
