package tests

import (
	"testing"
	"time"
)

// periodAction posts .../fiscal-periods/{period}/{what} with a fresh key.
func (b *ledgerBooks) periodAction(period, what string, body any) *response {
	return b.post(b.base+"/fiscal-periods/"+period+"/"+what, b.token, body, "Idempotency-Key", ik())
}

// entry posts a balanced entry of lines (account, debit, credit) on md
// into period and commits it.
func (b *ledgerBooks) entry(t *testing.T, period, date string, lines ...[3]any) string {
	t.Helper()
	return b.described(t, period, date, "Test", lines...)
}

// described is entry with a description.
func (b *ledgerBooks) described(t *testing.T, period, date, desc string, lines ...[3]any) string {
	t.Helper()
	ls := make([]map[string]any, len(lines))
	for i, l := range lines {
		ls[i] = map[string]any{"account_number": l[0]}
		if l[1] != 0 {
			ls[i]["debit_amount"] = l[1]
		}
		if l[2] != 0 {
			ls[i]["credit_amount"] = l[2]
		}
	}
	id := b.create(map[string]any{"fiscal_period_id": period, "entry_date": date, "description": desc,
		"lines": ls}).status(t, 201).str("data.id")
	b.action(id, "commit", nil).status(t, 200)
	return id
}

// operation polls an operation until it ends.
func (b *ledgerBooks) operation(t *testing.T, id string) *response {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute) // a bound on a hang, not a timing
	for {
		r := b.get("/api/v1/operations/"+id, b.token).status(t, 200)
		switch r.str("data.status") {
		case "succeeded", "failed", "cancelled":
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("operation %s still %s", id, r.str("data.status"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lines returns an entry's lines as account -> signed amount (debit +).
func (b *ledgerBooks) lines(t *testing.T, id string) map[string]float64 {
	t.Helper()
	r := b.get(b.base+"/journal-entries/"+id, b.token).status(t, 200)
	out := map[string]float64{}
	for _, l := range r.list("data.lines") {
		m := l.(map[string]any)
		out[m["account_number"].(string)] += m["debit_amount"].(float64) - m["credit_amount"].(float64)
	}
	return out
}

func sameLines(t *testing.T, what string, got, want map[string]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("%s: %s is %v, want %v (all %v)", what, k, got[k], v, got)
		}
	}
}

func TestPeriodLockAndUnlock(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	draft := b.create(b.sale("03-15")).status(t, 201).str("data.id")

	b.post(b.base+"/fiscal-periods/"+b.period+"/lock", b.token, nil).errorCode(t, 400, "VALIDATION_ERROR")
	r := b.periodAction(b.period, "lock", nil).errorCode(t, 400, "PERIOD_LOCK_HAS_DRAFTS")
	if r.at("error.details.draft_count") != float64(1) {
		t.Fatalf("draft count: %s", r.Body)
	}
	// The database keeps the rule too, and closes nothing without a year-end.
	if _, err := b.db.Exec(`UPDATE fiscal_periods SET locked_at = now() WHERE id = $1`, b.period); err == nil {
		t.Fatal("the database locked a period with a draft")
	}
	if _, err := b.db.Exec(`UPDATE fiscal_periods SET locked_at = now(), is_closed = true, closed_at = now()
		WHERE id = $1`, b.period); err == nil {
		t.Fatal("the database closed a period without its year-end")
	}
	b.do(req{Method: "DELETE", Path: b.base + "/journal-entries/" + draft, Token: b.token}).status(t, 200)
	b.posted(t, "03-16")

	r = b.periodAction(b.period, "lock", nil).status(t, 200)
	if r.str("data.state") != "locked" || r.at("data.locked_at") == nil || r.at("data.is_closed") != false {
		t.Fatalf("locked: %s", r.Body)
	}
	b.periodAction(b.period, "lock", nil).errorCode(t, 409, "PERIOD_LOCK_ALREADY_LOCKED")
	if n := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'period.locked'`, b.company); n != 1 {
		t.Fatalf("%d period.locked events", n)
	}
	if n := b.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND action = 'LOCK_PERIOD'`, b.company); n != 1 {
		t.Fatalf("%d LOCK_PERIOD audit rows", n)
	}
	// Nothing is drafted or posted into a locked period, not even by hand.
	b.create(b.sale("03-17")).errorCode(t, 400, "PERIOD_LOCKED")
	if _, err := b.db.Exec(`INSERT INTO journal_entries (company_id, fiscal_period_id, entry_date, description)
		VALUES ($1, $2, $3, 'By hand')`, b.company, b.period, b.day("03-17")); err == nil {
		t.Fatal("the database took a draft into a locked period")
	}
	// Nothing closes before the year has ended; then closing needs the
	// year-end first.
	b.periodAction(b.period, "close", nil).errorCode(t, 409, "FISCAL_YEAR_NOT_ENDED")
	b.yearOver(t)
	b.periodAction(b.period, "close", nil).errorCode(t, 400, "YEAR_END_NOT_RUN")

	// Unlock: a dry run changes nothing; then for real.
	d := b.post(b.base+"/fiscal-periods/"+b.period+"/unlock?dry_run=true", b.token, nil, "Idempotency-Key", ik()).status(t, 200)
	if d.at("data.dry_run") != true || d.str("data.preview.state") != "open" {
		t.Fatalf("unlock preview: %s", d.Body)
	}
	r = b.periodAction(b.period, "unlock", nil).status(t, 200)
	if r.str("data.state") != "open" || r.at("data.locked_at") != nil {
		t.Fatalf("unlocked: %s", r.Body)
	}
	if n := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'period.unlocked'`, b.company); n != 1 {
		t.Fatalf("%d period.unlocked events", n)
	}
	b.periodAction(b.period, "unlock", nil).errorCode(t, 409, "PERIOD_UNLOCK_NOT_LOCKED")
	b.periodAction(b.period, "close", nil).errorCode(t, 400, "PERIOD_NOT_LOCKED")
	b.posted(t, "03-18")

	// A period of another company is not found.
	other := b.key("other@example.se", keySpec{})
	b.post(b.base+"/fiscal-periods/"+b.period+"/lock", other, nil, "Idempotency-Key", ik()).errorCode(t, 404, "NOT_FOUND")
}

func TestYearEnd(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	y1 := b.period
	end := b.day("12-31")

	// Opening balance by hand: share capital paid in to the bank account.
	ob := b.periodAction(y1, "opening-balances/manual", map[string]any{"lines": []map[string]any{
		{"account_number": "1930", "debit_amount": 25000}, {"account_number": "2081", "amount": -25000}}}).status(t, 201)
	if ob.at("data.voucher_number") != float64(1) || ob.str("data.voucher_series") != "IB" || ob.str("data.entry_date") != b.day("01-01") || ob.at("data.total_debit") != 25000.0 {
		t.Fatalf("opening balance: %s", ob.Body)
	}
	// A sale of 1000 + 250 VAT, a cost of 400 + 100 VAT, and a loss-making
	// cost on another account.
	b.entry(t, y1, b.day("03-15"), [3]any{"1930", 1250, 0}, [3]any{"3001", 0, 1000}, [3]any{"2611", 0, 250})
	b.entry(t, y1, b.day("05-10"), [3]any{"5410", 400, 0}, [3]any{"2641", 100, 0}, [3]any{"1930", 0, 500})
	b.entry(t, y1, b.day("06-30"), [3]any{"6110", 150.5, 0}, [3]any{"1930", 0, 150.5})

	// The year-end needs an ended year and a locked period.
	b.periodAction(y1, "year-end", nil).errorCode(t, 409, "FISCAL_YEAR_NOT_ENDED")
	b.yearOver(t)
	b.periodAction(y1, "year-end", nil).errorCode(t, 400, "PERIOD_NOT_LOCKED")
	b.periodAction(y1, "lock", nil).status(t, 200)

	r := b.periodAction(y1, "year-end", nil).status(t, 202)
	if r.str("data.type") != "fiscal_periods.year_end" || r.str("data.poll_url") != "/api/v1/operations/"+r.str("data.operation_id") ||
		r.str("data.webhook_event") != "operation.completed" {
		t.Fatalf("accepted: %s", r.Body)
	}
	op := b.operation(t, r.str("data.operation_id"))
	if op.str("data.status") != "succeeded" || op.at("data.error") != nil || op.at("data.completed_at") == nil {
		t.Fatalf("operation: %s", op.Body)
	}
	// Its end is announced, in the feed and to webhooks alike.
	if n := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'operation.completed'
		AND payload->>'operation_id' = $2 AND payload->>'status' = 'succeeded'`, b.company, r.str("data.operation_id")); n != 1 {
		t.Fatalf("%d operation.completed events", n)
	}
	res := "data.result."
	// Result: 1000 - 400 - 150.50 = 449.50 profit, to 2099.
	if op.at(res+"net_result") != 449.5 || op.str(res+"result_account") != "2099" || op.at(res+"next_period_created") != true ||
		op.at(res+"journal_entries_created") != float64(3) {
		t.Fatalf("result: %s", op.Body)
	}
	// The result is booked on 8999 Årets resultat against 2099; the
	// income-statement accounts keep their balances.
	closing := op.str(res + "closing_entry_id")
	sameLines(t, "closing entry", b.lines(t, closing), map[string]float64{"8999": 449.5, "2099": -449.5})
	c := b.get(b.base+"/journal-entries/"+closing, b.token).status(t, 200)
	if c.str("data.source_type") != "year_end" || c.str("data.entry_date") != end || c.at("data.voucher_number") != float64(4) {
		t.Fatalf("closing entry: %s", c.Body)
	}
	// Opening balance of the new year: 1930 = 25000 + 1250 - 500 - 150.50.
	y2 := op.str(res + "next_period_id")
	opening := op.str(res + "opening_entry_id")
	sameLines(t, "opening balance", b.lines(t, opening), map[string]float64{
		"1930": 25599.5, "2611": -250, "2641": 100, "2081": -25000, "2099": -449.5})
	o := b.get(b.base+"/journal-entries/"+opening, b.token).status(t, 200)
	if o.str("data.source_type") != "opening_balance" || o.str("data.fiscal_period_id") != y2 || o.at("data.voucher_number") != float64(1) ||
		o.str("data.voucher_series") != "IB" {
		t.Fatalf("opening entry: %s", o.Body)
	}
	// The result moves to 2091 Balanserad vinst as the new year starts.
	ap := op.str(res + "appropriation_entry_id")
	sameLines(t, "appropriation", b.lines(t, ap), map[string]float64{"2099": 449.5, "2091": -449.5})
	if a := b.get(b.base+"/journal-entries/"+ap, b.token).status(t, 200); a.str("data.source_type") != "result_appropriation" ||
		a.str("data.entry_date") != y2Start(b.year) || a.at("data.voucher_number") != float64(1) {
		t.Fatalf("appropriation entry: %s", a.Body)
	}
	p2 := b.get(b.base+"/fiscal-periods", b.token).status(t, 200)
	if p2.str("data.fiscal_periods.0.id") != y2 || p2.str("data.fiscal_periods.0.period_start")[5:] != "01-01" ||
		p2.str("data.fiscal_periods.0.previous_period_id") != y1 {
		t.Fatalf("next year: %s", p2.Body)
	}

	// Run again: nothing left to close.
	b.periodAction(y1, "year-end", nil).errorCode(t, 409, "YEAR_END_ALREADY_RUN")
	// The next year cannot run its year-end while this one is open (even
	// once it has ended).
	b.clock.set(time.Date(b.clock.now().Year()+1, time.January, 15, 0, 0, 0, 0, time.UTC))
	b.periodAction(y2, "lock", nil).status(t, 200)
	b.periodAction(y2, "year-end", nil).errorCode(t, 400, "YEAR_END_PRIOR_PERIOD_OPEN")
	b.periodAction(y2, "unlock", nil).status(t, 200)

	// Close, for good.
	cl := b.periodAction(y1, "close", nil).status(t, 200)
	if cl.str("data.state") != "closed" || cl.at("data.is_closed") != true || cl.at("data.closed_at") == nil {
		t.Fatalf("closed: %s", cl.Body)
	}
	if n := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'period.year_closed'`, b.company); n != 1 {
		t.Fatalf("%d period.year_closed events", n)
	}
	if n := b.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND action = 'CLOSE_PERIOD'`, b.company); n != 1 {
		t.Fatalf("%d CLOSE_PERIOD audit rows", n)
	}
	b.periodAction(y1, "close", nil).errorCode(t, 409, "PERIOD_ALREADY_CLOSED")
	b.periodAction(y1, "unlock", nil).errorCode(t, 409, "PERIOD_UNLOCK_CLOSED")
	b.periodAction(y1, "lock", nil).status(t, 200) // already final: answered as it is
	b.periodAction(y1, "year-end", nil).errorCode(t, 409, "PERIOD_ALREADY_CLOSED")
	b.periodAction(y1, "opening-balances/manual", map[string]any{"lines": []map[string]any{
		{"account_number": "1930", "debit_amount": 1}, {"account_number": "2081", "credit_amount": 1}}}).
		errorCode(t, 400, "OB_PERIOD_CLOSED")
	if _, err := b.db.Exec(`UPDATE fiscal_periods SET locked_at = NULL WHERE id = $1`, y1); err == nil {
		t.Fatal("the database reopened a closed year")
	}
	// The new year's opening balance is the closed year's closing
	// balance: nothing replaces it by hand.
	b.periodAction(y2, "opening-balances/manual", map[string]any{"lines": []map[string]any{
		{"account_number": "1930", "debit_amount": 1}, {"account_number": "2081", "credit_amount": 1}}}).
		errorCode(t, 409, "OB_PREVIOUS_YEAR_CLOSED")

	// Another company's key does not see the operation.
	other := b.key("other@example.se", keySpec{})
	b.get("/api/v1/operations/"+r.str("data.operation_id"), other).errorCode(t, 404, "OPERATION_NOT_FOUND")
	b.get("/api/v1/operations/"+ik(), b.token).errorCode(t, 404, "OPERATION_NOT_FOUND")
}

func TestYearEndRefusals(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	y1 := b.period
	// Nothing posted: no year-end.
	b.periodAction(y1, "lock", nil).status(t, 200)
	b.periodAction(y1, "year-end", nil).errorCode(t, 409, "FISCAL_YEAR_NOT_ENDED")
	b.yearOver(t)
	b.periodAction(y1, "year-end", nil).errorCode(t, 409, "YEAR_END_NO_ACTIVITY")
	b.periodAction(y1, "unlock", nil).status(t, 200)

	// The next year got an opening balance by hand while this year was
	// still empty.
	next := b.post(b.base+"/fiscal-periods", b.token, map[string]any{"period_start": nextYear(b.year) + "-01-01",
		"period_end": nextYear(b.year) + "-12-31"}, "Idempotency-Key", ik()).status(t, 201).str("data.fiscal_period.id")
	manual := map[string]any{"lines": []map[string]any{
		{"account_number": "1930", "debit_amount": 100}, {"account_number": "2081", "credit_amount": 100}}}
	ib := b.periodAction(next, "opening-balances/manual", manual).status(t, 201).str("data.journal_entry_id")
	// Now this year has bookkeeping: its year-end sets the next opening
	// balance, not a hand nor a storno.
	b.posted(t, "02-01")
	b.periodAction(next, "opening-balances/manual", manual).errorCode(t, 409, "OB_PREVIOUS_YEAR_IN_BOOKS")
	b.action(ib, "reverse", map[string]any{"reversal_date": nextYear(b.year) + "-01-01"}).errorCode(t, 409, "OB_PREVIOUS_YEAR_IN_BOOKS")
	b.periodAction(y1, "lock", nil).status(t, 200)
	op := b.operation(t, b.periodAction(y1, "year-end", nil).status(t, 202).str("data.operation_id"))
	if op.str("data.status") != "succeeded" || op.at("data.result.next_period_created") != false || op.str("data.result.next_period_id") != next ||
		op.str("data.result.replaced_entry_ids.0") != ib {
		t.Fatalf("year-end: %s", op.Body)
	}
	// Posting after the year-end (unlocked meanwhile) makes it stale.
	b.periodAction(y1, "unlock", nil).status(t, 200)
	b.posted(t, "11-30")
	b.periodAction(y1, "lock", nil).status(t, 200)
	cl := b.periodAction(y1, "close", nil).errorCode(t, 400, "YEAR_END_NOT_RUN")
	if cl.str("error.details.reason") != "result_changed_after_year_end" {
		t.Fatalf("stale year-end: %s", cl.Body)
	}
}

// A second year-end of a period is refused while the first is queued; the
// queued one answers queued, with nothing started.
func TestYearEndInProgress(t *testing.T) {
	t.Parallel()
	b := newLedger(t, idleWorkers())
	b.yearOver(t)
	b.posted(t, "02-01")
	b.periodAction(b.period, "lock", nil).status(t, 200)
	r := b.periodAction(b.period, "year-end", nil).status(t, 202)
	if r.str("data.status") != "queued" || r.at("data.started_at") != nil || r.at("data.result") != nil {
		t.Fatalf("queued: %s", r.Body)
	}
	c := b.periodAction(b.period, "year-end", nil).errorCode(t, 409, "CONFLICT")
	if c.str("error.details.reason") != "year_end_in_progress" || c.str("error.details.operation_id") != r.str("data.operation_id") {
		t.Fatalf("in progress: %s", c.Body)
	}
	if got := b.get("/api/v1/operations/"+r.str("data.operation_id"), b.token).status(t, 200).str("data.status"); got != "queued" {
		t.Fatalf("status %s", got)
	}
}

// y2Start is the first day of the year after y.
func y2Start(y string) string { return nextYear(y) + "-01-01" }

func nextYear(y string) string {
	t, _ := time.Parse("2006", y)
	return t.AddDate(1, 0, 0).Format("2006")
}

func TestManualOpeningBalances(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	ob := func(lines ...map[string]any) *response {
		return b.periodAction(b.period, "opening-balances/manual", map[string]any{"lines": lines})
	}
	l := func(acct string, k string, v float64) map[string]any {
		return map[string]any{"account_number": acct, k: v}
	}

	r := ob(l("1930", "debit_amount", 100), l("3001", "credit_amount", 100)).errorCode(t, 400, "OB_PNL_ACCOUNT")
	if r.str("error.details.field") != "lines[1].account_number" {
		t.Fatalf("details: %s", r.Body)
	}
	ob(l("1930", "debit_amount", 100), l("9999", "credit_amount", 100)).errorCode(t, 400, "OB_NON_BALANCE_SHEET_ACCOUNT")
	r = ob(l("1930", "debit_amount", 100), l("2081", "credit_amount", 90)).errorCode(t, 400, "OB_UNBALANCED")
	if r.at("error.details.diff") != float64(10) {
		t.Fatalf("diff: %s", r.Body)
	}
	ob(map[string]any{"account_number": "1930", "debit_amount": 100, "amount": 100}, l("2081", "credit_amount", 100)).
		errorCode(t, 400, "VALIDATION_ERROR")

	d := b.post(b.base+"/fiscal-periods/"+b.period+"/opening-balances/manual?dry_run=true", b.token,
		map[string]any{"lines": []map[string]any{l("1930", "debit_amount", 100), l("2081", "amount", -100)}},
		"Idempotency-Key", ik()).status(t, 200)
	if d.at("data.dry_run") != true || d.at("data.preview.lines_created") != float64(2) {
		t.Fatalf("dry run: %s", d.Body)
	}
	if n := b.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1`, b.company); n != 0 {
		t.Fatalf("the dry run stored %d entries", n)
	}

	// The company lock date reaches into the period.
	b.patch(b.base+"/settings/bookkeeping-lock", b.token, map[string]any{"bookkeeping_locked_through": b.day("01-31")}).status(t, 200)
	ob(l("1930", "debit_amount", 100), l("2081", "credit_amount", 100)).errorCode(t, 409, "OB_SET_COMPANY_LOCK_DATE")
	b.patch(b.base+"/settings/bookkeeping-lock", b.token, map[string]any{"bookkeeping_locked_through": nil}).status(t, 200)

	r = ob(l("1930", "debit_amount", 100), l("2081", "credit_amount", 100)).status(t, 201)
	first := r.str("data.journal_entry_id")
	e := b.get(b.base+"/journal-entries/"+first, b.token).status(t, 200)
	if e.str("data.source_type") != "opening_balance" || e.str("data.status") != "posted" || e.str("data.entry_date") != b.day("01-01") {
		t.Fatalf("entry: %s", e.Body)
	}
	r = ob(l("1930", "debit_amount", 100), l("2081", "credit_amount", 100)).errorCode(t, 409, "OB_PERIOD_ALREADY_HAS_BALANCES")
	if r.str("error.details.existing_entry_id") != first {
		t.Fatalf("existing: %s", r.Body)
	}
	b.periodAction(b.period, "lock", nil).status(t, 200)
	ob(l("1930", "debit_amount", 100), l("2081", "credit_amount", 100)).errorCode(t, 400, "OB_PERIOD_LOCKED")
}
