package tests

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/fx"
)

// arTotal is the kundreskontra's total on day: what customers owe.
func (b *partiesBooks) arTotal(day string) float64 {
	b.t.Helper()
	return agingTotals(b.get(b.path("reports/ar-ledger?as_of_date="+day), b.token).status(b.t, 200))[5]
}

// A customer pays 12 600 kr of a 12 500 kr invoice: the invoice is paid
// and the 100 kr over are the customer's credit on 2420 (D 1930 12 600 /
// C 1510 12 500, C 2420 100); the kundreskontra stays equal to 1510.
// Applied to the next invoice of 12 500 kr: D 2420 100 / C 1510 100,
// which leaves 12 400 kr to pay.
func TestInvoiceOverpayment(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	first := b.issued(customer, nil)

	dry := b.do(req{Method: "POST", Path: b.path("invoices/" + first + "/mark-paid?dry_run=true"), Token: b.token,
		Body: map[string]any{"amount": 12600, "payment_date": "2026-03-20"}, Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if lines(dry, "data.preview.verifikat_lines") != "D 1930 12600.00, C 1510 12500.00, C 2420 100.00" {
		t.Fatalf("dry run: %s", dry.Body)
	}
	paid := b.markPaid(first, map[string]any{"amount": 12600, "payment_date": "2026-03-20"}).status(t, 200)
	if paid.str("data.status") != "paid" || paid.at("data.remaining_amount") != 0.0 || paid.at("data.paid_amount") != 12500.0 ||
		lines(paid, "data.verifikat_lines") != "D 1930 12600.00, C 1510 12500.00, C 2420 100.00" ||
		paid.at("data.customer_credit.amount") != 100.0 || paid.at("data.customer_credit.remaining_amount") != 100.0 {
		t.Fatalf("overpaid: %s", paid.Body)
	}
	credit := paid.str("data.customer_credit.id")
	// The credit's time is the stored one, not a zero time.
	var stored time.Time
	if err := b.db.Get(&stored, `SELECT created_at FROM customer_credits WHERE id = $1`, credit); err != nil ||
		paid.str("data.customer_credit.created_at") != stored.UTC().Format(time.RFC3339Nano) {
		t.Fatalf("created_at %s, stored %s (%v)", paid.str("data.customer_credit.created_at"), stored, err)
	}
	if b.exact("1510") != "0.00" || b.exact("2420") != "-100.00" || b.exact("1930") != "12600.00" || b.arTotal("2026-03-31") != 0 {
		t.Fatalf("1510 %s 2420 %s 1930 %s, reskontra %v", b.exact("1510"), b.exact("2420"), b.exact("1930"), b.arTotal("2026-03-31"))
	}
	list := b.get(b.path("customers/"+customer+"/credits"), b.token).status(t, 200)
	if len(list.list("data")) != 1 || list.str("data.0.id") != credit || list.str("data.0.invoice_id") != first ||
		list.at("data.0.remaining_sek") != 100.0 {
		t.Fatalf("credits: %s", list.Body)
	}

	second := b.issued(customer, map[string]any{"invoice_date": "2026-03-25"})
	path := "customers/" + customer + "/credits/" + credit + "/apply"
	b.write("POST", path, map[string]any{"invoice_id": second, "amount": 100.01}).errorCode(t, 400, "VALIDATION_ERROR")
	other := b.createCustomer(map[string]any{"name": "Annan AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	b.write("POST", path, map[string]any{"invoice_id": b.issued(other, nil)}).errorCode(t, 400, "VALIDATION_ERROR")
	applied := b.write("POST", path, map[string]any{"invoice_id": second, "payment_date": "2026-03-26"}).status(t, 200)
	// Due on 31 March, the invoice is overdue on the real clock the test runs on.
	if applied.at("data.credit.remaining_amount") != 0.0 || applied.at("data.invoice.paid_amount") != 100.0 ||
		applied.at("data.invoice.remaining_amount") != 12400.0 || lines(applied, "data.verifikat_lines") != "D 2420 100.00, C 1510 100.00" {
		t.Fatalf("applied: %s", applied.Body)
	}
	// 1510: the 12 400 left of the second and the other customer's 12 500.
	if b.exact("2420") != "0.00" || b.exact("1510") != "24900.00" || b.arTotal("2026-03-31") != 24900 ||
		b.get(b.path("invoices/"+second+"?expand=payments"), b.token).status(t, 200).str("data.payments.0.source") != "customer_credit" {
		t.Fatalf("after applying: 2420 %s 1510 %s reskontra %v", b.exact("2420"), b.exact("1510"), b.arTotal("2026-03-31"))
	}
	b.write("POST", path, map[string]any{"invoice_id": second}).errorCode(t, 409, "CONFLICT")
	// The credit's own verifikat cannot be stornoed while it is used.
	b.write("POST", "journal-entries/"+paid.str("data.journal_entry_id")+"/reverse", nil).errorCode(t, 409, "CONFLICT")
	// A storno of the applying verifikat (dated today) gives the credit back.
	b.write("POST", "journal-entries/"+applied.str("data.journal_entry_id")+"/reverse", nil).status(t, 200)
	if got := b.get(b.path("customers/"+customer+"/credits"), b.token).status(t, 200); got.at("data.0.remaining_amount") != 100.0 ||
		b.exact("2420") != "-100.00" || b.exact("1510") != "25000.00" || b.arTotal("2026-12-31") != 25000 {
		t.Fatalf("after the storno: %s, 2420 %s 1510 %s", got.Body, b.exact("2420"), b.exact("1510"))
	}
}

// A bank match of 12 600 kr to an invoice of 12 500 kr: the 100 kr over
// are the customer's credit, paid back from 1930: D 2420 100 / C 1930
// 100. A storno of the refund gives it back; one of the payment, with the
// credit unused, reverses the credit too.
func TestInvoiceOverpaymentByBankRefunded(t *testing.T) {
	t.Parallel()
	b, _ := newBankBooks(t)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	inv := b.issued(customer, nil)
	ids := b.ingested(bankRow("H1", "2026-03-10", 12600, "BG INBETALNING"))
	m := b.write("POST", "transactions/"+ids[0]+"/match-invoice", map[string]any{"invoice_id": inv}).status(t, 200)
	if m.str("data.invoice_status") != "paid" || lines(m, "data.lines") != "D 1930 12600.00, C 1510 12500.00, C 2420 100.00" {
		t.Fatalf("match-invoice: %s", m.Body)
	}
	list := b.get(b.path("customers/"+customer+"/credits"), b.token).status(t, 200)
	if len(list.list("data")) != 1 || list.at("data.0.amount") != 100.0 {
		t.Fatalf("credits: %s", list.Body)
	}
	credit := list.str("data.0.id")
	path := "customers/" + customer + "/credits/" + credit + "/refund"
	b.write("POST", path, map[string]any{"payment_date": "2026-03-01"}).errorCode(t, 400, "VALIDATION_ERROR")
	r := b.write("POST", path, map[string]any{"payment_date": "2026-03-15"}).status(t, 200)
	if r.at("data.credit.remaining_amount") != 0.0 || r.at("data.invoice") != nil ||
		lines(r, "data.verifikat_lines") != "D 2420 100.00, C 1930 100.00" {
		t.Fatalf("refund: %s", r.Body)
	}
	if b.exact("2420") != "0.00" || b.exact("1930") != "12500.00" || b.exact("1510") != "0.00" {
		t.Fatalf("2420 %s 1930 %s 1510 %s", b.exact("2420"), b.exact("1930"), b.exact("1510"))
	}
	b.write("POST", path, nil).errorCode(t, 409, "CONFLICT")
	b.write("POST", "journal-entries/"+r.str("data.journal_entry_id")+"/reverse", nil).status(t, 200)
	if got := b.get(b.path("customers/"+customer+"/credits"), b.token).status(t, 200); got.at("data.0.remaining_amount") != 100.0 {
		t.Fatalf("after the refund's storno: %s", got.Body)
	}
	b.write("POST", "journal-entries/"+m.str("data.journal_entry_id")+"/reverse", nil).status(t, 200)
	got := b.get(b.path("customers/"+customer+"/credits"), b.token).status(t, 200)
	if got.at("data.0.remaining_amount") != 0.0 || b.exact("2420") != "0.00" || b.exact("1510") != "12500.00" ||
		b.get(b.path("invoices/"+inv), b.token).at("data.paid_amount") != 0.0 {
		t.Fatalf("after the payment's storno: %s, 2420 %s 1510 %s", got.Body, b.exact("2420"), b.exact("1510"))
	}
}

// A foreign invoice sent without a rate is issued at the rate kept for
// its invoice date (a rate file's), and paid without one at the payment
// date's: 1 000 € at 11.20 = 11 200 kr; paid at 11.45 = 11 450 kr, the
// 250 kr gained on 3960.
func TestInvoiceForeignAtTheDaysRate(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	b.vatQuarterly()
	// The operator's rate file, loaded as `kontera fx import FILE` loads it.
	if n, err := fx.New(b.db, nil).Import(context.Background(), strings.NewReader("currency,date,rate\nEUR,2026-03-01,11.20\nEUR,2026-03-20,11.45\n")); err != nil || n != 2 {
		t.Fatalf("rate file: %d %v", n, err)
	}
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	id := b.createInvoice(consulting(customer, map[string]any{"currency": "EUR", "items": []any{map[string]any{
		"description": "Rådgivning", "quantity": 1, "unit": "st", "unit_price": 800}}})).status(t, 201).str("data.id")
	sent := b.markSent(id).status(t, 200)
	if lines(sent, "data.verifikat_lines") != "D 1510 11200.00, C 3001 8960.00, C 2611 2240.00" {
		t.Fatalf("issued: %s", sent.Body)
	}
	if got := b.get(b.path("invoices/"+id), b.token).status(t, 200); got.at("data.exchange_rate") != 11.2 || got.at("data.total_sek") != 11200.0 {
		t.Fatalf("the invoice keeps its rate: %s", got.Body)
	}
	paid := b.markPaid(id, map[string]any{"payment_date": "2026-03-20"}).status(t, 200)
	if lines(paid, "data.verifikat_lines") != "D 1930 11450.00, C 1510 11200.00, C 3960 250.00" {
		t.Fatalf("paid: %s", paid.Body)
	}
	// A draft without a rate is judged at the rate it would be issued at:
	// 300 € at 11.20 is 3 360 kr, a simplified invoice.
	small := b.createInvoice(consulting(customer, map[string]any{"currency": "EUR", "items": []any{map[string]any{
		"description": "Rådgivning", "quantity": 1, "unit": "st", "unit_price": 240}}})).status(t, 201).str("data.id")
	if got := b.get(b.path("invoices/"+small), b.token).status(t, 200); got.at("data.legal_content.simplified") != true {
		t.Fatalf("legal_content of a small foreign draft: %s", got.raw("data.legal_content"))
	}
	// No rate kept for the day: refused, saying why.
	other := b.createInvoice(consulting(customer, map[string]any{"currency": "EUR", "invoice_date": "2026-04-15"})).status(t, 201).str("data.id")
	if r := b.markSent(other).errorCode(t, 400, "INVOICE_FX_RATE_MISSING"); r.str("error.details.reason") != "offline" {
		t.Fatalf("no rate: %s", r.Body)
	}
}

// A company that writes off short payments up to 50 kr: 12 460 kr for a
// 12 500 kr invoice closes it, the 40 kr on 6570 (D 1930 12 460, D 6570
// 40 / C 1510 12 500); 12 499,50 kr closes one with 0,50 kr on 3740; 12 400
// kr leaves 100 kr to pay. Without the setting, 12 460 kr leaves 40 kr.
func TestInvoiceShortPaymentWrittenOff(t *testing.T) {
	t.Parallel()
	b, _ := newBankBooks(t)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	kept := b.markPaid(b.issued(customer, nil), map[string]any{"amount": 12460, "payment_date": "2026-03-20"}).status(t, 200)
	if kept.at("data.remaining_amount") != 40.0 || lines(kept, "data.verifikat_lines") != "D 1930 12460.00, C 1510 12460.00" {
		t.Fatalf("without a limit: %s", kept.Body)
	}
	b.write("PATCH", "settings", map[string]any{"short_payment_write_off_limit": 10000.01}).errorCode(t, 400, "VALIDATION_ERROR")
	if got := b.write("PATCH", "settings", map[string]any{"short_payment_write_off_limit": 50}).status(t, 200).
		at("data.short_payment_write_off_limit"); got != 50.0 {
		t.Fatalf("limit %v", got)
	}
	off := b.markPaid(b.issued(customer, nil), map[string]any{"amount": 12460, "payment_date": "2026-03-20"}).status(t, 200)
	if off.str("data.status") != "paid" || off.at("data.paid_amount") != 12500.0 ||
		lines(off, "data.verifikat_lines") != "D 1930 12460.00, C 1510 12500.00, D 6570 40.00" {
		t.Fatalf("written off: %s", off.Body)
	}
	ore := b.markPaid(b.issued(customer, nil), map[string]any{"amount": 12499.50, "payment_date": "2026-03-20"}).status(t, 200)
	if ore.str("data.status") != "paid" || lines(ore, "data.verifikat_lines") != "D 1930 12499.50, C 1510 12500.00, D 3740 0.50" {
		t.Fatalf("öre: %s", ore.Body)
	}
	far := b.markPaid(b.issued(customer, nil), map[string]any{"amount": 12400, "payment_date": "2026-03-20"}).status(t, 200)
	if far.at("data.remaining_amount") != 100.0 {
		t.Fatalf("beyond the limit: %s", far.Body)
	}
	// A bank match short by 30 kr is written off the same way.
	inv := b.issued(customer, nil)
	ids := b.ingested(bankRow("S1", "2026-03-21", 12470, "BG INBETALNING"))
	m := b.write("POST", "transactions/"+ids[0]+"/match-invoice", map[string]any{"invoice_id": inv}).status(t, 200)
	if m.str("data.invoice_status") != "paid" || lines(m, "data.lines") != "D 1930 12470.00, C 1510 12500.00, D 6570 30.00" {
		t.Fatalf("bank match: %s", m.Body)
	}
}
