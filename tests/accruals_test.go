package tests

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/httpapi"
)

// accrualYear is a company whose first year is 2026, with a supplier
// invoice of 12 000 + 3 000 insurance for July 2026 to June 2027 (1 000 a
// month, 6310 via 1730) registered on 15 December, dated 10 December: July
// to November ended before the invoice date and are booked with the
// registration, on 10 December (5 000); December's month waits for 31
// December. The clock is then moved to 20 January 2027.
func accrualYear(t *testing.T) (*buyerBooks, *ledgerBooks) {
	t.Helper()
	c := &movingClock{}
	c.set(time.Date(2026, 12, 15, 0, 0, 0, 0, time.UTC))
	b := newBuyerBooksAt(t, c.now)
	r := b.register(b.se, "F-2026-12", map[string]any{"invoice_date": "2026-12-10", "due_date": "2027-01-09"},
		map[string]any{"description": "Företagsförsäkring 2026/27", "amount": 12000, "account_number": "6310",
			"accrual_period_start": "2026-07-01", "accrual_period_end": "2027-06-30"}).status(t, 201)
	wantLines(t, "prepaid", r, "data.verifikat_lines", "D 1730 12000.00", "D 2641 3000.00", "C 2440 15000.00")
	if b.exact("6310") != "5000.00" || b.exact("1730") != "7000.00" {
		t.Fatalf("at registration: 6310 %s 1730 %s", b.exact("6310"), b.exact("1730"))
	}
	if n := b.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1 AND source_type = 'accrual'
		AND entry_date = '2026-12-10'`, b.company); n != 1 {
		t.Fatalf("%d releases on the invoice date", n)
	}
	c.set(time.Date(2027, 1, 20, 0, 0, 0, 0, time.UTC))
	return b, yearOf(t, b.partiesBooks, c)
}

// A month waiting in the year refuses its lock, naming it; the lock that
// releases it books it on 31 December, and 1730 keeps only 2027's six
// months. The year-end then runs and 2027 opens with 1730 at 6 000.
func TestAccrualsPendingAtLock(t *testing.T) {
	t.Parallel()
	b, l := accrualYear(t)
	period := l.period
	action := func(what string, body any) *response { return l.periodAction(period, what, body) }
	readiness := func() *response {
		return b.get(b.path("compliance/check?type=year_end_readiness&fiscal_period_id="+period), b.token).status(t, 200)
	}
	if c := readiness(); c.at("data.ready") != false || !strings.Contains(string(c.Body), `"code":"ACCRUALS_PENDING"`) {
		t.Fatalf("readiness with a month waiting: %s", c.Body)
	}
	// A lock date over the waiting month is refused too; one before it
	// is not.
	lockDate := func(day string) *response {
		return b.write("PATCH", "settings/bookkeeping-lock", map[string]any{"bookkeeping_locked_through": day})
	}
	if r := lockDate("2026-12-31").errorCode(t, 409, "ACCRUALS_PENDING"); r.str("error.details.action") != "lock_date" {
		t.Fatalf("lock date: %s", r.Body)
	}
	lockDate("2026-12-30").status(t, 200)
	r := action("lock", nil).errorCode(t, 409, "ACCRUALS_PENDING")
	if r.at("error.details.count") != 1.0 || r.str("error.details.months.0.kind") != "supplier_invoice" ||
		r.str("error.details.months.0.month") != "2026-12" || r.str("error.details.months.0.release_date") != "2026-12-31" ||
		r.at("error.details.months.0.amount") != 1000.0 || r.str("error.details.months.0.invoice_number") != "F-2026-12" {
		t.Fatalf("pending: %s", r.Body)
	}
	if b.exact("1730") != "7000.00" {
		t.Fatal("a refused lock booked something")
	}
	action("lock", map[string]any{"release_accruals": true}).status(t, 200)
	if b.exact("6310") != "6000.00" || b.exact("1730") != "6000.00" {
		t.Fatalf("after the lock: 6310 %s 1730 %s", b.exact("6310"), b.exact("1730"))
	}
	if n := b.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1 AND source_type = 'accrual'
		AND entry_date = '2026-12-31'`, b.company); n != 1 {
		t.Fatalf("%d releases on 31 December", n)
	}
	if c := readiness(); strings.Contains(string(c.Body), `"code":"ACCRUALS_PENDING"`) {
		t.Fatalf("readiness after the release: %s", c.Body)
	}
	if op := l.operation(t, action("year-end", nil).status(t, 202).str("data.operation_id")); op.str("data.status") != "succeeded" {
		t.Fatalf("year-end: %s", op.Body)
	}
	ib := b.count(`SELECT coalesce(sum(l.debit_amount - l.credit_amount), 0)::int FROM journal_lines l
		JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.journal_entry_id
		WHERE l.company_id = $1 AND e.source_type = 'opening_balance' AND l.account_number = '1730'`, b.company)
	if ib != 6000 {
		t.Fatalf("2027 opens with 1730 at %d", ib)
	}
}

// A year locked before the rule (the lock forged here) with a month
// waiting: its year-end is refused with ACCRUALS_PENDING, the release
// job cannot book into the locked year, and the year-end that releases
// books the month on 31 December inside the locked year, before its
// closing entry: 6310 carries 6 000 into the year's result.
func TestAccrualsReleasedByYearEnd(t *testing.T) {
	t.Parallel()
	b, l := accrualYear(t)
	period := l.period
	forge(t, l, `UPDATE fiscal_periods SET locked_at = now() WHERE id = '`+period+`'`)
	yearEnd := func(body any) *response { return l.periodAction(period, "year-end", body) }
	yearEnd(nil).errorCode(t, 409, "ACCRUALS_PENDING")
	// The job's refusal is kept on the month and announced once, in the
	// feed; a second run refused again announces nothing more.
	for range 2 {
		if n, refused, err := b.server.ReleaseAccruals(t.Context()); n != 0 || len(refused) != 1 || err != nil {
			t.Fatalf("the job in a locked year: %d %v %v", n, refused, err)
		}
	}
	refused := b.get(b.path("accruals?state=refused"), b.token).status(t, 200)
	if len(refused.list("data")) != 1 || refused.str("data.0.month") != "2026-12" ||
		refused.str("data.0.refused_code") != "PERIOD_LOCKED" || refused.at("data.0.refused_at") == nil {
		t.Fatalf("refused: %s", refused.Body)
	}
	if n := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'accrual.release_refused'`,
		b.company); n != 1 {
		t.Fatalf("%d announcements of the refusal", n)
	}
	// Its payload, as the feed will carry it, is the document's.
	var raw []byte
	if err := b.db.Get(&raw, `SELECT payload FROM events WHERE company_id = $1 AND type = 'accrual.release_refused'`,
		b.company); err != nil {
		t.Fatal(err)
	}
	var o map[string]any
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatal(err)
	}
	if err := b.doc.Components.Schemas["AccrualReleaseRefusedPayload"].Value.VisitJSON(o); err != nil {
		t.Fatalf("the payload against the document: %v", err)
	}
	if o["code"] != "PERIOD_LOCKED" || o["release_date"] != "2026-12-31" || fmt.Sprint(o["months"]) != "[2026-12]" ||
		o["amount"] != 1000.0 || o["invoice_number"] != "F-2026-12" || o["kind"] != "supplier_invoice" {
		t.Fatalf("the announcement: %v", o)
	}
	r := b.do(req{Method: "POST", Path: b.path("accruals/release"), Token: b.token,
		Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if r.at("data.verifikat_posted") != 0.0 || len(r.list("data.released")) != 0 || r.str("data.still_waiting.0.month") != "2026-12" {
		t.Fatalf("a release into the locked year: %s", r.Body)
	}
	op := l.operation(t, yearEnd(map[string]any{"release_accruals": true}).status(t, 202).str("data.operation_id"))
	if op.str("data.status") != "succeeded" {
		t.Fatalf("year-end: %s", op.Body)
	}
	if in2026 := b.count(`SELECT coalesce(sum(l.debit_amount - l.credit_amount), 0)::int FROM journal_lines l
		JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.journal_entry_id
		WHERE l.company_id = $1 AND e.fiscal_period_id = $2 AND e.status = 'posted' AND l.account_number = '1730'`,
		b.company, period); in2026 != 6000 {
		t.Fatalf("1730 %d at the end of 2026", in2026)
	}
	closing := b.count(`SELECT coalesce(sum(l.debit_amount - l.credit_amount), 0)::int FROM journal_lines l
		JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.journal_entry_id
		WHERE l.company_id = $1 AND e.source_type = 'year_end' AND l.account_number = '8999'`, b.company)
	if closing != -6000 { // the result, a loss of 6 000, closed from 8999
		t.Fatalf("the closing entry books %d on 8999", closing)
	}
}

// The months of the insurance listed on 20 January 2027: July to November
// released on 10 December, December due, January to June scheduled; in
// pages of five, in release-date order. A dry run of the release lists
// December and books nothing; the release books it on 31 December; a day
// after today is refused.
func TestAccrualsListAndRelease(t *testing.T) {
	t.Parallel()
	b, _ := accrualYear(t)
	list := func(q string) *response { return b.get(b.path("accruals"+q), b.token).status(t, 200) }
	months := func(r *response) string {
		var out []string
		for _, m := range r.list("data") {
			m := m.(map[string]any)
			out = append(out, m["month"].(string)[5:]+":"+m["state"].(string))
		}
		return strings.Join(out, " ")
	}
	p1 := list("?limit=5")
	p2 := list("?limit=5&cursor=" + url.QueryEscape(p1.str("meta.next_cursor")))
	p3 := list("?limit=5&cursor=" + url.QueryEscape(p2.str("meta.next_cursor")))
	if got := months(p1) + " | " + months(p2) + " | " + months(p3); got != "07:released 08:released 09:released 10:released "+
		"11:released | 12:due 01:scheduled 02:scheduled 03:scheduled 04:scheduled | 05:scheduled 06:scheduled" ||
		p3.at("meta.next_cursor") != nil {
		t.Fatalf("pages: %s", got)
	}
	due := list("?state=due")
	if len(due.list("data")) != 1 || due.str("data.0.release_date") != "2026-12-31" || due.at("data.0.amount") != 1000.0 ||
		due.str("data.0.balance_account") != "1730" || due.str("data.0.account") != "6310" ||
		due.str("data.0.kind") != "supplier_invoice" || due.at("data.0.journal_entry_id") != nil {
		t.Fatalf("due: %s", due.Body)
	}
	if r := list("?kind=invoice"); len(r.list("data")) != 0 {
		t.Fatalf("customer invoices' months: %s", r.Body)
	}

	release := func(q string, body any) *response {
		return b.do(req{Method: "POST", Path: b.path("accruals/release" + q), Token: b.token, Body: body,
			Header: map[string]string{"Idempotency-Key": newKey()}})
	}
	r := release("", map[string]any{"through": "2027-01-21"}).errorCode(t, 400, "VALIDATION_ERROR")
	if f := fmt.Sprint(r.issueFields()); f != "[body:through:not_after_today]" {
		t.Fatalf("a day after today: %s", f)
	}
	dry := release("?dry_run=true", nil).status(t, 200)
	if dry.at("data.preview.verifikat_posted") != 1.0 || dry.str("data.preview.released.0.month") != "2026-12" ||
		len(dry.list("data.preview.still_waiting")) != 0 || b.exact("1730") != "7000.00" {
		t.Fatalf("dry run: %s (1730 %s)", dry.Body, b.exact("1730"))
	}
	done := release("", map[string]any{"through": "2026-12-31"}).status(t, 200)
	if done.at("data.verifikat_posted") != 1.0 || done.str("data.released.0.release_date") != "2026-12-31" ||
		b.exact("1730") != "6000.00" || b.exact("6310") != "6000.00" {
		t.Fatalf("release: %s (1730 %s)", done.Body, b.exact("1730"))
	}
	if r := list("?state=released"); len(r.list("data")) != 6 || r.at("data.5.journal_entry_id") == nil {
		t.Fatalf("released: %s", r.Body)
	}
	if r := list("?state=due"); len(r.list("data")) != 0 {
		t.Fatalf("still due: %s", r.Body)
	}
}

// More months waiting than a request books itself are booked by an
// operation: 202, and its result is what the request would have
// answered.
func TestAccrualsReleaseAsOperation(t *testing.T) {
	t.Parallel()
	c := &movingClock{}
	c.set(time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC))
	b := newBuyerBooksAt(t, c.now, func(cfg *httpapi.Config) { cfg.AccrualsAtOnce = 5 })
	for _, n := range []string{"F-1", "F-2"} { // 2 × 3 months, none due at registration
		b.register(b.se, n, map[string]any{"invoice_date": "2026-01-05", "due_date": "2026-02-04"},
			map[string]any{"description": "Hyra", "amount": 3000, "account_number": "5010",
				"accrual_period_start": "2026-01-01", "accrual_period_end": "2026-03-31"}).status(t, 201)
	}
	c.set(time.Date(2026, 4, 10, 0, 0, 0, 0, time.UTC))
	l := &ledgerBooks{env: b.env, token: b.token}
	r := b.do(req{Method: "POST", Path: b.path("accruals/release"), Token: b.token,
		Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 202)
	op := l.operation(t, r.str("data.operation_id"))
	if op.str("data.status") != "succeeded" || op.str("data.type") != "accruals.release" ||
		op.at("data.result.verifikat_posted") != 6.0 || len(op.list("data.result.released")) != 6 ||
		b.exact("5010") != "6000.00" || b.exact("1710") != "0.00" {
		t.Fatalf("the operation: %s (5010 %s)", op.Body, b.exact("5010"))
	}
}
