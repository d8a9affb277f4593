package tests

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

// markSent issues invoice id without e-mail.
func (b *partiesBooks) markSent(id string) *response {
	b.t.Helper()
	return b.write("POST", "invoices/"+id+"/mark-sent", nil)
}

// lines writes a verifikat's lines as "D 1510 12500" in order.
func lines(r *response, path string) string {
	var out []string
	for _, l := range r.list(path) {
		m := l.(map[string]any)
		side, a := "D", m["debit_amount"]
		if m["credit_amount"] != 0.0 {
			side, a = "C", m["credit_amount"]
		}
		out = append(out, fmt.Sprintf("%s %s %.2f", side, m["account_number"], a))
	}
	return strings.Join(out, ", ")
}

// Issuing takes the next number and its OCR reference and books the sale
// dated the invoice date: 10 000 + 25 % is D 1510 12 500 / C 3001 10 000,
// C 2611 2 500. Issued once; a dry run shows the lines and changes
// nothing; a failure gives the number back.
func TestInvoiceMarkSent(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC) }))
	b.write("PATCH", "settings", map[string]any{"invoice_prefix": "2026-00", "next_invoice_number": 42,
		"invoice_show_ocr": true}).status(t, 200)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	id := b.createInvoice(consulting(customer, map[string]any{"default_dimensions": map[string]any{"6": "P1"}})).status(t, 201).str("data.id")
	r := b.markSent(id).status(t, 200)
	if r.str("data.invoice_number") != "2026-0042" || r.str("data.ocr_reference") != "2026004206" || r.str("data.status") != "sent" ||
		r.at("data.journal_entry_id") == nil || r.at("data.booking_deferred") != false {
		t.Fatalf("issued: %s", r.Body)
	}
	if got := lines(r, "data.verifikat_lines"); got != "D 1510 12500.00, C 3001 10000.00, C 2611 2500.00" {
		t.Fatalf("verifikat: %s", got)
	}
	je := b.get(b.path("journal-entries/"+r.str("data.journal_entry_id")), b.token).status(t, 200)
	if je.str("data.status") != "posted" || je.str("data.source_type") != "invoice_created" || je.str("data.entry_date") != "2026-03-01" ||
		lines(je, "data.lines") != "D 1510 12500.00, C 3001 10000.00, C 2611 2500.00" {
		t.Fatalf("the verifikat: %s", je.Body)
	}
	g := b.get(b.path("invoices/"+id), b.token).status(t, 200)
	if g.str("data.status") != "sent" || g.str("data.invoice_number") != "2026-0042" || g.str("data.journal_entry_id") != r.str("data.journal_entry_id") {
		t.Fatalf("read back: %s", g.Body)
	}
	if e := b.markSent(id).errorCode(t, 409, "INVOICE_ALREADY_SENT"); e.str("error.details.current_status") != "sent" {
		t.Fatalf("again: %s", e.Body)
	}
	if n := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'invoice.sent'`, b.company); n != 1 {
		t.Errorf("%d invoice.sent events", n)
	}

	// A dry run shows the lines and changes nothing.
	next := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	dry := b.do(req{Method: "POST", Path: b.path("invoices/" + next + "/mark-sent?dry_run=true"), Token: b.token,
		Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if dry.at("data.preview.journal_entry_id") != nil || lines(dry, "data.preview.verifikat_lines") != "D 1510 12500.00, C 3001 10000.00, C 2611 2500.00" {
		t.Fatalf("dry run: %s", dry.Body)
	}
	if g := b.get(b.path("invoices/"+next), b.token).status(t, 200); g.str("data.status") != "draft" {
		t.Fatalf("after a dry run: %s", g.Body)
	}
	// No fiscal year for the date: refused, and the number is not used.
	late := b.createInvoice(consulting(customer, map[string]any{"invoice_date": "2031-01-10"})).status(t, 201).str("data.id")
	b.markSent(late).errorCode(t, 400, "INVOICE_BOOK_NO_FISCAL_PERIOD")
	if r := b.markSent(next).status(t, 200); r.str("data.invoice_number") != "2026-0043" {
		t.Fatalf("the next number: %s", r.Body)
	}
	// The settings may move the next number on, never back.
	if e := b.write("PATCH", "settings", map[string]any{"next_invoice_number": 43}).errorCode(t, 400, "VALIDATION_ERROR"); !strings.Contains(strings.Join(e.issueFields(), " "), "next_invoice_number") {
		t.Fatalf("lowered: %s", e.Body)
	}
	b.write("PATCH", "settings", map[string]any{"next_invoice_number": 100}).status(t, 200)
	// Quotes and delivery notes are never issued.
	quote := b.createInvoice(consulting(customer, map[string]any{"document_type": "quote", "valid_until": "2026-03-31"})).status(t, 201).str("data.id")
	b.markSent(quote).errorCode(t, 400, "VALIDATION_ERROR")
	note := b.createInvoice(consulting(customer, map[string]any{"document_type": "delivery_note"})).status(t, 201).str("data.id")
	b.markSent(note).errorCode(t, 400, "VALIDATION_ERROR")
	b.markSent(uuid.NewString()).errorCode(t, 404, "INVOICE_NOT_FOUND")
}

// 1 000 EUR of services to a VIES-validated German business at 11.50:
// 11 500 on 1510 (carrying the euros) and on 3308. Without a rate the
// draft is not issued.
func TestInvoiceMarkSentForeign(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	eu := b.euBuyer()
	eur := func(more map[string]any) map[string]any {
		return consulting(eu, mergeMaps(map[string]any{"currency": "EUR", "items": []any{map[string]any{"description": "Rådgivning",
			"quantity": 1, "unit": "st", "unit_price": 1000}}}, more))
	}
	bare := b.createInvoice(eur(nil)).status(t, 201).str("data.id")
	b.markSent(bare).errorCode(t, 400, "INVOICE_FX_RATE_MISSING")
	id := b.createInvoice(eur(map[string]any{"exchange_rate": 11.5})).status(t, 201).str("data.id")
	r := b.markSent(id).status(t, 200)
	if got := lines(r, "data.verifikat_lines"); got != "D 1510 11500.00, C 3308 11500.00" {
		t.Fatalf("verifikat: %s", got)
	}
	je := b.get(b.path("journal-entries/"+r.str("data.journal_entry_id")), b.token).status(t, 200)
	l := je.list("data.lines")[0].(map[string]any)
	if l["currency"] != "EUR" || l["amount_in_currency"] != 1000.0 || l["exchange_rate"] != 11.5 {
		t.Fatalf("1510 in euros: %v", l)
	}
}

func mergeMaps(a, b map[string]any) map[string]any {
	for k, v := range b {
		a[k] = v
	}
	return a
}

// Kontantmetoden books nothing at issue; the number is taken all the
// same, without an OCR reference unless the settings show one.
func TestInvoiceMarkSentCashMethod(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	b.write("PATCH", "settings/tax-profile", map[string]any{"accounting_method": "cash"}).status(t, 200)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	id := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	r := b.markSent(id).status(t, 200)
	if r.str("data.invoice_number") != "1" || r.at("data.journal_entry_id") != nil || len(r.list("data.verifikat_lines")) != 0 ||
		r.at("data.ocr_reference") != nil {
		t.Fatalf("cash method: %s", r.Body)
	}
}

// meta.coverage: the register answers from the first issued invoice's
// date; receivables booked before it by other means (an opening balance
// on 1510) are history it does not hold.
func TestInvoiceCoverage(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC) }))
	coverage := func() (any, any) {
		r := b.get(b.path("invoices"), b.token).status(t, 200)
		return r.at("meta.coverage.covers_from"), r.at("meta.coverage.has_pre_register_invoices")
	}
	if from, before := coverage(); from != nil || before != false {
		t.Fatalf("empty: %v %v", from, before)
	}
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	b.issued(customer, nil) // dated 2026-03-01
	if from, before := coverage(); from != "2026-03-01" || before != false {
		t.Fatalf("after one invoice: %v %v", from, before)
	}
	period := b.get(b.path("fiscal-periods"), b.token).status(t, 200).str("data.fiscal_periods.0.id")
	je := b.write("POST", "journal-entries", map[string]any{"fiscal_period_id": period, "entry_date": "2026-01-02",
		"description": "Ingående kundfordringar", "lines": []map[string]any{
			{"account_number": "1510", "debit_amount": 4000}, {"account_number": "2099", "credit_amount": 4000}}}).status(t, 201)
	if from, before := coverage(); before != false {
		t.Fatalf("a draft is not booked: %v %v", from, before)
	}
	b.write("POST", "journal-entries/"+je.str("data.id")+"/commit", nil).status(t, 200)
	if from, before := coverage(); from != "2026-03-01" || before != true {
		t.Fatalf("with receivables booked before: %v %v", from, before)
	}
}

// Issued one at a time: fifty drafts issued at once take the numbers 1 to
// 50, each once; eight requests on one draft issue it once, with one
// verifikat.
func TestInvoiceMarkSentConcurrent(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	ids := make([]string, 50)
	for i := range ids {
		ids[i] = b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	}
	numbers := make([]string, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := b.do(req{Method: "POST", Path: b.path("invoices/" + id + "/mark-sent"), Token: b.token,
				Header: map[string]string{"Idempotency-Key": newKey()}})
			if r.Status == 200 {
				numbers[i] = r.str("data.invoice_number")
			}
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, n := range numbers {
		seen[n] = true
	}
	for n := 1; n <= 50; n++ {
		if !seen[strconv.Itoa(n)] {
			t.Errorf("number %d not taken: %v", n, numbers)
		}
	}
	one := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	statuses := make([]int, 8)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = b.do(req{Method: "POST", Path: b.path("invoices/" + one + "/mark-sent"), Token: b.token,
				Header: map[string]string{"Idempotency-Key": newKey()}}).Status
		}()
	}
	wg.Wait()
	ok := 0
	for _, s := range statuses {
		if s == 200 {
			ok++
		} else if s != 409 {
			t.Errorf("status %d", s)
		}
	}
	if ok != 1 {
		t.Fatalf("%d requests issued one draft", ok)
	}
	if n := b.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1 AND source_type = 'invoice_created' AND source_id = $2`,
		b.company, one); n != 1 {
		t.Fatalf("%d verifikat for one invoice", n)
	}
}

// markPaid records a payment of invoice id.
func (b *partiesBooks) markPaid(id string, body map[string]any) *response {
	b.t.Helper()
	return b.write("POST", "invoices/"+id+"/mark-paid", body)
}

// issued creates and issues an invoice for customer, answering its id.
func (b *partiesBooks) issued(customer string, more map[string]any) string {
	b.t.Helper()
	id := b.createInvoice(consulting(customer, more)).status(b.t, 201).str("data.id")
	b.markSent(id).status(b.t, 200)
	return id
}

// A sale of 10 000 + 25 % paid 5 000 and then the 7 500 left: each
// payment settles its part of 1510, a row of its own; the second makes
// it paid and is announced. A likely duplicate waits for force; more than
// is left, or a payment of a draft or a paid invoice, is refused.
func TestInvoiceMarkPaid(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 25, 9, 0, 0, 0, time.UTC) }))
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	id := b.issued(customer, nil)

	dry := b.do(req{Method: "POST", Path: b.path("invoices/" + id + "/mark-paid?dry_run=true"), Token: b.token,
		Body: map[string]any{"amount": 5000}, Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if dry.at("data.preview.payment_id") != nil || lines(dry, "data.preview.verifikat_lines") != "D 1930 5000.00, C 1510 5000.00" {
		t.Fatalf("dry run: %s", dry.Body)
	}
	r := b.markPaid(id, map[string]any{"amount": 5000, "payment_date": "2026-03-20"}).status(t, 200)
	if r.str("data.status") != "partially_paid" || r.at("data.remaining_amount") != 7500.0 || r.at("data.paid_amount") != 5000.0 ||
		lines(r, "data.verifikat_lines") != "D 1930 5000.00, C 1510 5000.00" || r.at("data.journal_entry_id") == nil {
		t.Fatalf("first payment: %s", r.Body)
	}
	// One öre more than is left would be the customer's credit.
	over := b.do(req{Method: "POST", Path: b.path("invoices/" + id + "/mark-paid?dry_run=true"), Token: b.token,
		Body: map[string]any{"amount": 7500.01}, Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if over.at("data.preview.customer_credit.amount") != 0.01 || lines(over, "data.preview.verifikat_lines") != "D 1930 7500.01, C 1510 7500.00, C 2420 0.01" {
		t.Fatalf("an öre over: %s", over.Body)
	}
	r = b.markPaid(id, map[string]any{}).status(t, 200) // what is left, today
	if r.str("data.status") != "paid" || r.at("data.remaining_amount") != 0.0 || r.str("data.paid_at") != "2026-03-25" ||
		lines(r, "data.verifikat_lines") != "D 1930 7500.00, C 1510 7500.00" {
		t.Fatalf("second payment: %s", r.Body)
	}
	b.markPaid(id, map[string]any{"amount": 1}).errorCode(t, 409, "CONFLICT")
	g := b.get(b.path("invoices/"+id+"?expand=payments"), b.token).status(t, 200)
	if ps := g.list("data.payments"); len(ps) != 2 || ps[0].(map[string]any)["amount"] != 5000.0 || ps[1].(map[string]any)["date"] != "2026-03-25" {
		t.Fatalf("payments: %s", g.Body)
	}
	if n := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'invoice.paid'
			AND (payload->>'paymentAmount')::numeric = 7500 AND payload->>'paymentDate' = '2026-03-25'`, b.company); n != 1 {
		t.Errorf("%d invoice.paid events", n)
	}
	if n := b.count(`SELECT coalesce(sum(l.debit_amount - l.credit_amount), 0)::int FROM journal_lines l
			JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.journal_entry_id
			WHERE l.company_id = $1 AND l.account_number = '1510' AND e.status = 'posted'`, b.company); n != 0 {
		t.Errorf("1510 stands at %d after the invoice is paid", n)
	}

	// The same amount on the same day looks like the same payment.
	other := b.issued(customer, nil)
	b.markPaid(other, map[string]any{"amount": 1000, "payment_date": "2026-03-20"}).status(t, 200)
	e := b.markPaid(other, map[string]any{"amount": 1000, "payment_date": "2026-03-20"}).errorCode(t, 409, "INVOICE_PAID_LIKELY_DUPLICATE")
	if e.str("error.details.existing_payment_id") == "" {
		t.Fatalf("duplicate: %s", e.Body)
	}
	b.markPaid(other, map[string]any{"amount": 1000, "payment_date": "2026-03-20", "force": true}).status(t, 200)

	draft := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	if e := b.markPaid(draft, map[string]any{}).errorCode(t, 409, "CONFLICT"); e.str("error.details.reason") != "not_payable" {
		t.Fatalf("a draft: %s", e.Body)
	}
	b.markPaid(other, map[string]any{"amount_sek": 100}).errorCode(t, 400, "VALIDATION_ERROR")
}

// Kontantmetoden: nothing at issue; each payment books its share of the
// sale: 5 000 is 4 000 + 1 000, the 7 500 left 6 000 + 1 500.
func TestInvoiceMarkPaidCashMethod(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	b.write("PATCH", "settings/tax-profile", map[string]any{"accounting_method": "cash"}).status(t, 200)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	id := b.issued(customer, nil)
	r := b.markPaid(id, map[string]any{"amount": 5000, "payment_date": "2026-03-20"}).status(t, 200)
	if lines(r, "data.verifikat_lines") != "D 1930 5000.00, C 3001 4000.00, C 2611 1000.00" {
		t.Fatalf("first payment: %s", r.Body)
	}
	je := b.get(b.path("journal-entries/"+r.str("data.journal_entry_id")), b.token).status(t, 200)
	if je.str("data.source_type") != "invoice_cash_payment" || je.str("data.entry_date") != "2026-03-20" {
		t.Fatalf("its verifikat: %s", je.Body)
	}
	r = b.markPaid(id, map[string]any{"payment_date": "2026-03-28"}).status(t, 200)
	if lines(r, "data.verifikat_lines") != "D 1930 7500.00, C 3001 6000.00, C 2611 1500.00" || r.str("data.status") != "paid" {
		t.Fatalf("second payment: %s", r.Body)
	}
}

// 1 000 EUR of services booked at 11.50: paid at 11.30 it is 200.00 short,
// an exchange loss; at 11.80 300.00 over, a gain.
func TestInvoiceMarkPaidForeign(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	eu := b.euBuyer()
	eur := consulting(eu, map[string]any{"currency": "EUR", "exchange_rate": 11.5, "items": []any{map[string]any{
		"description": "Rådgivning", "quantity": 1, "unit": "st", "unit_price": 1000}}})
	short := b.createInvoice(eur).status(t, 201).str("data.id")
	b.markSent(short).status(t, 200)
	b.markPaid(short, map[string]any{"payment_date": "2026-03-20"}).errorCode(t, 400, "MATCH_INVOICE_BOOKING_RATE_MISSING")
	r := b.markPaid(short, map[string]any{"payment_date": "2026-03-20", "exchange_rate": 11.3}).status(t, 200)
	if got := lines(r, "data.verifikat_lines"); got != "D 1930 11300.00, C 1510 11500.00, D 7960 200.00" {
		t.Fatalf("paid at 11.30: %s", got)
	}
	over := b.createInvoice(eur).status(t, 201).str("data.id")
	b.markSent(over).status(t, 200)
	r = b.markPaid(over, map[string]any{"payment_date": "2026-03-20", "amount_sek": 11800}).status(t, 200)
	if got := lines(r, "data.verifikat_lines"); got != "D 1930 11800.00, C 1510 11500.00, C 3960 300.00" {
		t.Fatalf("paid at 11.80: %s", got)
	}
}

// With defer_invoice_booking, issuing books nothing; the payment books
// the sale first, then itself.
func TestInvoiceMarkPaidDeferred(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	b.write("PATCH", "settings/tax-profile", map[string]any{"defer_invoice_booking": true}).status(t, 200)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	id := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	s := b.markSent(id).status(t, 200)
	if s.at("data.booking_deferred") != true || s.at("data.journal_entry_id") != nil {
		t.Fatalf("deferred: %s", s.Body)
	}
	r := b.markPaid(id, map[string]any{"payment_date": "2026-03-20"}).status(t, 200)
	if lines(r, "data.verifikat_lines") != "D 1930 12500.00, C 1510 12500.00" {
		t.Fatalf("payment: %s", r.Body)
	}
	g := b.get(b.path("invoices/"+id), b.token).status(t, 200)
	sale := g.str("data.journal_entry_id")
	if sale == "" || sale == r.str("data.journal_entry_id") {
		t.Fatalf("the sale's verifikat: %s", g.Body)
	}
	if je := b.get(b.path("journal-entries/"+sale), b.token).status(t, 200); je.str("data.source_type") != "invoice_created" ||
		je.str("data.entry_date") != "2026-03-01" {
		t.Fatalf("booked at payment: %s", je.Body)
	}
}

// An unnumbered draft is deleted with its lines; a numbered one (OF-1) is
// cancelled and keeps its number, the next quote taking OF-2; an issued
// invoice is not deleted.
func TestInvoiceDelete(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC) }))
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	draft := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	dry := b.do(req{Method: "DELETE", Path: b.path("invoices/" + draft + "?dry_run=true"), Token: b.token,
		Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if dry.at("data.preview.deleted") != true {
		t.Fatalf("dry run: %s", dry.Body)
	}
	b.get(b.path("invoices/"+draft), b.token).status(t, 200)
	if r := b.write("DELETE", "invoices/"+draft, nil).status(t, 200); r.at("data.deleted") != true || r.at("data.cancelled") != false {
		t.Fatalf("deleted: %s", r.Body)
	}
	b.get(b.path("invoices/"+draft), b.token).errorCode(t, 404, "INVOICE_NOT_FOUND")
	b.write("DELETE", "invoices/"+draft, nil).errorCode(t, 404, "INVOICE_NOT_FOUND")
	if n := b.count(`SELECT count(*) FROM invoice_items WHERE company_id = $1 AND invoice_id = $2`, b.company, draft); n != 0 {
		t.Fatalf("%d lines left", n)
	}

	quote := func() map[string]any {
		return consulting(customer, map[string]any{"document_type": "quote", "valid_until": "2026-03-31"})
	}
	first := b.createInvoice(quote()).status(t, 201).str("data.id")
	r := b.write("DELETE", "invoices/"+first, nil).status(t, 200)
	if r.at("data.cancelled") != true || r.str("data.invoice_number") != "OF-1" {
		t.Fatalf("cancelled: %s", r.Body)
	}
	if g := b.get(b.path("invoices/"+first), b.token).status(t, 200); g.str("data.status") != "cancelled" || g.str("data.invoice_number") != "OF-1" {
		t.Fatalf("the cancelled quote: %s", g.Body)
	}
	if r := b.createInvoice(quote()).status(t, 201); r.str("data.invoice_number") != "OF-2" {
		t.Fatalf("the next quote: %s", r.Body)
	}
	if e := b.write("DELETE", "invoices/"+first, nil).errorCode(t, 409, "INVOICE_DELETE_NOT_DRAFT"); e.str("error.details.current_status") != "cancelled" {
		t.Fatalf("again: %s", e.Body)
	}
	sent := b.issued(customer, nil)
	b.write("DELETE", "invoices/"+sent, nil).errorCode(t, 409, "INVOICE_DELETE_NOT_DRAFT")
	if n := b.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND table_name = 'invoices' AND action = 'DELETE'`, b.company); n != 1 {
		t.Fatalf("%d deletions audited", n)
	}
}

// The customer's decision on a quote: accepted (timed), taken back (open),
// its validity moved with its due date; expired is derived from the
// clock; an invoice or a cancelled quote takes no decision.
func TestQuoteStatus(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC)
	b := newPartiesBooks(t, clock(func() time.Time { return now }))
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	quote := b.createInvoice(consulting(customer, map[string]any{"document_type": "quote", "valid_until": "2026-03-15"})).status(t, 201).str("data.id")
	decide := func(id string, body map[string]any) *response {
		t.Helper()
		return b.write("POST", "invoices/"+id+"/quote-status", body)
	}
	r := decide(quote, map[string]any{"status": "accepted"}).status(t, 200)
	if r.str("data.quote_status") != "accepted" || r.str("data.effective_quote_status") != "accepted" ||
		r.str("data.quote_decided_at") != "2026-03-05T09:00:00Z" || r.str("data.invoice_number") != "OF-1" {
		t.Fatalf("accepted: %s", r.Body)
	}
	if l := b.get(b.path("invoices?quote_status=accepted"), b.token).status(t, 200); len(l.list("data")) != 1 {
		t.Fatalf("accepted quotes: %s", l.Body)
	}
	r = decide(quote, map[string]any{"status": "open", "valid_until": "2026-03-20"}).status(t, 200)
	if r.at("data.quote_decided_at") != nil || r.str("data.valid_until") != "2026-03-20" {
		t.Fatalf("taken back: %s", r.Body)
	}
	if g := b.get(b.path("invoices/"+quote), b.token).status(t, 200); g.str("data.due_date") != "2026-03-20" {
		t.Fatalf("the due date follows: %s", g.Body)
	}
	decide(quote, map[string]any{"status": "open", "valid_until": "2026-02-01"}).errorCode(t, 400, "VALIDATION_ERROR")
	decide(quote, map[string]any{"status": "expired"}).errorCode(t, 400, "VALIDATION_ERROR")
	now = time.Date(2026, 3, 21, 9, 0, 0, 0, time.UTC)
	if r := decide(quote, map[string]any{"status": "open"}).status(t, 200); r.str("data.effective_quote_status") != "expired" ||
		r.str("data.quote_status") != "open" {
		t.Fatalf("expired: %s", r.Body)
	}
	invoice := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	decide(invoice, map[string]any{"status": "accepted"}).errorCode(t, 400, "INVOICE_NOT_A_QUOTE")
	b.write("DELETE", "invoices/"+quote, nil).status(t, 200)
	decide(quote, map[string]any{"status": "accepted"}).errorCode(t, 400, "INVOICE_QUOTE_NOT_DECIDABLE")
}
