package tests

import (
	"testing"
	"time"
)

// Three outlays paid back in one payout. Anna, an employee, paid a train
// ticket of 1 120 kr with 120 kr VAT (D 5810 1 000, D 2641 120 / C 2820
// 1 120) and a hotel night of 100 EUR at 11.4523 (1 145.23 kr, no Swedish
// VAT: D 5800 1 145.23 / C 2820 1 145.23); the owner paid 250 kr of
// office goods with 50 kr VAT (D 6110 200, D 2641 50 / C 2893 250). The
// payout on 25 March from 1930 is D 2820 2 265.23, D 2893 250 / C 1930
// 2 515.23, and leaves 2820 and 2893 at zero. A paid claim is neither paid
// again nor deleted, and the database refuses to change it; a storno of
// the payout makes the claims owed again.
func TestExpenseClaimsPaidOutTogether(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 26, 9, 0, 0, 0, time.UTC) }))
	b.vatQuarterly()
	anna := b.write("POST", "employees", annaBody()).status(t, 201).str("data.id")
	train := map[string]any{"description": "Tågbiljett Stockholm–Göteborg", "expense_date": "2026-03-10", "amount": 1120,
		"vat_amount": 120, "expense_account": "5810", "employee_id": anna}

	dry := b.do(req{Method: "POST", Path: b.path("expense-claims?dry_run=true"), Token: b.token, Body: train,
		Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if dry.at("data.dry_run") != true || dry.str("data.preview.liability_account") != "2820" ||
		dry.str("data.preview.claimant_name") != "Anna Lindqvist" {
		t.Fatalf("dry run: %s", dry.Body)
	}
	if n := b.count(`SELECT count(*) FROM expense_claims WHERE company_id = $1`, b.company); n != 0 {
		t.Fatalf("a dry run stored %d", n)
	}
	key := newKey()
	first := b.do(req{Method: "POST", Path: b.path("expense-claims"), Token: b.token, Body: train,
		Header: map[string]string{"Idempotency-Key": key}}).status(t, 201)
	again := b.do(req{Method: "POST", Path: b.path("expense-claims"), Token: b.token, Body: train,
		Header: map[string]string{"Idempotency-Key": key}}).status(t, 201)
	if again.str("data.expense_claim_id") != first.str("data.expense_claim_id") {
		t.Fatalf("the retry: %s", again.Body)
	}
	if got := verifikat(b, first.str("data.journal_entry_id")); got != "D 5810 1000.00, D 2641 120.00, C 2820 1120.00" {
		t.Fatalf("the train ticket's verifikat: %s", got)
	}

	hotel := b.write("POST", "expense-claims", map[string]any{"description": "Hotell Berlin", "expense_date": "2026-03-12",
		"amount": 100, "currency": "EUR", "exchange_rate": 11.4523, "expense_account": "5800", "employee_id": anna}).status(t, 201)
	if hotel.at("data.amount_sek") != 1145.23 || hotel.at("data.vat_sek") != 0.0 || hotel.at("data.amount_in_currency") != 100.0 ||
		hotel.at("data.exchange_rate") != 11.4523 {
		t.Fatalf("the hotel: %s", hotel.Body)
	}
	if got := verifikat(b, hotel.str("data.journal_entry_id")); got != "D 5800 1145.23, C 2820 1145.23" {
		t.Fatalf("the hotel's verifikat: %s", got)
	}
	// Foreign VAT is no Swedish input VAT; a rate must be known.
	r := b.write("POST", "expense-claims", map[string]any{"description": "Middag", "expense_date": "2026-03-12", "amount": 50,
		"vat_amount": 8, "currency": "EUR", "exchange_rate": 11.45, "expense_account": "5800", "employee_id": anna}).
		errorCode(t, 400, "VALIDATION_ERROR")
	if !names(r, "vat_amount", "") {
		t.Fatalf("foreign VAT: %s", r.Body)
	}
	b.write("POST", "expense-claims", map[string]any{"description": "Middag", "expense_date": "2026-03-12", "amount": 50,
		"currency": "EUR", "expense_account": "5800", "employee_id": anna}).errorCode(t, 400, "EXPENSE_CLAIM_FX_RATE_MISSING")
	b.write("POST", "expense-claims", map[string]any{"description": "Ingen", "expense_date": "2026-03-12", "amount": 50,
		"expense_account": "5800"}).errorCode(t, 400, "VALIDATION_ERROR")
	b.write("POST", "expense-claims", map[string]any{"description": "Förra året", "expense_date": "2025-03-12", "amount": 50,
		"expense_account": "5800", "claimant_name": "Lisa Berg"}).errorCode(t, 400, "EXPENSE_CLAIM_NO_FISCAL_PERIOD")

	office := b.write("POST", "expense-claims", map[string]any{"description": "Kontorsmaterial", "expense_date": "2026-03-14",
		"amount": 250, "vat_amount": 50, "expense_account": "6110", "claimant_name": "Lisa Berg"}).status(t, 201)
	if office.str("data.liability_account") != "2893" || office.at("data.employee_id") != nil {
		t.Fatalf("the owner's: %s", office.Body)
	}
	ids := []any{first.str("data.expense_claim_id"), hotel.str("data.expense_claim_id"), office.str("data.expense_claim_id")}

	payout := b.write("POST", "expense-claims/payouts", map[string]any{"claim_ids": ids, "payout_date": "2026-03-25",
		"cash_account": "1930"}).status(t, 201)
	if payout.at("data.total_sek") != 2515.23 || payout.at("data.claim_count") != 3.0 {
		t.Fatalf("payout: %s", payout.Body)
	}
	if got := verifikat(b, payout.str("data.journal_entry_id")); got != "D 2820 2265.23, D 2893 250.00, C 1930 2515.23" {
		t.Fatalf("the payout's verifikat: %s", got)
	}
	for _, account := range []string{"2820", "2893"} {
		if n := b.count(`SELECT count(*) FROM (SELECT sum(debit_amount - credit_amount) AS s FROM journal_lines
			WHERE company_id = $1 AND account_number = $2) x WHERE s = 0`, b.company, account); n != 1 {
			t.Errorf("%s is not at zero after the payout", account)
		}
	}
	l := b.get(b.path("expense-claims?status=paid"), b.token).status(t, 200)
	if len(l.list("data.expense_claims")) != 3 || l.str("data.expense_claims.0.payout_batch_id") != payout.str("data.batch_id") {
		t.Fatalf("paid: %s", l.Body)
	}

	// Paid: not paid again, not deleted, not changed.
	if r := b.write("POST", "expense-claims/payouts", map[string]any{"claim_ids": ids[1:2], "payout_date": "2026-03-26",
		"cash_account": "1930"}).errorCode(t, 409, "EXPENSE_CLAIM_ALREADY_PAID"); r.str("error.details.expense_claim_id") != ids[1] {
		t.Fatalf("paid twice: %s", r.Body)
	}
	b.write("DELETE", "expense-claims/"+ids[0].(string), nil).errorCode(t, 409, "EXPENSE_CLAIM_ALREADY_PAID")
	refusedByTheBooks(t, b.db, "a paid claim changed", `UPDATE expense_claims SET amount_sek = 1 WHERE company_id = $1`, b.company)
	refusedByTheBooks(t, b.db, "a paid claim made registered", `UPDATE expense_claims SET status = 'registered', payout_id = NULL,
		paid_at = NULL WHERE company_id = $1`, b.company)
	refusedByTheBooks(t, b.db, "a claim removed", `DELETE FROM expense_claims WHERE company_id = $1`, b.company)
	refusedByTheBooks(t, b.db, "a payout changed", `UPDATE expense_payouts SET total_sek = 1 WHERE company_id = $1`, b.company)

	// The payout's storno makes them owed again.
	b.write("POST", "journal-entries/"+payout.str("data.journal_entry_id")+"/reverse", map[string]any{}).status(t, 200)
	if l := b.get(b.path("expense-claims?status=registered"), b.token).status(t, 200); len(l.list("data.expense_claims")) != 3 {
		t.Fatalf("after the payout's storno: %s", l.Body)
	}
}

// A claim registered by mistake is deleted: its verifikat stornoed today,
// the claim kept as deleted and out of the list; it is not paid. A key
// without suppliers:write reads but does not register.
func TestExpenseClaimDeleted(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 26, 9, 0, 0, 0, time.UTC) }))
	b.vatQuarterly()
	c := b.write("POST", "expense-claims", map[string]any{"description": "Parkering", "expense_date": "2026-03-20",
		"amount": 80, "vat_amount": 16, "expense_account": "5611", "claimant_name": "Lisa Berg"}).status(t, 201)
	id := c.str("data.expense_claim_id")
	dry := b.write("DELETE", "expense-claims/"+id+"?dry_run=true", nil).status(t, 200)
	if dry.at("data.dry_run") != true || b.get(b.path("expense-claims/"+id), b.token).status(t, 200).str("data.status") != "registered" {
		t.Fatalf("a dry delete: %s", dry.Body)
	}
	d := b.write("DELETE", "expense-claims/"+id, nil).status(t, 200)
	if d.at("data.deleted") != true || d.str("data.reversal_entry_id") == "" {
		t.Fatalf("deleted: %s", d.Body)
	}
	if got := verifikat(b, d.str("data.reversal_entry_id")); got != "C 5611 64.00, C 2641 16.00, D 2893 80.00" {
		t.Fatalf("the storno: %s", got)
	}
	g := b.get(b.path("expense-claims/"+id), b.token).status(t, 200)
	if g.str("data.status") != "deleted" || g.str("data.reversal_entry_id") != d.str("data.reversal_entry_id") {
		t.Fatalf("read back: %s", g.Body)
	}
	if l := b.get(b.path("expense-claims"), b.token).status(t, 200); len(l.list("data.expense_claims")) != 0 {
		t.Fatalf("a deleted claim listed: %s", l.Body)
	}
	b.write("POST", "expense-claims/payouts", map[string]any{"claim_ids": []any{id}, "payout_date": "2026-03-26",
		"cash_account": "1930"}).errorCode(t, 409, "EXPENSE_CLAIM_DELETED")
	b.write("DELETE", "expense-claims/"+id, nil).errorCode(t, 409, "EXPENSE_CLAIM_DELETED")

	reader := b.key("kund@example.se", keySpec{scopes: []string{"suppliers:read"}})
	b.get(b.path("expense-claims"), reader).status(t, 200)
	b.do(req{Method: "POST", Path: b.path("expense-claims"), Token: reader, Body: map[string]any{"description": "X",
		"expense_date": "2026-03-20", "amount": 1, "expense_account": "5611", "claimant_name": "X"},
		Header: map[string]string{"Idempotency-Key": newKey()}}).errorCode(t, 403, "INSUFFICIENT_SCOPE")
}

// verifikat is a verifikat's lines as lines() writes them.
func verifikat(b *partiesBooks, id string) string {
	b.t.Helper()
	return lines(b.get(b.path("journal-entries/"+id), b.token).status(b.t, 200), "data.lines")
}
