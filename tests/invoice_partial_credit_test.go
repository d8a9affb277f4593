package tests

import (
	"fmt"
	"testing"
	"time"
)

// An invoice of 10 hours at 1 000 (25 %) and 2 books at 500 (6 %), 12 500
// + 1 060 = 13 560, booked at issue in March. In April 4 hours are
// credited, dated 31 March: the credit note of 4 000 + 1 000 takes them
// back from 1510 in Q1 (05 falls from 11 000 to 7 000, 10 from 2 500 to
// 1 500), and the invoice has 8 560 left. A second credit of 300 off the
// books (6 %: 318) leaves 8 242, and one of what is left is refused as
// a third, of what is left once 8 000 is paid, settles the 242 owed and
// leaves 8 000 to refund. Quantities past what is left, an unknown line,
// and a line named twice are refused and change nothing.
func TestInvoicePartialCredit(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 4, 10, 9, 0, 0, 0, time.UTC) }))
	b.vatQuarterly()
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	id := b.issued(customer, map[string]any{"invoice_date": "2026-03-10", "due_date": "2026-04-30", "items": []any{
		map[string]any{"description": "Konsulttimmar", "quantity": 10, "unit": "tim", "unit_price": 1000},
		map[string]any{"description": "Böcker", "quantity": 2, "unit": "st", "unit_price": 500, "vat_rate": 0.06}}})
	inv := b.get(b.path("invoices/"+id+"?expand=items"), b.token).status(t, 200)
	hours, books := inv.str("data.items.0.id"), inv.str("data.items.1.id")
	total := 10000 + 2500 + 1000 + 60.0 // 25 % of 10 000, 6 % of 1 000
	if inv.at("data.total") != total {
		t.Fatalf("the invoice: %s", inv.Body)
	}
	for _, c := range []struct {
		lines []any
		field string
	}{
		{[]any{map[string]any{"item_id": hours, "quantity": 11}}, "lines.0.quantity"},
		{[]any{map[string]any{"item_id": books, "amount": 1000.01}}, "lines.0.amount"},
		{[]any{map[string]any{"item_id": newKey()}}, "lines.0.item_id"},
		{[]any{map[string]any{"item_id": hours}, map[string]any{"item_id": hours, "quantity": 1}}, "lines.1.item_id"},
		{[]any{map[string]any{"item_id": hours, "quantity": 1, "amount": 10}}, "lines.0"},
	} {
		r := b.credit(id, map[string]any{"lines": c.lines}).errorCode(t, 400, "VALIDATION_ERROR")
		if !containsField(r, c.field) {
			t.Errorf("%v: %s", c.lines, r.Body)
		}
	}
	if n := b.count(`SELECT count(*) FROM invoices WHERE company_id = $1 AND credited_invoice_id IS NOT NULL`, b.company); n != 0 {
		t.Fatal("a refused credit wrote a credit note")
	}

	first := b.credit(id, map[string]any{"credit_date": "2026-03-31", "lines": []any{
		map[string]any{"item_id": hours, "quantity": 4}}}).status(t, 200)
	if first.str("data.invoice_number") != "KR-1" || first.at("data.total") != -5000.0 ||
		first.at("data.remaining_amount") != 0.0 || first.str("data.status") != "paid" {
		t.Fatalf("first credit: %s", first.Body)
	}
	if got := lines(first, "data.verifikat_lines"); got != "C 1510 5000.00, D 3001 4000.00, D 2611 1000.00" {
		t.Fatalf("first credit's verifikat: %s", got)
	}
	note := b.get(b.path("invoices/"+first.str("data.id")+"?expand=items"), b.token).status(t, 200)
	if note.str("data.items.0.credited_item_id") != hours || note.at("data.items.0.quantity") != -4.0 ||
		len(note.list("data.items")) != 1 || note.str("data.invoice_date") != "2026-03-31" {
		t.Fatalf("the credit note: %s", note.Body)
	}
	orig := b.get(b.path("invoices/"+id), b.token).status(t, 200)
	if orig.at("data.remaining_amount") != total-5000 || orig.str("data.status") != "partially_paid" {
		t.Fatalf("the original after the first credit: %s", orig.Body)
	}
	vat := func(q int) map[string]float64 {
		return boxes(b.get(b.path(fmt.Sprintf("reports/vat-declaration?period_type=quarterly&year=2026&period=%d", q)),
			b.token).status(t, 200), "data.rutor")
	}
	// Q1: 6 000 at 25 % (VAT 1 500) and 1 000 at 6 % (60): 05 7 000,
	// 10 1 500, 12 60, 49 1 560.
	wantBoxes(t, "Q1", vat(1), allBoxes(map[string]float64{"05": 7000, "10": 1500, "12": 60, "49": 1560}))

	second := b.credit(id, map[string]any{"lines": []any{map[string]any{"item_id": books, "amount": 300}}}).status(t, 200)
	if second.str("data.invoice_number") != "KR-1-2" || second.at("data.total") != -318.0 {
		t.Fatalf("second credit: %s", second.Body)
	}
	if got := lines(second, "data.verifikat_lines"); got != "C 1510 318.00, D 3003 300.00, D 2631 18.00" {
		t.Fatalf("second credit's verifikat: %s", got)
	}
	// Q2 (today, 10 April): the books' 300 and 18 back.
	wantBoxes(t, "Q2", vat(2), allBoxes(map[string]float64{"05": -300, "12": -18, "49": -18}))
	b.markPaid(id, map[string]any{"amount": 8000, "payment_date": "2026-04-10"}).status(t, 200)
	// What is left of every line (6 hours, 700 of books: 6 000 + 1 500 +
	// 700 + 42 = 8 242) is credited: it settles the 242 still owed, the
	// invoice is paid, and the 8 000 paid is the customer's, refunded
	// from 1930 by a payment of the credit note.
	rest := b.credit(id, map[string]any{}).status(t, 200)
	if rest.str("data.invoice_number") != "KR-1-3" || rest.at("data.total") != -8242.0 || rest.at("data.remaining_amount") != -8000.0 {
		t.Fatalf("the rest: %s", rest.Body)
	}
	if got := lines(rest, "data.verifikat_lines"); got != "C 1510 8242.00, D 3001 6000.00, D 3003 700.00, D 2611 1500.00, D 2631 42.00" {
		t.Fatalf("the rest's verifikat: %s", got)
	}
	if g := b.get(b.path("invoices/"+id), b.token).status(t, 200); g.str("data.status") != "paid" || g.at("data.remaining_amount") != 0.0 {
		t.Fatalf("the original after the rest: %s", g.Body)
	}
	back := b.markPaid(rest.str("data.id"), map[string]any{"amount": 8000, "payment_date": "2026-04-10"}).status(t, 200)
	if got := lines(back, "data.verifikat_lines"); got != "C 1930 8000.00, D 1510 8000.00" {
		t.Fatalf("the refund: %s", got)
	}
	if b.exact("1510") != "0.00" {
		t.Fatalf("1510: %s", b.exact("1510"))
	}
	b.credit(id, map[string]any{}).errorCode(t, 409, "CONFLICT")
}

// containsField says whether the error names field among its issues or
// in details.field.
func containsField(r *response, field string) bool {
	if r.str("error.details.field") == field {
		return true
	}
	for _, i := range r.list("error.details.issues") {
		if m, _ := i.(map[string]any); m["field"] == field {
			return true
		}
	}
	return false
}

// Under kontantmetoden the same credit of 4 hours books nothing (nothing
// of the sale is in the books) and the payment of the 8 560 left books
// the rest of the sale: 6 000 + 1 500 at 25 %, 1 000 + 60 at 6 %.
func TestInvoicePartialCreditCash(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 4, 10, 9, 0, 0, 0, time.UTC) }))
	b.write("PATCH", "settings/tax-profile", map[string]any{"accounting_method": "cash"}).status(t, 200)
	b.vatQuarterly()
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	id := b.issued(customer, map[string]any{"invoice_date": "2026-04-01", "due_date": "2026-04-30", "items": []any{
		map[string]any{"description": "Konsulttimmar", "quantity": 10, "unit": "tim", "unit_price": 1000},
		map[string]any{"description": "Böcker", "quantity": 2, "unit": "st", "unit_price": 500, "vat_rate": 0.06}}})
	hours := b.get(b.path("invoices/"+id+"?expand=items"), b.token).status(t, 200).str("data.items.0.id")
	c := b.credit(id, map[string]any{"lines": []any{map[string]any{"item_id": hours, "quantity": 4}}}).status(t, 200)
	if c.at("data.would_create_journal_entry") != false || c.at("data.total") != -5000.0 {
		t.Fatalf("credit: %s", c.Body)
	}
	p := b.markPaid(id, map[string]any{"amount": 8560}).status(t, 200)
	if got := lines(p, "data.verifikat_lines"); got != "D 1930 8560.00, C 3001 6000.00, C 3003 1000.00, C 2611 1500.00, C 2631 60.00" {
		t.Fatalf("the payment of the rest: %s", got)
	}
	if g := b.get(b.path("invoices/"+id), b.token).status(t, 200); g.str("data.status") != "paid" {
		t.Fatalf("after the payment: %s", g.Body)
	}
	// A paid hour is refunded by crediting the whole invoice: the cash
	// method booked it in proportion to the whole sale.
	r := b.credit(id, map[string]any{"lines": []any{map[string]any{"item_id": hours, "quantity": 1}}}).
		errorCode(t, 409, "INVOICE_CREDIT_EXCEEDS_REMAINING")
	if r.str("error.details.reason") != "cash_method" {
		t.Fatalf("refund of a paid part: %s", r.Body)
	}
}
