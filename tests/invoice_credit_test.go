package tests

import (
	"fmt"
	"testing"
	"time"
)

// credit credits invoice id whole.
func (b *partiesBooks) credit(id string, body map[string]any) *response {
	b.t.Helper()
	return b.write("POST", "invoices/"+id+"/credit", body)
}

// receivables is what 1510 stands at, in whole kronor.
func (b *partiesBooks) receivables() int {
	b.t.Helper()
	return b.count(`SELECT coalesce(sum(l.debit_amount - l.credit_amount), 0)::int FROM journal_lines l
		JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.journal_entry_id
		WHERE l.company_id = $1 AND l.account_number = '1510' AND e.status = 'posted'`, b.company)
}

// 10 000 + 25 % booked at issue, 5 000 paid, then credited: the credit
// note mirrors the sale (D 3001 10 000, D 2611 2 500 / C 1510 12 500),
// settles the 7 500 that was never paid and leaves the 5 000 paid to be
// paid back, which books D 1510 / C 1930. 1510 ends at 0.
func TestInvoiceCredit(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 25, 9, 0, 0, 0, time.UTC) }))
	b.write("PATCH", "settings", map[string]any{"invoice_prefix": "2026-00", "next_invoice_number": 42,
		"invoice_show_ocr": true}).status(t, 200)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	id := b.issued(customer, nil)
	b.markPaid(id, map[string]any{"amount": 5000, "payment_date": "2026-03-20"}).status(t, 200)

	dry := b.do(req{Method: "POST", Path: b.path("invoices/" + id + "/credit?dry_run=true"), Token: b.token,
		Body: map[string]any{}, Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if dry.at("data.preview.id") != nil || dry.at("data.preview.journal_entry_id") != nil || dry.at("data.preview.would_create_journal_entry") != true ||
		lines(dry, "data.preview.verifikat_lines") != "C 1510 12500.00, D 3001 10000.00, D 2611 2500.00" {
		t.Fatalf("dry run: %s", dry.Body)
	}
	if g := b.get(b.path("invoices/"+id), b.token).status(t, 200); g.str("data.status") != "partially_paid" {
		t.Fatalf("a dry run changed the invoice: %s", g.Body)
	}

	r := b.credit(id, map[string]any{"reason": "Fel pris"}).status(t, 200)
	if r.str("data.invoice_number") != "KR-2026-0042" || r.str("data.credited_invoice_id") != id ||
		r.at("data.total") != -12500.0 || r.at("data.remaining_amount") != -5000.0 || r.str("data.status") != "partially_paid" ||
		r.str("data.ocr_reference") != "92026004215" || lines(r, "data.verifikat_lines") != "C 1510 12500.00, D 3001 10000.00, D 2611 2500.00" {
		t.Fatalf("credit: %s", r.Body)
	}
	note := r.str("data.id")
	je := b.get(b.path("journal-entries/"+r.str("data.journal_entry_id")), b.token).status(t, 200)
	if je.str("data.source_type") != "credit_note" || je.str("data.entry_date") != "2026-03-25" {
		t.Fatalf("its verifikat: %s", je.Body)
	}
	g := b.get(b.path("invoices/"+id), b.token).status(t, 200)
	if g.str("data.status") != "credited" || g.at("data.remaining_amount") != 0.0 || g.at("data.paid_amount") != 5000.0 {
		t.Fatalf("the original: %s", g.Body)
	}
	n := b.get(b.path("invoices/"+note+"?expand=items,payments"), b.token).status(t, 200)
	if n.str("data.credited_invoice_id") != id || n.str("data.notes") != "Fel pris" || n.str("data.invoice_date") != "2026-03-25" ||
		n.at("data.items.0.quantity") != -10.0 || n.at("data.items.0.line_total") != -10000.0 || n.at("data.vat_amount") != -2500.0 {
		t.Fatalf("the credit note: %s", n.Body)
	}
	if ps := n.list("data.payments"); len(ps) != 1 || ps[0].(map[string]any)["source"] != "credit_note" ||
		ps[0].(map[string]any)["amount"] != -7500.0 || ps[0].(map[string]any)["account"] != nil {
		t.Fatalf("the settling of what was never paid: %s", n.Body)
	}
	if got := b.receivables(); got != -5000 {
		t.Fatalf("1510 stands at %d before the refund, not -5 000", got)
	}

	// Credited once; a credit note, and the credited invoice, take no more.
	if e := b.credit(id, map[string]any{}).errorCode(t, 409, "CONFLICT"); e.str("error.details.reason") != "not_creditable" {
		t.Fatalf("credited twice: %s", e.Body)
	}
	b.credit(note, map[string]any{}).errorCode(t, 409, "CONFLICT")
	b.markPaid(id, map[string]any{"amount": 1}).errorCode(t, 409, "CONFLICT")

	b.markPaid(note, map[string]any{"amount": 5000.01}).errorCode(t, 400, "VALIDATION_ERROR")
	p := b.markPaid(note, map[string]any{"payment_date": "2026-03-26"}).status(t, 200)
	if lines(p, "data.verifikat_lines") != "C 1930 5000.00, D 1510 5000.00" || p.str("data.status") != "paid" ||
		p.at("data.remaining_amount") != 0.0 {
		t.Fatalf("refund: %s", p.Body)
	}
	if got := b.receivables(); got != 0 {
		t.Fatalf("1510 stands at %d after the refund", got)
	}
	if c := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'credit_note.created'
			AND payload->'credit_note'->>'id' = $2 AND payload->'credited_invoice'->>'status' = 'credited'`, b.company, note); c != 1 {
		t.Errorf("%d credit_note.created events", c)
	}

	// An unpaid invoice's credit note settles it whole: nothing to pay back.
	unpaid := b.issued(customer, nil)
	u := b.credit(unpaid, map[string]any{}).status(t, 200)
	if u.str("data.status") != "paid" || u.at("data.remaining_amount") != 0.0 || b.receivables() != 0 {
		t.Fatalf("an unpaid invoice credited: %s", u.Body)
	}
	draft := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	b.credit(draft, map[string]any{}).errorCode(t, 409, "CONFLICT")
	b.credit(draft, map[string]any{"reason": ""}).errorCode(t, 400, "VALIDATION_ERROR")
	b.credit(draft, map[string]any{"why": "x"}).errorCode(t, 400, "VALIDATION_ERROR")

	// Today's period locked: the credit note cannot be booked.
	open := b.issued(customer, nil)
	b.write("PATCH", "settings/bookkeeping-lock", map[string]any{"bookkeeping_locked_through": "2026-03-25"}).status(t, 200)
	before := b.count(`SELECT count(*) FROM invoices WHERE company_id = $1`, b.company)
	b.credit(open, map[string]any{}).errorCode(t, 400, "INVOICE_CREDIT_PERIOD_LOCKED")
	if after := b.count(`SELECT count(*) FROM invoices WHERE company_id = $1`, b.company); after != before {
		t.Fatalf("a refused credit left a credit note behind")
	}
}

// Kontantmetoden: only what the payments booked is taken back (#1430):
// 5 000 paid was 4 000 + 1 000, so D 3001 4 000, D 2611 1 000 / C 1510
// 5 000, paid back from 1930. Nothing paid: nothing booked.
func TestInvoiceCreditCashMethod(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 25, 9, 0, 0, 0, time.UTC) }))
	b.write("PATCH", "settings/tax-profile", map[string]any{"accounting_method": "cash"}).status(t, 200)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	id := b.issued(customer, nil)
	b.markPaid(id, map[string]any{"amount": 5000, "payment_date": "2026-03-20"}).status(t, 200)
	r := b.credit(id, map[string]any{}).status(t, 200)
	if lines(r, "data.verifikat_lines") != "D 3001 4000.00, D 2611 1000.00, C 1510 5000.00" || r.at("data.remaining_amount") != -5000.0 {
		t.Fatalf("credit: %s", r.Body)
	}
	p := b.markPaid(r.str("data.id"), map[string]any{}).status(t, 200)
	if lines(p, "data.verifikat_lines") != "C 1930 5000.00, D 1510 5000.00" || b.receivables() != 0 {
		t.Fatalf("refund: %s", p.Body)
	}
	unpaid := b.issued(customer, nil)
	u := b.credit(unpaid, map[string]any{}).status(t, 200)
	if u.at("data.would_create_journal_entry") != false || u.at("data.journal_entry_id") != nil || u.str("data.status") != "paid" {
		t.Fatalf("an unpaid invoice under kontantmetoden: %s", u.Body)
	}
}

// 1 000 EUR booked at 11.50, paid (at 11.30), then credited: the credit
// takes the sale back at 11.50, leaving the customer's 1 000 EUR owed back
// as 11 500 on 1510; paid back at 11.80, 300 more kronor leave than were
// booked, a loss on 7960.
func TestInvoiceCreditForeign(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 25, 9, 0, 0, 0, time.UTC) }))
	eu := b.euBuyer()
	id := b.createInvoice(consulting(eu, map[string]any{"currency": "EUR", "exchange_rate": 11.5, "items": []any{map[string]any{
		"description": "Rådgivning", "quantity": 1, "unit": "st", "unit_price": 1000}}})).status(t, 201).str("data.id")
	b.markSent(id).status(t, 200)
	b.markPaid(id, map[string]any{"payment_date": "2026-03-20", "exchange_rate": 11.3}).status(t, 200)
	r := b.credit(id, map[string]any{}).status(t, 200)
	if lines(r, "data.verifikat_lines") != "C 1510 11500.00, D 3308 11500.00" || r.at("data.remaining_amount") != -1000.0 {
		t.Fatalf("credit: %s", r.Body)
	}
	p := b.markPaid(r.str("data.id"), map[string]any{"exchange_rate": 11.8}).status(t, 200)
	if lines(p, "data.verifikat_lines") != "C 1930 11800.00, D 1510 11500.00, D 7960 300.00" || b.receivables() != 0 {
		t.Fatalf("refund: %s", p.Body)
	}
}

// A credit note dated in the quarter of its invoice: 10 000 + 25 % and
// 4 000 + 25 % sold in March, the first credited on 31 March while the
// clock says 10 May. Q1's boxes are then 05 4 000, 10 1 000, 49 1 000
// (not 14 000 / 3 500 with the credit in Q2), Q2's all 0, and the
// customer ledger holds 12 500 on 10 March, 17 500 on 20 March, 5 000
// from 31 March. A date before the invoice, after today or on or before
// the lock date is refused and changes nothing.
func TestInvoiceCreditDated(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 5, 10, 9, 0, 0, 0, time.UTC) }))
	b.vatQuarterly()
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	first := b.issued(customer, map[string]any{"invoice_date": "2026-03-10", "due_date": "2026-04-09"})
	b.issued(customer, map[string]any{"invoice_date": "2026-03-20", "due_date": "2026-04-19", "items": []any{
		map[string]any{"description": "Konsulttimmar", "quantity": 4, "unit": "tim", "unit_price": 1000}}})

	for day, rule := range map[string]string{"2026-03-09": "not_before_invoice_date", "2026-05-11": "not_after_today"} {
		r := b.credit(first, map[string]any{"credit_date": day}).errorCode(t, 400, "VALIDATION_ERROR")
		if f := fmt.Sprint(r.issueFields()); f != "[body:credit_date:"+rule+"]" {
			t.Errorf("credit_date %s: %s", day, f)
		}
	}
	b.write("PATCH", "settings/bookkeeping-lock", map[string]any{"bookkeeping_locked_through": "2026-03-15"}).status(t, 200)
	r := b.credit(first, map[string]any{"credit_date": "2026-03-14"}).errorCode(t, 400, "INVOICE_CREDIT_PERIOD_LOCKED")
	if r.str("error.details.reason") != "company_lock_date" {
		t.Fatalf("locked: %s", r.Body)
	}
	b.write("PATCH", "settings/bookkeeping-lock", map[string]any{"bookkeeping_locked_through": nil}).status(t, 200)
	if g := b.get(b.path("invoices/"+first), b.token).status(t, 200); g.str("data.status") != "overdue" {
		t.Fatalf("a refused credit changed the invoice: %s", g.Body)
	}

	c := b.credit(first, map[string]any{"credit_date": "2026-03-31", "reason": "Fel kund"}).status(t, 200)
	je := b.get(b.path("journal-entries/"+c.str("data.journal_entry_id")), b.token).status(t, 200)
	if je.str("data.entry_date") != "2026-03-31" {
		t.Fatalf("the credit's verifikat: %s", je.Body)
	}
	note := b.get(b.path("invoices/"+c.str("data.id")), b.token).status(t, 200)
	if note.str("data.invoice_date") != "2026-03-31" {
		t.Fatalf("the credit note: %s", note.Body)
	}
	vat := func(q int) map[string]float64 {
		return boxes(b.get(b.path("reports/vat-declaration?period_type=quarterly&year=2026&period="+string(rune('0'+q))), b.token).
			status(t, 200), "data.rutor")
	}
	wantBoxes(t, "Q1", vat(1), allBoxes(map[string]float64{"05": 4000, "10": 1000, "49": 1000}))
	wantBoxes(t, "Q2", vat(2), allBoxes(nil))
	for day, want := range map[string]float64{"2026-03-09": 0, "2026-03-10": 12500, "2026-03-20": 17500, "2026-03-31": 5000,
		"2026-05-10": 5000} {
		ar := b.get(b.path("reports/ar-ledger?as_of_date="+day), b.token).status(t, 200)
		if ar.at("data.reconciliation.ledger_balance") != want || ar.at("data.reconciliation.difference") != 0.0 {
			t.Errorf("the customer ledger on %s: %s", day, ar.Body)
		}
	}
}
