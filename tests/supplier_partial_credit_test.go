package tests

import (
	"testing"
	"time"
)

// A supplier invoice of 10 000 on 5410 and 4 000 on 6110, both 25 %:
// 17 500. The supplier credits 2 000 of the first line (VAT 500): D 2440
// 2 500 / C 5410 2 000, C 2641 500, and 15 000 is left to pay. A credit
// of what is left of every line (8 000 + 4 000 and their 3 000 VAT) then
// settles the rest: the invoice is paid, and nothing is left to credit.
func TestSupplierPartialCredit(t *testing.T) {
	t.Parallel()
	b := newBuyerBooks(t)
	r := b.register(b.se, "F-500", nil, map[string]any{"description": "Papper", "amount": 10000},
		map[string]any{"description": "Hyra av maskin", "amount": 4000, "account_number": "6110"}).status(t, 201)
	id, paper := r.str("data.id"), r.str("data.items.0.id")
	credit := func(body map[string]any) *response { return b.write("POST", "supplier-invoices/"+id+"/credit", body) }
	credit(map[string]any{"lines": []any{map[string]any{"item_id": paper, "amount": 10000.01}}}).errorCode(t, 400, "VALIDATION_ERROR")
	credit(map[string]any{"amount": 100}).errorCode(t, 400, "SI_CREDIT_PARTIAL")
	c := credit(map[string]any{"lines": []any{map[string]any{"item_id": paper, "amount": 2000}}}).status(t, 200)
	wantLines(t, "partial", c, "data.verifikat_lines", "D 2440 2500.00", "C 5410 2000.00", "C 2641 500.00")
	if c.at("data.total") != -2500.0 || c.str("data.supplier_invoice_number") != "KREDIT F-500" || c.at("data.remaining_amount") != 0.0 {
		t.Fatalf("partial credit: %s", c.Body)
	}
	g := b.get(b.path("supplier-invoices/"+id), b.token).status(t, 200)
	if g.at("data.remaining_amount") != 15000.0 || g.str("data.status") != "partially_paid" {
		t.Fatalf("after the partial credit: %s", g.Body)
	}
	note := b.get(b.path("supplier-invoices/"+c.str("data.credit_note_id")+"?expand=items"), b.token).status(t, 200)
	if note.str("data.items.0.credited_item_id") != paper || note.at("data.items.0.amount") != -2000.0 {
		t.Fatalf("the credit note: %s", note.Body)
	}
	rest := credit(map[string]any{}).status(t, 200)
	wantLines(t, "the rest", rest, "data.verifikat_lines", "D 2440 15000.00", "C 5410 8000.00", "C 6110 4000.00", "C 2641 3000.00")
	if rest.str("data.supplier_invoice_number") != "KREDIT F-500-2" {
		t.Fatalf("the rest: %s", rest.Body)
	}
	if g := b.get(b.path("supplier-invoices/"+id), b.token).status(t, 200); g.at("data.remaining_amount") != 0.0 ||
		g.str("data.status") != "paid" {
		t.Fatalf("after the second credit: %s", g.Body)
	}
	credit(map[string]any{}).errorCode(t, 409, "SI_CREDIT_ALREADY_CREDITED")
	if b.exact("2440") != "0.00" || b.exact("5410") != "0.00" || b.exact("2641") != "0.00" {
		t.Fatalf("2440 %s 5410 %s 2641 %s", b.exact("2440"), b.exact("5410"), b.exact("2641"))
	}
}

// Under kontantmetoden the same partial credit books nothing, and the
// payment of the 15 000 left books the costs left: 8 000 and 4 000 and
// their 3 000 VAT.
func TestSupplierPartialCreditCash(t *testing.T) {
	t.Parallel()
	b := newBuyerBooks(t)
	b.cash()
	r := b.register(b.se, "F-501", nil, map[string]any{"description": "Papper", "amount": 10000},
		map[string]any{"description": "Hyra av maskin", "amount": 4000, "account_number": "6110"}).status(t, 201)
	id, paper := r.str("data.id"), r.str("data.items.0.id")
	c := b.write("POST", "supplier-invoices/"+id+"/credit", map[string]any{"lines": []any{
		map[string]any{"item_id": paper, "amount": 2000}}}).status(t, 200)
	if len(c.list("data.verifikat_lines")) != 0 {
		t.Fatalf("a cash-method credit of what is unpaid booked: %s", c.Body)
	}
	p := b.write("POST", "supplier-invoices/"+id+"/mark-paid", map[string]any{"amount": 15000,
		"payment_date": time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)}).status(t, 200)
	je := b.get(b.path("journal-entries/"+p.str("data.payment_journal_entry_id")), b.token).status(t, 200)
	if got := sortedLines(lines(je, "data.lines")); got != sortedLines("D 5410 8000.00, D 6110 4000.00, D 2641 3000.00, C 1930 15000.00") {
		t.Fatalf("the payment: %s", got)
	}
}

// Paid 16 000 of 17 500, the supplier credits 2 000 of the paper (2 500
// with VAT): 1 500 settles what was still owed, the invoice is paid, and
// the supplier owes 1 000 back, which it pays to 1930.
func TestSupplierPartialCreditOfAPaidPart(t *testing.T) {
	t.Parallel()
	b := newBuyerBooks(t)
	r := b.register(b.se, "F-502", nil, map[string]any{"description": "Papper", "amount": 10000},
		map[string]any{"description": "Hyra av maskin", "amount": 4000, "account_number": "6110"}).status(t, 201)
	id, paper := r.str("data.id"), r.str("data.items.0.id")
	b.write("POST", "supplier-invoices/"+id+"/mark-paid", map[string]any{"amount": 16000}).status(t, 200)
	c := b.write("POST", "supplier-invoices/"+id+"/credit", map[string]any{"lines": []any{
		map[string]any{"item_id": paper, "amount": 2000}}}).status(t, 200)
	wantLines(t, "partial", c, "data.verifikat_lines", "D 2440 2500.00", "C 5410 2000.00", "C 2641 500.00")
	if c.at("data.remaining_amount") != -1000.0 {
		t.Fatalf("the credit note: %s", c.Body)
	}
	if g := b.get(b.path("supplier-invoices/"+id), b.token).status(t, 200); g.str("data.status") != "paid" ||
		g.at("data.remaining_amount") != 0.0 {
		t.Fatalf("the original: %s", g.Body)
	}
	back := b.write("POST", "supplier-invoices/"+c.str("data.credit_note_id")+"/mark-paid", map[string]any{"amount": 1000}).status(t, 200)
	je := b.get(b.path("journal-entries/"+back.str("data.payment_journal_entry_id")), b.token).status(t, 200)
	if got := sortedLines(lines(je, "data.lines")); got != "C 2440 1000.00, D 1930 1000.00" {
		t.Fatalf("the money back: %s", got)
	}
	if b.exact("2440") != "0.00" {
		t.Fatalf("2440: %s", b.exact("2440"))
	}
}
