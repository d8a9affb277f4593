package tests

import (
	"encoding/json"
	"net/url"
	"strconv"
	"testing"
)

// The defects of issue 14, each replayed through the API: every one was
// answered wrongly before the continuity rules.

// pastYear opens the fiscal year before the company's first and returns
// its id and year: a finished year, so a lock date may lie in it.
func (b *ledgerBooks) pastYear(t *testing.T) (string, string) {
	t.Helper()
	y, _ := strconv.Atoi(b.year)
	py := strconv.Itoa(y - 1)
	id := b.post(b.base+"/fiscal-periods", b.token, map[string]any{"period_start": py + "-01-01", "period_end": py + "-12-31"},
		"Idempotency-Key", ik()).status(t, 201).str("data.fiscal_period.id")
	return id, py
}

// yearEnd locks period (when open) and runs its year-end to success.
func (b *ledgerBooks) yearEnd(t *testing.T, period string, lock bool) *response {
	t.Helper()
	if lock {
		b.periodAction(period, "lock", nil).status(t, 200)
	}
	op := b.operation(t, b.periodAction(period, "year-end", nil).status(t, 202).str("data.operation_id"))
	if op.str("data.status") != "succeeded" {
		t.Fatalf("year-end: %s", op.Body)
	}
	return op
}

// balances reads the trial balance of period: account -> opening and
// closing balance.
func (b *ledgerBooks) balances(t *testing.T, period string, withClosing bool) (opening, closing map[string]float64) {
	t.Helper()
	q := url.Values{"period_id": {period}}
	if withClosing {
		q.Set("include_closing_entry", "true")
	}
	r := b.get(b.base+"/reports/trial-balance?"+q.Encode(), b.token).status(t, 200)
	opening, closing = map[string]float64{}, map[string]float64{}
	for _, row := range r.list("data.rows") {
		m := row.(map[string]any)
		a := m["account"].(string)
		if v := m["opening_balance"].(float64); v != 0 {
			opening[a] = v
		}
		if v := m["closing_balance"].(float64); v != 0 {
			closing[a] = v
		}
	}
	return opening, closing
}

// balanceSheet keeps the accounts of classes 1-2.
func balanceSheet(m map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for a, v := range m {
		if a[0] == '1' || a[0] == '2' {
			out[a] = v
		}
	}
	return out
}

// Defect 1: a year closed with a stale opening balance in the next year.
// Now the close names the accounts that differ, and a second year-end
// brings the opening balance in line.
func TestCloseRefusesAStaleOpeningBalance(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	y1, py := b.pastYear(t)
	b.entry(t, y1, py+"-03-15", [3]any{"1930", 1250, 0}, [3]any{"3001", 0, 1000}, [3]any{"2611", 0, 250})
	first := b.yearEnd(t, y1, true)
	b.periodAction(y1, "unlock", nil).status(t, 200)
	// The output VAT moves to the settlement account: no effect on the
	// result, so the closing entry still holds, but the balances moved.
	b.entry(t, y1, py+"-12-31", [3]any{"2611", 250, 0}, [3]any{"2650", 0, 250})
	b.periodAction(y1, "lock", nil).status(t, 200)
	r := b.periodAction(y1, "close", nil).errorCode(t, 400, "OPENING_BALANCE_MISMATCH")
	diffs := map[string][2]float64{}
	for _, d := range r.list("error.details.accounts") {
		m := d.(map[string]any)
		diffs[m["account_number"].(string)] = [2]float64{m["closing_balance"].(float64), m["next_opening_balance"].(float64)}
	}
	if len(diffs) != 2 || diffs["2611"] != [2]float64{0, -250} || diffs["2650"] != [2]float64{-250, 0} {
		t.Fatalf("differences: %s", r.Body)
	}
	// The database holds the rule too.
	refusedByTheBooks(t, b.db, "closing a year whose next opening balance differs",
		`UPDATE fiscal_periods SET is_closed = true, closed_at = now() WHERE id = $1`, y1)
	// Run again: only the opening balance is replaced (storno + new).
	again := b.yearEnd(t, y1, false)
	if again.at("data.result.closing_entry_id") != first.at("data.result.closing_entry_id") ||
		len(again.list("data.result.replaced_entry_ids")) != 1 ||
		again.str("data.result.replaced_entry_ids.0") != first.str("data.result.opening_entry_id") {
		t.Fatalf("second year-end: %s", again.Body)
	}
	b.periodAction(y1, "close", nil).status(t, 200)
	opening, _ := b.balances(t, b.period, false)
	_, closing := b.balances(t, y1, true)
	sameLines(t, "next opening = closing", opening, balanceSheet(closing))
	if opening["2650"] != -250 || opening["2611"] != 0 {
		t.Fatalf("opening balance: %v", opening)
	}
}

// Defect 2: re-running the year-end double-counted the opening balance,
// because the storno of an opening balance counted as turnover.
func TestRerunYearEndReplacesTheOpeningBalance(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	y1, py := b.pastYear(t)
	b.entry(t, y1, py+"-01-01", [3]any{"1930", 25000, 0}, [3]any{"2081", 0, 25000})
	b.entry(t, y1, py+"-03-15", [3]any{"1930", 62500, 0}, [3]any{"3001", 0, 50000}, [3]any{"2611", 0, 12500})
	b.yearEnd(t, y1, true)
	b.periodAction(y1, "unlock", nil).status(t, 200)
	// A late cost: 1930 ends at 25000 + 62500 - 25100 = 62400.
	b.entry(t, y1, py+"-12-20", [3]any{"5010", 20080, 0}, [3]any{"2641", 5020, 0}, [3]any{"1930", 0, 25100})
	b.periodAction(y1, "lock", nil).status(t, 200)
	b.periodAction(y1, "close", nil).errorCode(t, 400, "YEAR_END_NOT_RUN")
	op := b.yearEnd(t, y1, false)
	// Result after the late cost: 50000 - 20080 = 29920; the re-run books
	// the difference, -20080, and replaces the opening balance and the
	// appropriation.
	if len(op.list("data.result.replaced_entry_ids")) != 2 || op.at("data.result.net_result") != -20080.0 {
		t.Fatalf("re-run: %s", op.Body)
	}
	opening, closing := b.balances(t, b.period, false)
	want := map[string]float64{"1930": 62400, "2081": -25000, "2611": -12500, "2641": 5020, "2099": -29920}
	sameLines(t, "opening balance", opening, want)
	// Turnover of the new year: only the appropriation, 2099 -> 2091.
	if closing["1930"] != 62400 || closing["2099"] != 0 || closing["2091"] != -29920 {
		t.Fatalf("closing of the new year: %v", closing)
	}
	b.periodAction(y1, "close", nil).status(t, 200)
}

// Defects 3 and 4: a closed year's closing entry was reversed into the
// next year, and the next year's opening balance replaced with invented
// figures. Now nothing reaches a closed year or its continuation.
func TestClosedYearStaysClosed(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	y1, py := b.pastYear(t)
	sale := b.entry(t, y1, py+"-03-15", [3]any{"1930", 1250, 0}, [3]any{"3001", 0, 1000}, [3]any{"2611", 0, 250})
	op := b.yearEnd(t, y1, true)
	b.periodAction(y1, "close", nil).status(t, 200)
	closingEntry, ib := op.str("data.result.closing_entry_id"), op.str("data.result.opening_entry_id")
	ap := op.str("data.result.appropriation_entry_id")

	in := map[string]any{"reversal_date": b.day("02-01")}
	for _, id := range []string{closingEntry, sale} {
		b.action(id, "reverse", in).errorCode(t, 400, "PERIOD_LOCKED")
		b.post(b.base+"/journal-entries/"+id+"/reverse?dry_run=true", b.token, in, "Idempotency-Key", ik()).
			errorCode(t, 400, "PERIOD_LOCKED")
	}
	b.action(sale, "correct", map[string]any{"lines": []map[string]any{{"account_number": "1930", "debit_amount": 1},
		{"account_number": "3001", "credit_amount": 1}}}).errorCode(t, 400, "PERIOD_LOCKED")
	b.action(sale, "redate", map[string]any{"new_entry_date": b.day("02-01")}).errorCode(t, 400, "PERIOD_LOCKED")
	b.action(sale, "correct-metadata", map[string]any{"description": "Ändrad"}).errorCode(t, 409, "JOURNAL_RATTELSE_PERIOD_LOCKED")
	b.draftIn(t, y1, py+"-06-01").errorCode(t, 400, "PERIOD_LOCKED")
	// The next year's opening balance and appropriation are fixed.
	b.action(ib, "reverse", nil).errorCode(t, 409, "OB_PREVIOUS_YEAR_CLOSED")
	b.action(ap, "reverse", nil).errorCode(t, 409, "ENTRY_OWNED_BY_YEAR_END")
	b.action(ib, "strike-lines", map[string]any{"lines": []map[string]any{{"account_number": "1930", "debit_amount": 1},
		{"account_number": "2081", "credit_amount": 1}}}).errorCode(t, 409, "JOURNAL_RATTELSE_REFUSED")
	b.periodAction(b.period, "opening-balances/manual", map[string]any{"lines": []map[string]any{
		{"account_number": "1930", "debit_amount": 999999}, {"account_number": "2081", "credit_amount": 999999}}}).
		errorCode(t, 409, "OB_PREVIOUS_YEAR_CLOSED")
	// The register of the closed year still shows its closing entry posted.
	reg := b.get(b.base+"/reports/journal-register?period_id="+y1, b.token).status(t, 200)
	for _, e := range reg.list("data.entries") {
		if m := e.(map[string]any); m["status"] != "posted" {
			t.Fatalf("register: %v", m)
		}
	}
	// Raw SQL is refused as well.
	for _, q := range []string{
		`INSERT INTO journal_entries (company_id, fiscal_period_id, entry_date, description) VALUES ($1, '` + y1 + `', '` + py + `-06-01', 'x')`,
		`INSERT INTO journal_entries (company_id, fiscal_period_id, entry_date, description, source_type)
		 VALUES ($1, '` + b.period + `', '` + b.day("01-01") + `', 'IB', 'opening_balance')`,
		`UPDATE journal_entries SET description = 'x' WHERE company_id = $1 AND fiscal_period_id = '` + y1 + `'`,
		`UPDATE fiscal_periods SET period_end = period_end - 31 WHERE company_id = $1 AND id = '` + y1 + `'`,
	} {
		refusedByTheBooks(t, b.db, "changing a closed year", q, b.company)
	}
}

// draftIn creates (without committing) an entry on date in period.
func (b *ledgerBooks) draftIn(t *testing.T, period, date string) *response {
	t.Helper()
	return b.create(map[string]any{"fiscal_period_id": period, "entry_date": date, "description": "Sen",
		"lines": []map[string]any{{"account_number": "1930", "debit_amount": 10}, {"account_number": "3001", "credit_amount": 10}}})
}

// Defect 5: the year-end and its opening balance were posted on or
// before the company's lock date.
func TestYearEndRespectsTheLockDate(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	y1, py := b.pastYear(t)
	b.entry(t, y1, py+"-03-15", [3]any{"1930", 1250, 0}, [3]any{"3001", 0, 1000}, [3]any{"2611", 0, 250})
	b.periodAction(y1, "lock", nil).status(t, 200)
	b.patch(b.base+"/settings/bookkeeping-lock", b.token, map[string]any{"bookkeeping_locked_through": py + "-12-31"}).status(t, 200)
	r := b.periodAction(y1, "year-end", nil).errorCode(t, 400, "PERIOD_LOCKED")
	if r.str("error.details.reason") != "company_lock_date" {
		t.Fatalf("details: %s", r.Body)
	}
	b.patch(b.base+"/settings/bookkeeping-lock", b.token, map[string]any{"bookkeeping_locked_through": py + "-12-30"}).status(t, 200)
	b.yearEnd(t, y1, false)
}

// Defect 6: a storno dated before the entry it reverses.
func TestStornoIsNotDatedBeforeItsOriginal(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	id := b.posted(t, "06-15")
	r := b.action(id, "reverse", map[string]any{"reversal_date": b.day("06-14")}).errorCode(t, 400, "VALIDATION_ERROR")
	if f := r.issueFields(); len(f) != 1 || f[0] != "body:reversal_date:not_before_original" {
		t.Fatalf("fields: %s", r.Body)
	}
	b.action(id, "reverse", map[string]any{"reversal_date": b.day("06-15")}).status(t, 200)
}

// Defect 7: a draft behind the lock date could be neither committed nor
// cancelled, and blocked the period lock for good.
func TestDraftBehindTheLockDateCanBeCancelled(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	draft := b.create(b.sale("02-10")).status(t, 201).str("data.id")
	b.patch(b.base+"/settings/bookkeeping-lock", b.token, map[string]any{"bookkeeping_locked_through": b.day("02-28")}).status(t, 200)
	b.action(draft, "commit", nil).errorCode(t, 400, "PERIOD_LOCKED")
	b.periodAction(b.period, "lock", nil).errorCode(t, 400, "PERIOD_LOCK_HAS_DRAFTS")
	r := b.do(req{Method: "DELETE", Path: b.base + "/journal-entries/" + draft, Token: b.token}).status(t, 200)
	if r.str("data.status") != "cancelled" {
		t.Fatalf("cancelled: %s", r.Body)
	}
	b.periodAction(b.period, "lock", nil).status(t, 200)
}

// Defect 8: amounts written with trailing zeros were refused.
func TestAmountsWithTrailingZeros(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	body := func(debit string) string {
		return `{"fiscal_period_id":"` + b.period + `","entry_date":"` + b.day("04-01") + `","description":"Nollor",
			"lines":[{"account_number":"1930","debit_amount":` + debit + `},
			{"account_number":"3001","credit_amount":100.000},{"account_number":"2611","credit_amount":0.070}]}`
	}
	r := b.create(body("100.070")).status(t, 201)
	if r.at("data.total_debit") != 100.07 || r.at("data.lines.2.credit_amount") != 0.07 {
		t.Fatalf("entry: %s", r.Body)
	}
	r = b.create(body("100.075")).errorCode(t, 400, "VALIDATION_ERROR")
	if f := r.issueFields(); len(f) != 1 || f[0] != "body:lines.0.debit_amount:multipleOf" {
		t.Fatalf("fields: %s", r.Body)
	}
}

// Defect 9: amounts the document allowed overflowed the books. Now one
// bound, 999 999 999 999.99, holds for a line, an entry's total and an
// account's balance, and the reports stay readable.
func TestAmountBounds(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	entry := func(amounts ...float64) map[string]any {
		ls := []map[string]any{}
		for i, a := range amounts {
			l := map[string]any{"account_number": "1930", "debit_amount": a}
			if i%2 == 1 {
				l = map[string]any{"account_number": "2081", "credit_amount": a}
			}
			ls = append(ls, l)
		}
		return map[string]any{"fiscal_period_id": b.period, "entry_date": b.day("05-01"), "description": "Stort", "lines": ls}
	}
	r := b.create(entry(6e15, 6e15, 6e15, 6e15)).errorCode(t, 400, "VALIDATION_ERROR")
	if f := r.issueFields(); len(f) != 4 || f[0] != "body:lines.0.debit_amount:maximum" {
		t.Fatalf("fields: %s", r.Body)
	}
	r = b.create(entry(6e11, 6e11, 6e11, 6e11)).errorCode(t, 400, "VALIDATION_ERROR")
	if f := r.issueFields(); len(f) != 1 || f[0] != "body:lines:max_total" {
		t.Fatalf("total: %s", r.Body)
	}
	first := b.create(entry(9e11, 9e11)).status(t, 201).str("data.id")
	b.action(first, "commit", nil).status(t, 200)
	second := b.create(entry(9e11, 9e11)).status(t, 201).str("data.id")
	r = b.action(second, "commit", nil).errorCode(t, 400, "ACCOUNT_BALANCE_OUT_OF_RANGE")
	if a := r.str("error.details.account_number"); a != "1930" && a != "2081" {
		t.Fatalf("details: %s", r.Body)
	}
	// The failed commit left the books as they were, and they still read.
	opening, closing := b.balances(t, b.period, false)
	if len(opening) != 0 || closing["1930"] != 9e11 {
		t.Fatalf("trial balance: %v", closing)
	}
	b.get(b.base+"/reports/general-ledger?period_id="+b.period, b.token).status(t, 200)
}

// Defect 10: a foreign-currency line's kronor amount was never compared
// with amount × rate.
func TestForeignCurrencyLinesAreChecked(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	entry := func(sek float64) map[string]any {
		return map[string]any{"fiscal_period_id": b.period, "entry_date": b.day("05-02"), "description": "EUR-faktura",
			"lines": []map[string]any{
				{"account_number": "1510", "debit_amount": sek, "currency": "EUR", "amount_in_currency": 100, "exchange_rate": 11.234567},
				{"account_number": "3001", "credit_amount": sek}}}
	}
	r := b.create(entry(5000)).errorCode(t, 400, "VALIDATION_ERROR")
	if f := r.issueFields(); len(f) != 1 || f[0] != "body:lines[0].debit_amount:exchange" {
		t.Fatalf("fields: %s", r.Body)
	}
	// 100 × 11.234567 = 1123.4567: either rounding of the half öre passes.
	b.create(entry(1123.46)).status(t, 201)
	b.create(entry(1123.45)).status(t, 201)
	half := entry(1123.46)
	delete(half["lines"].([]map[string]any)[0], "exchange_rate")
	b.create(half).errorCode(t, 400, "VALIDATION_ERROR")
}

// Corrections are visible where an auditor looks: the detail and the
// register show that an inline rättelse was made (a count, and the struck
// lines marked with it), and who posted or corrected the verifikat — the
// person behind the key as well as the key. A verifikat names its
// counterparty.
func TestRattelseAndPosterInTheRegister(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	agent := b.key("owner@example.se", keySpec{name: "Bokföringsagent"})
	var userID string
	if err := b.db.Get(&userID, `SELECT id FROM users WHERE email = 'owner@example.se'`); err != nil {
		t.Fatal(err)
	}
	cust := b.post(b.base+"/customers", b.token, map[string]any{"name": "Byggbolaget i Norrland AB",
		"customer_type": "swedish_business", "org_number": "556334-3689"}, "Idempotency-Key", ik()).status(t, 201).str("data.id")

	body := b.sale("04-10")
	body["counterparty"] = map[string]any{"name": "Kund på plats"}
	r := b.post(b.base+"/journal-entries", agent, body, "Idempotency-Key", ik()).status(t, 201)
	id := r.str("data.id")
	if r.str("data.counterparty.name") != "Kund på plats" || r.at("data.counterparty.customer_id") != nil || r.at("data.posted_by") != nil {
		t.Fatalf("draft: %s", r.Body)
	}
	// A customer as counterparty: its name is kept.
	body["counterparty"] = map[string]any{"customer_id": cust}
	r = b.do(req{Method: "PATCH", Path: b.base + "/journal-entries/" + id, Token: agent, Body: body}).status(t, 200)
	if r.str("data.counterparty.name") != "Byggbolaget i Norrland AB" || r.str("data.counterparty.customer_id") != cust {
		t.Fatalf("patched: %s", r.Body)
	}
	for _, bad := range []map[string]any{{"customer_id": ik()}, {"customer_id": cust, "supplier_id": ik()}, {}} {
		body["counterparty"] = bad
		b.create(body).errorCode(t, 400, "VALIDATION_ERROR")
	}
	b.post(b.base+"/journal-entries/"+id+"/commit", agent, nil, "Idempotency-Key", ik()).status(t, 200)
	d := b.get(b.base+"/journal-entries/"+id, b.token).status(t, 200)
	if d.str("data.posted_by.type") != "api_key" || d.str("data.posted_by.user_id") != userID ||
		d.str("data.posted_by.email") != "owner@example.se" || d.str("data.posted_by.label") != "Bokföringsagent" ||
		d.at("data.has_rattelse") != false || len(d.list("data.struck_lines")) != 0 {
		t.Fatalf("posted: %s", d.Body)
	}

	// An inline rättelse of lines by the agent: struck 1930, booked 1910.
	struck := d.str("data.lines.0.id")
	s := b.post(b.base+"/journal-entries/"+id+"/strike-lines", agent, map[string]any{"strike_line_ids": []string{struck},
		"lines": []map[string]any{{"account_number": "1910", "debit_amount": 1250}}}, "Idempotency-Key", ik()).status(t, 200)
	log := s.str("data.log_id")
	d = b.get(b.base+"/journal-entries/"+id, b.token).status(t, 200)
	if d.at("data.has_rattelse") != true || d.at("data.rattelse_count") != float64(1) || len(d.list("data.lines")) != 3 ||
		d.str("data.struck_lines.0.id") != struck || d.str("data.struck_lines.0.struck_by_rattelse_id") != log ||
		d.str("data.lines.2.added_by_rattelse_id") != log || d.at("data.total_debit") != 1250.0 {
		t.Fatalf("after the rättelse: %s", d.Body)
	}
	rl := b.get(b.base+"/journal-entries/"+id+"/rattelse-log", b.token).status(t, 200)
	if rl.str("data.entries.0.actor_email") != "owner@example.se" || rl.str("data.entries.0.actor_user_id") != userID ||
		rl.str("data.entries.0.actor_label") != "Bokföringsagent" {
		t.Fatalf("rättelse log: %s", rl.Body)
	}
	b.post(b.base+"/journal-entries/"+id+"/correct-metadata", agent, map[string]any{"description": "Kontantförsäljning, rättad"},
		"Idempotency-Key", ik()).status(t, 200)

	// The register shows the rättelser, the struck line in its place,
	// who posted it and the counterparty.
	reg := b.get(b.base+"/reports/journal-register?period_id="+b.period, b.token).status(t, 200)
	e := reg.at("data.entries.0").(map[string]any)
	lines := e["lines"].([]any)
	first := lines[0].(map[string]any)
	if e["has_rattelse"] != true || e["rattelse_count"] != float64(2) || len(lines) != 4 ||
		first["struck"] != true || first["struck_by_rattelse_id"] != log || first["account_number"] != "1930" ||
		e["total_debit"] != 1250.0 || e["description"] != "Kontantförsäljning, rättad" ||
		e["posted_by"].(map[string]any)["email"] != "owner@example.se" ||
		e["counterparty"].(map[string]any)["customer_id"] != cust {
		t.Fatalf("register: %v", e)
	}
	// ... and who made each rättelse.
	rs := e["rattelser"].([]any)
	if len(rs) != 2 {
		t.Fatalf("register rättelser: %v", e["rattelser"])
	}
	for i, kind := range []string{"lines", "metadata"} {
		x := rs[i].(map[string]any)
		if x["rattelse_type"] != kind || x["actor_email"] != "owner@example.se" || x["actor_label"] != "Bokföringsagent" ||
			x["actor_user_id"] != userID {
			t.Fatalf("register rättelse %d: %v", i, x)
		}
	}
	// The audit trail names the person too.
	at := b.get(b.base+"/audit-trail?table_name=journal_entries", b.token).status(t, 200)
	found := false
	for _, x := range at.list("data.entries") {
		m := x.(map[string]any)
		if m["actor_label"] == "Bokföringsagent" && m["actor_email"] == "owner@example.se" && m["actor_user_id"] == userID {
			found = true
		}
	}
	if !found {
		t.Fatalf("audit trail: %s", at.Body)
	}
	// A storno keeps the counterparty and names who posted it.
	st := b.action(id, "reverse", map[string]any{"reversal_date": b.day("04-30")}).status(t, 200).str("data.reversal_id")
	sd := b.get(b.base+"/journal-entries/"+st, b.token).status(t, 200)
	if sd.str("data.counterparty.customer_id") != cust || sd.str("data.posted_by.label") != "Unnamed API key" ||
		sd.str("data.posted_by.email") != "owner@example.se" {
		t.Fatalf("storno: %s", sd.Body)
	}
}

// A year kept outside Kontera: its next year's opening balance is set by
// hand, fixed once the year is marked closed, and set again only after an
// owner re-opens it.
func TestYearClosedOutsideKontera(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	y0, py := b.pastYear(t)
	manual := func(amount float64) *response {
		return b.periodAction(b.period, "opening-balances/manual", map[string]any{"lines": []map[string]any{
			{"account_number": "1930", "debit_amount": amount}, {"account_number": "2081", "credit_amount": amount}}})
	}
	// Not ended, or with bookkeeping here: not closed outside.
	b.periodAction(b.period, "close-external", nil).errorCode(t, 409, "FISCAL_PERIOD_CLOSE_EXTERNAL_NOT_ENDED")
	b.periodAction(y0, "reopen-external", nil).errorCode(t, 409, "PERIOD_REOPEN_NOT_CLOSED")
	draft := b.create(map[string]any{"fiscal_period_id": y0, "entry_date": py + "-06-01", "description": "Gammalt",
		"lines": []map[string]any{{"account_number": "1930", "debit_amount": 5}, {"account_number": "3001", "credit_amount": 5}}}).
		status(t, 201).str("data.id")
	b.periodAction(y0, "close-external", nil).errorCode(t, 409, "FISCAL_PERIOD_CLOSE_EXTERNAL_NATIVE_BOOKKEEPING")
	b.do(req{Method: "DELETE", Path: b.base + "/journal-entries/" + draft, Token: b.token}).status(t, 200)

	ib := manual(40000).status(t, 201).str("data.journal_entry_id")
	d := b.post(b.base+"/fiscal-periods/"+y0+"/close-external?dry_run=true", b.token, nil, "Idempotency-Key", ik()).status(t, 200)
	if d.str("data.preview.state") != "closed" || d.at("data.preview.closed_externally") != true {
		t.Fatalf("dry run: %s", d.Body)
	}
	c := b.periodAction(y0, "close-external", nil).status(t, 200)
	if c.str("data.state") != "closed" || c.at("data.closed_externally") != true || c.at("data.locked_at") == nil {
		t.Fatalf("closed: %s", c.Body)
	}
	manual(1).errorCode(t, 409, "OB_PREVIOUS_YEAR_CLOSED")
	b.action(ib, "reverse", nil).errorCode(t, 409, "OB_PREVIOUS_YEAR_CLOSED")

	// Only an owner re-opens it.
	b.member(b.company, "admin@example.se", "admin", false)
	admin := b.key("admin@example.se", keySpec{})
	b.post(b.base+"/fiscal-periods/"+y0+"/reopen-external", admin, nil, "Idempotency-Key", ik()).errorCode(t, 403, "FORBIDDEN")
	r := b.periodAction(y0, "reopen-external", nil).status(t, 200)
	if r.str("data.state") != "open" || r.at("data.closed_externally") != false || r.at("data.locked_at") != nil {
		t.Fatalf("re-opened: %s", r.Body)
	}
	if n := b.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND table_name = 'fiscal_periods'
		AND description LIKE '%öppnades igen%'`, b.company); n != 1 {
		t.Fatalf("%d audit rows of the re-open", n)
	}
	// An opening balance is not corrected by storno and replacement (the
	// replacement would count as turnover): reverse it and set it again.
	b.action(ib, "correct", map[string]any{"lines": []map[string]any{{"account_number": "1930", "debit_amount": 1},
		{"account_number": "2081", "credit_amount": 1}}}).errorCode(t, 409, "JOURNAL_RATTELSE_REFUSED")
	// Now the opening balance is replaced: the storno counts as opening,
	// so the year opens with the new figure alone.
	st := b.action(ib, "reverse", map[string]any{"reversal_date": b.day("03-01")}).status(t, 200)
	if st.str("data.entry_date") != b.day("01-01") {
		t.Fatalf("storno of an opening balance: %s", st.Body)
	}
	manual(42000).status(t, 201)
	opening, _ := b.balances(t, b.period, false)
	sameLines(t, "opening balance", opening, map[string]float64{"1930": 42000, "2081": -42000})
	b.periodAction(y0, "close-external", nil).status(t, 200)
	manual(1).errorCode(t, 409, "OB_PREVIOUS_YEAR_CLOSED")
}

// Continuity per dimension: a balance-sheet account tagged with a project
// (dimension 6, which carries over years) opens the next year on the
// project; the cost centre (dimension 1) resets. A change that keeps the
// account's total but moves it between projects makes the close refuse
// until the year-end has run again.
func TestOpeningBalancePerProject(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	y1, py := b.pastYear(t)
	tagged := func(md string, lines ...map[string]any) {
		t.Helper()
		id := b.create(map[string]any{"fiscal_period_id": y1, "entry_date": py + "-" + md, "description": "Projekt",
			"lines": lines}).status(t, 201).str("data.id")
		b.action(id, "commit", nil).status(t, 200)
	}
	l := func(acct, side string, amount float64, dims map[string]string) map[string]any {
		m := map[string]any{"account_number": acct, side: amount}
		if dims != nil {
			m["dimensions"] = dims
		}
		return m
	}
	p100, p200, p300 := map[string]string{"6": "P100"}, map[string]string{"6": "P200"}, map[string]string{"6": "P300"}
	tagged("03-01", l("1510", "debit_amount", 12500, map[string]string{"6": "P100", "1": "K1"}),
		l("3001", "credit_amount", 10000, p100), l("2611", "credit_amount", 2500, nil))
	tagged("04-01", l("1510", "debit_amount", 5000, p200), l("3001", "credit_amount", 4000, p200), l("2611", "credit_amount", 1000, nil))
	tagged("05-01", l("1930", "debit_amount", 5000, nil), l("1510", "credit_amount", 5000, p200))
	op := b.yearEnd(t, y1, true)
	ib := b.get(b.base+"/journal-entries/"+op.str("data.result.opening_entry_id"), b.token).status(t, 200)
	got := map[string]float64{}
	for _, x := range ib.list("data.lines") {
		m := x.(map[string]any)
		dims, _ := json.Marshal(m["dimensions"])
		got[m["account_number"].(string)+string(dims)] += m["debit_amount"].(float64) - m["credit_amount"].(float64)
	}
	sameLines(t, "opening balance per project", got, map[string]float64{`1510{"6":"P100"}`: 12500, `1930{}`: 5000,
		`2611{}`: -3500, `2099{}`: -14000})

	// Move 1 000 of the receivable from P100 to P300: 1510 keeps its total.
	b.periodAction(y1, "unlock", nil).status(t, 200)
	tagged("12-31", l("1510", "debit_amount", 1000, p300), l("1510", "credit_amount", 1000, p100))
	b.periodAction(y1, "lock", nil).status(t, 200)
	r := b.periodAction(y1, "close", nil).errorCode(t, 400, "OPENING_BALANCE_MISMATCH")
	if len(r.list("error.details.accounts")) != 2 || r.str("error.details.accounts.0.account_number") != "1510" {
		t.Fatalf("differences per project: %s", r.Body)
	}
	cc := b.get(b.base+"/reports/continuity-check?period_id="+b.period, b.token).status(t, 200)
	if cc.at("data.ok") != false || cc.at("data.differing_accounts") != float64(0) ||
		len(cc.list("data.dimension_differences")) != 2 || cc.str("data.dimension_differences.1.dimensions.6") != "P300" ||
		cc.at("data.dimension_differences.1.difference") != -1000.0 {
		t.Fatalf("continuity check per project: %s", cc.Body)
	}
	again := b.yearEnd(t, y1, false)
	if cc := b.get(b.base+"/reports/continuity-check?period_id="+b.period, b.token).status(t, 200); cc.at("data.ok") != true ||
		len(cc.list("data.dimension_differences")) != 0 {
		t.Fatalf("continuity check after the re-run: %s", cc.Body)
	}
	if len(again.list("data.result.replaced_entry_ids")) != 1 || again.at("data.result.closing_entry_id") != op.at("data.result.closing_entry_id") {
		t.Fatalf("re-run: %s", again.Body)
	}
	b.periodAction(y1, "close", nil).status(t, 200)
	ib = b.get(b.base+"/journal-entries/"+again.str("data.result.opening_entry_id"), b.token).status(t, 200)
	got = map[string]float64{}
	for _, x := range ib.list("data.lines") {
		m := x.(map[string]any)
		dims, _ := json.Marshal(m["dimensions"])
		got[m["account_number"].(string)+string(dims)] += m["debit_amount"].(float64) - m["credit_amount"].(float64)
	}
	sameLines(t, "opening balance per project", got, map[string]float64{`1510{"6":"P100"}`: 11500,
		`1510{"6":"P300"}`: 1000, `1930{}`: 5000, `2611{}`: -3500, `2099{}`: -14000})
}
