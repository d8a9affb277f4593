package tests

import (
	"testing"
)

// A supplier invoice's registration corrected (rättelse) and then redated
// names the verifikat that stands each time: a storno of that one leaves
// the invoice reversed, as a storno of the first would have. A customer
// invoice's sale verifikat follows the same way.
func TestInvoicesFollowTheirVerifikat(t *testing.T) {
	t.Parallel()
	b := newBuyerBooks(t)
	r := b.register(b.se, "S-1", nil, map[string]any{"description": "Kontorsmaterial", "amount": 1000}).status(t, 201)
	id, first := r.str("data.id"), r.str("data.registration_journal_entry_id")
	registration := func() string {
		return b.get(b.path(si(id)), b.token).status(t, 200).str("data.registration_journal_entry_id")
	}
	// D 5410 1 000, D 2641 250 / C 2440 1 250, corrected onto 5460.
	fix := b.write("POST", "journal-entries/"+first+"/correct", map[string]any{"lines": []map[string]any{
		{"account_number": "5460", "debit_amount": 1000}, {"account_number": "2641", "debit_amount": 250},
		{"account_number": "2440", "credit_amount": 1250}}}).status(t, 200)
	corrected := fix.str("data.corrected_id")
	if got := registration(); got != corrected || corrected == "" {
		t.Fatalf("after the rättelse the invoice names %s, want %s", got, corrected)
	}
	moved := b.write("POST", "journal-entries/"+corrected+"/redate", map[string]any{"new_entry_date": "2026-03-03"}).status(t, 200)
	redated := moved.str("data.corrected_id")
	if got := registration(); got != redated || redated == corrected {
		t.Fatalf("after the redate the invoice names %s, want %s", got, redated)
	}
	// The database lets the invoice name no other verifikat.
	if _, err := b.db.Exec(`UPDATE supplier_invoices SET registration_journal_entry_id = $3 WHERE company_id = $1 AND id = $2`,
		b.company, id, first); err == nil {
		t.Fatal("the invoice was pointed back at its stornoed verifikat")
	}
	b.write("POST", "journal-entries/"+redated+"/reverse", map[string]any{"allow_deep_chain": true}).status(t, 200)
	if g := b.get(b.path(si(id)), b.token).status(t, 200); g.str("data.status") != "reversed" {
		t.Fatalf("the storno of the standing verifikat: %s", g.Body)
	}
	if got := b.balance("2440"); got != 0 {
		t.Errorf("2440 stands at %d after the storno", got)
	}

	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	sale := b.issued(customer, nil)
	sold := b.get(b.path("invoices/"+sale), b.token).status(t, 200).str("data.journal_entry_id")
	again := b.write("POST", "journal-entries/"+sold+"/redate", map[string]any{"new_entry_date": "2026-03-02"}).status(t, 200).
		str("data.corrected_id")
	if got := b.get(b.path("invoices/"+sale), b.token).status(t, 200).str("data.journal_entry_id"); got != again {
		t.Fatalf("the customer invoice names %s after the redate, want %s", got, again)
	}
}

// A supplier payment stornoed after its invoice's registration was: the
// payment is undone and the invoice stays reversed with nothing paid. The
// books are back where they began: 2440 and 1930 at zero.
func TestSupplierPaymentStornoAfterReversal(t *testing.T) {
	t.Parallel()
	b := newBuyerBooks(t)
	r := b.register(b.se, "S-1", nil, map[string]any{"description": "Kontorsmaterial", "amount": 1000}).status(t, 201)
	id := r.str("data.id")
	paid := b.write("POST", si(id, "mark-paid"), map[string]any{"payment_date": "2026-03-04"}).status(t, 200)
	// The payment: D 2440 1 250 / C 1930 1 250.
	payment := paid.str("data.payment_journal_entry_id")
	b.write("POST", "journal-entries/"+r.str("data.registration_journal_entry_id")+"/reverse", nil).status(t, 200)
	if g := b.get(b.path(si(id)), b.token).status(t, 200); g.str("data.status") != "reversed" || g.at("data.paid_amount") != 1250.0 {
		t.Fatalf("reversed: %s", g.Body)
	}
	// 2440 holds the payment alone: a debit of 1 250.
	if got := b.balance("2440"); got != 1250 {
		t.Fatalf("2440 at %d, want 1250", got)
	}
	b.write("POST", "journal-entries/"+payment+"/reverse", nil).status(t, 200)
	g := b.get(b.path(si(id)+"?expand=payments"), b.token).status(t, 200)
	if g.str("data.status") != "reversed" || g.at("data.paid_amount") != 0.0 || g.at("data.paid_at") != nil ||
		len(g.list("data.payments")) != 2 || g.at("data.payments.1.amount") != -1250.0 {
		t.Fatalf("after the payment's storno: %s", g.Body)
	}
	for _, account := range []string{"2440", "1930", "5410", "2641"} {
		if got := b.balance(account); got != 0 {
			t.Errorf("%s stands at %d, want 0", account, got)
		}
	}
}
