package tests

import (
	"fmt"
	"net/url"
	"testing"
)

// A year of books for an aktiebolag, kept through the API and checked by
// hand: the year-end, a late change in the locked year, the year-end run
// again, the close, and the next year opening with the closing balances.
func TestAYearOfBooksStaysContinuous(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	y1, py := b.pastYear(t)
	d := func(md string) string { return py + "-" + md }
	n := 0
	book := func(md, desc string, lines ...[3]any) string {
		t.Helper()
		n++
		return b.described(t, y1, d(md), desc, lines...)
	}

	// A1: the opening balance of the company's first year: share capital
	// paid in to the bank.
	b.periodAction(y1, "opening-balances/manual", map[string]any{"lines": []map[string]any{
		{"account_number": "1930", "debit_amount": 50000}, {"account_number": "2081", "credit_amount": 50000}}}).status(t, 201)
	n++
	// Every month a sale of 10 000 + 25 % VAT and the rent of 8 000 + 25 %.
	for m := 1; m <= 12; m++ {
		book(fmt.Sprintf("%02d-05", m), "Försäljning", [3]any{"1930", 12500, 0}, [3]any{"3001", 0, 10000}, [3]any{"2611", 0, 2500})
		book(fmt.Sprintf("%02d-10", m), "Hyra", [3]any{"5010", 8000, 0}, [3]any{"2641", 2000, 0}, [3]any{"1930", 0, 10000})
	}
	// The VAT of each quarter settled on 2650; three quarters paid.
	for _, q := range []string{"03-31", "06-30", "09-30", "12-31"} {
		book(q, "Momsredovisning", [3]any{"2611", 7500, 0}, [3]any{"2641", 0, 6000}, [3]any{"2650", 0, 1500})
	}
	for _, p := range []string{"05-12", "08-12", "11-12"} {
		book(p, "Betald moms", [3]any{"2650", 1500, 0}, [3]any{"1930", 0, 1500})
	}
	// Equipment bought, and a year's depreciation.
	book("02-15", "Inventarier", [3]any{"1220", 15000, 0}, [3]any{"1930", 0, 15000})
	book("12-31", "Avskrivning inventarier", [3]any{"7832", 3000, 0}, [3]any{"1229", 0, 3000})
	// A mistake undone by storno, and one corrected (6071 -> 6072).
	wrong := book("06-15", "Felbokning", [3]any{"6110", 500, 0}, [3]any{"1930", 0, 500})
	b.action(wrong, "reverse", map[string]any{"reversal_date": d("06-16")}).status(t, 200)
	n++
	repr := book("07-01", "Representation", [3]any{"6071", 800, 0}, [3]any{"1930", 0, 800})
	b.action(repr, "correct", map[string]any{"lines": []map[string]any{
		{"account_number": "6072", "debit_amount": 800}, {"account_number": "1930", "credit_amount": 800}}}).status(t, 200)
	n += 2
	// An inline rättelse of a description.
	b.action(repr, "correct-metadata", map[string]any{"description": "Representation, extern"}).errorCode(t, 409, "JOURNAL_RATTELSE_REFUSED")
	sale := book("12-20", "Försäljning jul", [3]any{"1930", 1250, 0}, [3]any{"3001", 0, 1000}, [3]any{"2611", 0, 250})
	b.action(sale, "correct-metadata", map[string]any{"description": "Försäljning jul, kassa 2"}).status(t, 200)
	// ... whose VAT is settled with the last quarter's in the next year:
	// 2611 carries 250 into it.
	if n < 30 {
		t.Fatalf("only %d verifikationer", n)
	}

	// By hand, before the late change: revenue 12 × 10 000 + 1 000 =
	// 121 000; costs 96 000 + 3 000 + 800 = 99 800; result 21 200.
	asker := b.key("owner@example.se", keySpec{name: "Bokslutsagent"})
	b.periodAction(y1, "lock", nil).status(t, 200)
	first := b.operation(t, b.post(b.base+"/fiscal-periods/"+y1+"/year-end", asker, nil, "Idempotency-Key", ik()).
		status(t, 202).str("data.operation_id"))
	if first.str("data.status") != "succeeded" || first.at("data.result.net_result") != 21200.0 {
		t.Fatalf("year-end: %s", first.Body)
	}
	closing := b.get(b.base+"/journal-entries/"+first.str("data.result.closing_entry_id"), b.token).status(t, 200)
	if closing.str("data.posted_by.label") != "Bokslutsagent" || closing.str("data.posted_by.email") != "owner@example.se" {
		t.Fatalf("the closing entry names who ran the year-end: %s", closing.Body)
	}

	// A late supplier invoice for the locked year: 1 200 + 300 VAT.
	b.periodAction(y1, "unlock", nil).status(t, 200)
	book("12-30", "Bredband december", [3]any{"6230", 1200, 0}, [3]any{"2641", 300, 0}, [3]any{"2440", 0, 1500})
	b.periodAction(y1, "lock", nil).status(t, 200)
	b.periodAction(y1, "close", nil).errorCode(t, 400, "YEAR_END_NOT_RUN")
	second := b.yearEnd(t, y1, false)
	if second.at("data.result.net_result") != -1200.0 || len(second.list("data.result.replaced_entry_ids")) != 2 {
		t.Fatalf("second year-end: %s", second.Body)
	}
	b.periodAction(y1, "close", nil).status(t, 200)

	// The result, 21 200 - 1 200 = 20 000, before the closing entry on the
	// income statement, after it on 8999 against 2099.
	_, before := b.balances(t, y1, false)
	pnl := 0.0
	for a, v := range before {
		if a[0] >= '3' && a[0] <= '8' {
			pnl += v
		}
	}
	if pnl != -20000 || before["8999"] != 0 || before["2099"] != 0 || before["3001"] != -121000 || before["6230"] != 1200 {
		t.Fatalf("before the closing entry: result %v, %v", pnl, before)
	}
	_, after := b.balances(t, y1, true)
	pnl = 0
	for a, v := range after {
		if a[0] >= '3' && a[0] <= '8' {
			pnl += v
		}
	}
	if pnl != 0 || after["8999"] != 20000 || after["2099"] != -20000 {
		t.Fatalf("after the closing entry: %v, %v", pnl, after)
	}
	// The closing balances by hand:
	//   1930: 50 000 + 12 × 12 500 - 12 × 10 000 - 3 × 1 500 - 15 000 - 800 + 1 250 = 60 950
	//   2611: -30 250 + 30 000 = -250;   2641: 24 300 - 24 000 = 300;   2650: -6 000 + 4 500 = -1 500
	ub := map[string]float64{"1930": 60950, "1220": 15000, "1229": -3000, "2611": -250, "2641": 300, "2650": -1500,
		"2440": -1500, "2081": -50000, "2099": -20000}
	sameLines(t, "closing balances", balanceSheet(after), ub)
	// The next year opens with exactly those, and moves the result to 2091.
	opening, next := b.balances(t, b.period, false)
	sameLines(t, "next opening balance", opening, ub)
	if next["2099"] != 0 || next["2091"] != -20000 {
		t.Fatalf("appropriation: %v", next)
	}
	cc := b.get(b.base+"/reports/continuity-check?"+url.Values{"period_id": {b.period}}.Encode(), b.token).status(t, 200)
	if cc.at("data.ok") != true || cc.at("data.differing_accounts") != float64(0) || len(cc.list("data.accounts")) != len(ub) ||
		cc.str("data.previous_period.id") != y1 || cc.at("data.totals.difference") != 0.0 {
		t.Fatalf("continuity check: %s", cc.Body)
	}
	// The first year has nothing before it.
	if f := b.get(b.base+"/reports/continuity-check?period_id="+y1, b.token).status(t, 200); f.at("data.ok") != true ||
		f.str("data.note_code") != "first_year" || f.at("data.previous_period") != nil {
		t.Fatalf("first year: %s", f.Body)
	}
	// The register of the closed year: gapless, the rättelse shown.
	reg := b.get(b.base+"/reports/journal-register?limit=500&period_id="+y1, b.token).status(t, 200)
	entries := reg.list("data.entries")
	numbers := map[string]float64{}
	for _, e := range entries {
		m := e.(map[string]any)
		series := m["voucher_series"].(string)
		if numbers[series]++; m["voucher_number"] != numbers[series] {
			t.Fatalf("voucher %s %v, want %s %v", series, m["voucher_number"], series, numbers[series])
		}
	}
	if len(entries) != n+2 {
		t.Fatalf("%d vouchers, want %d and two closing entries", len(entries), n)
	}
	rattelser := 0
	for _, e := range entries {
		if e.(map[string]any)["has_rattelse"] == true {
			rattelser++
		}
	}
	if rattelser != 1 {
		t.Fatalf("%d entries with a rättelse", rattelser)
	}

	// Nothing changes the closed year, nor the opening it fixed.
	b.draftIn(t, y1, d("12-31")).errorCode(t, 400, "PERIOD_LOCKED")
	for _, id := range []string{sale, first.str("data.result.closing_entry_id"), second.str("data.result.closing_entry_id")} {
		b.action(id, "reverse", map[string]any{"reversal_date": b.day("01-15")}).errorCode(t, 400, "PERIOD_LOCKED")
	}
	b.action(sale, "correct", map[string]any{"lines": []map[string]any{{"account_number": "1930", "debit_amount": 1},
		{"account_number": "3001", "credit_amount": 1}}}).errorCode(t, 400, "PERIOD_LOCKED")
	b.action(sale, "redate", map[string]any{"new_entry_date": b.day("01-15")}).errorCode(t, 400, "PERIOD_LOCKED")
	b.action(sale, "correct-metadata", map[string]any{"description": "Ändrad"}).errorCode(t, 409, "JOURNAL_RATTELSE_PERIOD_LOCKED")
	b.action(sale, "strike-lines", map[string]any{"lines": []map[string]any{{"account_number": "1910", "debit_amount": 1},
		{"account_number": "3001", "credit_amount": 1}}}).errorCode(t, 409, "JOURNAL_RATTELSE_PERIOD_LOCKED")
	b.action(second.str("data.result.opening_entry_id"), "reverse", nil).errorCode(t, 409, "OB_PREVIOUS_YEAR_CLOSED")
	b.periodAction(b.period, "opening-balances/manual", map[string]any{"lines": []map[string]any{
		{"account_number": "1930", "debit_amount": 1}, {"account_number": "2081", "credit_amount": 1}}}).
		errorCode(t, 409, "OB_PREVIOUS_YEAR_CLOSED")
	b.do(req{Method: "PATCH", Path: b.base + "/journal-entries/" + sale + "/notes", Token: b.token,
		Body: map[string]any{"notes": "Efteråt"}, Header: map[string]string{"Idempotency-Key": ik()}}).errorCode(t, 400, "PERIOD_LOCKED")
	b.action(sale, "no-document-required", map[string]any{"reason": "Kassakvitto"}).errorCode(t, 400, "PERIOD_LOCKED")
	b.periodAction(y1, "reopen-external", nil).errorCode(t, 409, "PERIOD_REOPEN_NOT_EXTERNAL")
	b.periodAction(y1, "unlock", nil).errorCode(t, 409, "PERIOD_UNLOCK_CLOSED")
	b.periodAction(y1, "year-end", nil).errorCode(t, 409, "PERIOD_ALREADY_CLOSED")
	for _, q := range []string{
		`UPDATE journal_entries SET description = 'x' WHERE company_id = $1 AND id = '` + sale + `'`,
		`UPDATE journal_entries SET entry_date = entry_date - 1 WHERE company_id = $1 AND id = '` + sale + `'`,
		`UPDATE journal_entries SET notes = 'Efterhandsanteckning' WHERE company_id = $1 AND id = '` + sale + `'`,
		`INSERT INTO journal_entries (company_id, fiscal_period_id, entry_date, description) VALUES ($1, '` + y1 + `', '` + d("12-31") + `', 'Sen')`,
		`INSERT INTO journal_entries (company_id, fiscal_period_id, entry_date, description, source_type)
		 VALUES ($1, '` + b.period + `', '` + b.day("01-01") + `', 'IB', 'opening_balance')`,
		`UPDATE fiscal_periods SET is_closed = false, closed_at = NULL WHERE company_id = $1 AND id = '` + y1 + `'`,
		`UPDATE fiscal_periods SET closed_externally = true WHERE company_id = $1 AND id = '` + y1 + `'`,
		`UPDATE journal_lines SET line_description = 'x' WHERE company_id = $1 AND journal_entry_id = '` + sale + `'`,
	} {
		refusedByTheBooks(t, b.db, "changing the closed year", q, b.company)
	}
	// And the closed year reads as it did.
	_, again := b.balances(t, y1, true)
	sameLines(t, "closed year", again, after)
}
