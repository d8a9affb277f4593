package tests

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/store"
)

// ledgerBooks is a company with its first fiscal period, and a key to it.
type ledgerBooks struct {
	*env
	token, base, period, year string
	company                   uuid.UUID
	// clock is the server's clock, which the test may move on (nil for
	// books made otherwise).
	clock *movingClock
}

// movingClock is a server clock a test moves: the wall clock shifted.
type movingClock struct{ shift atomic.Int64 }

func (c *movingClock) now() time.Time { return time.Now().Add(time.Duration(c.shift.Load())) }

// option puts c on a server; a later clock option wins over it.
func (c *movingClock) option() option { return clock(c.now) }

// set moves the clock to midday (UTC) of day, from where it runs on.
func (c *movingClock) set(day time.Time) {
	c.shift.Store(int64(time.Until(day.Truncate(24 * time.Hour).Add(12 * time.Hour))))
}

func newLedger(t *testing.T, opts ...option) *ledgerBooks {
	return newLedgerAt(t, &movingClock{}, opts...)
}

// newLedgerAt is newLedger on the clock c.
func newLedgerAt(t *testing.T, c *movingClock, opts ...option) *ledgerBooks {
	b := ledgerOn(t, newEnv(t, append([]option{c.option()}, opts...)...))
	b.clock = c
	return b
}

// yearOver moves the server's clock to 15 January of the year after the
// books' year: the year has ended, so its year-end and close may run.
func (b *ledgerBooks) yearOver(t *testing.T) {
	t.Helper()
	y, err := strconv.Atoi(b.year)
	if err != nil || b.clock == nil {
		t.Fatalf("books of year %q on clock %v", b.year, b.clock)
	}
	b.clock.set(time.Date(y+1, time.January, 15, 0, 0, 0, 0, time.UTC))
}

// newLedgerOn is newLedger on the database d.
func newLedgerOn(t *testing.T, d *store.DB, opts ...option) *ledgerBooks {
	return ledgerOn(t, envOn(t, d, opts...))
}

func ledgerOn(t *testing.T, e *env) *ledgerBooks {
	owner := e.key("owner@example.se", keySpec{})
	company := e.company(owner, "Verifikat AB")
	base := "/api/v1/companies/" + company.String()
	r := e.get(base+"/fiscal-periods", owner).status(t, 200)
	return &ledgerBooks{env: e, token: owner, base: base, company: company,
		period: r.str("data.fiscal_periods.0.id"), year: r.str("data.fiscal_periods.0.period_start")[:4]}
}

func ik() string { return uuid.NewString() }

// day is a date of the books' year: "03-15" -> "2026-03-15".
func (b *ledgerBooks) day(md string) string { return b.year + "-" + md }

// sale is a balanced cash sale of 1250 with 25 % VAT on day md.
func (b *ledgerBooks) sale(md string) map[string]any {
	return map[string]any{"fiscal_period_id": b.period, "entry_date": b.day(md), "description": "Kontantförsäljning",
		"lines": []map[string]any{
			{"account_number": "1930", "debit_amount": 1250},
			{"account_number": "3001", "credit_amount": 1000},
			{"account_number": "2611", "credit_amount": 250},
		}}
}

func (b *ledgerBooks) create(body any) *response {
	return b.post(b.base+"/journal-entries", b.token, body, "Idempotency-Key", ik())
}

func (b *ledgerBooks) action(id, what string, body any) *response {
	return b.post(b.base+"/journal-entries/"+id+"/"+what, b.token, body, "Idempotency-Key", ik())
}

// posted creates and commits a sale, returning its id.
func (b *ledgerBooks) posted(t *testing.T, md string) string {
	t.Helper()
	id := b.create(b.sale(md)).status(t, 201).str("data.id")
	b.action(id, "commit", nil).status(t, 200)
	return id
}

func TestJournalEntryLifecycle(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	je := b.base + "/journal-entries"

	// Idempotency-Key is mandatory on create.
	b.post(je, b.token, b.sale("03-15")).errorCode(t, 400, "VALIDATION_ERROR")
	// A dry run answers the draft and stores nothing.
	p := b.post(je+"?dry_run=true", b.token, b.sale("03-15"), "Idempotency-Key", ik()).status(t, 200)
	if p.at("data.dry_run") != true || p.at("data.preview.voucher_number") != float64(0) || p.at("data.preview.total_debit") != 1250.0 {
		t.Fatalf("preview: %s", p.Body)
	}
	if n := b.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1`, b.company); n != 0 {
		t.Fatalf("dry run stored %d entries", n)
	}

	r := b.create(b.sale("03-15")).status(t, 201)
	id := r.str("data.id")
	if r.str("data.status") != "draft" || r.at("data.voucher_number") != float64(0) || len(r.list("data.lines")) != 3 {
		t.Fatalf("draft: %s", r.Body)
	}
	// Replace the draft's lines.
	upd := b.sale("03-16")
	upd["lines"] = []map[string]any{{"account_number": "1930", "debit_amount": 500}, {"account_number": "3990", "credit_amount": 500}}
	r = b.patch(je+"/"+id, b.token, upd).status(t, 200)
	if r.str("data.entry_date") != b.day("03-16") || len(r.list("data.lines")) != 2 || r.str("data.lines.1.account_number") != "3990" {
		t.Fatalf("patched: %s", r.Body)
	}
	// 3990 was not in the seeded chart: the ledger added it from BAS.
	b.get(b.base+"/accounts?class=3", b.token).status(t, 200)
	if n := b.count(`SELECT count(*) FROM accounts WHERE company_id = $1 AND account_number = '3990'`, b.company); n != 1 {
		t.Fatal("3990 not added to the chart")
	}

	// A commit dry run shows the number it would take, and takes none.
	c := b.post(je+"/"+id+"/commit?dry_run=true", b.token, nil, "Idempotency-Key", ik()).status(t, 200)
	if c.at("data.preview.voucher_number") != float64(1) || c.str("data.preview.status") != "posted" {
		t.Fatalf("commit preview: %s", c.Body)
	}
	c = b.action(id, "commit", nil).status(t, 200)
	if c.at("data.voucher_number") != float64(1) || c.str("data.status") != "posted" || c.at("meta.audit.voucher_number") != float64(1) {
		t.Fatalf("committed: %s", c.Body)
	}
	b.action(id, "commit", nil).errorCode(t, 409, "JOURNAL_ENTRY_NOT_DRAFT")
	b.patch(je+"/"+id, b.token, upd).errorCode(t, 409, "CANNOT_EDIT_NON_DRAFT")
	b.do(req{Method: "DELETE", Path: je + "/" + id, Token: b.token}).errorCode(t, 409, "CANNOT_CANCEL_NON_DRAFT")

	// A cancelled draft leaves no gap: the next commit takes 2.
	d := b.create(b.sale("04-01")).status(t, 201).str("data.id")
	x := b.do(req{Method: "DELETE", Path: je + "/" + d, Token: b.token}).status(t, 200)
	if x.str("data.status") != "cancelled" {
		t.Fatalf("cancelled: %s", x.Body)
	}
	b.do(req{Method: "DELETE", Path: je + "/" + d, Token: b.token}).status(t, 200)
	b.action(d, "commit", nil).errorCode(t, 409, "JOURNAL_ENTRY_NOT_DRAFT")
	next := b.posted(t, "04-02")
	if got := b.get(je+"/"+next, b.token).status(t, 200).at("data.voucher_number"); got != float64(2) {
		t.Fatalf("after a cancelled draft: %v", got)
	}

	// The list: newest first, cancelled left out unless asked for.
	l := b.get(je, b.token).status(t, 200)
	if n := len(l.list("data.journal_entries")); n != 2 {
		t.Fatalf("list: %s", l.Body)
	}
	if n := len(b.get(je+"?status=cancelled", b.token).status(t, 200).list("data.journal_entries")); n != 1 {
		t.Fatal("cancelled filter")
	}
	l = b.get(je+"?limit=1", b.token).status(t, 200)
	if l.str("data.journal_entries.0.id") != next || l.at("meta.next_cursor") == nil {
		t.Fatalf("page 1: %s", l.Body)
	}
	l = b.get(je+"?limit=1&cursor="+l.str("meta.next_cursor"), b.token).status(t, 200)
	if l.str("data.journal_entries.0.id") != id {
		t.Fatalf("page 2: %s", l.Body)
	}
	if n := len(b.get(je+"?date_from="+b.day("04-01"), b.token).status(t, 200).list("data.journal_entries")); n != 1 {
		t.Fatal("date filter")
	}
	if n := len(b.get(je+"?fiscal_period_id="+b.period, b.token).status(t, 200).list("data.journal_entries")); n != 2 {
		t.Fatal("period filter")
	}
	if n := len(b.get(je+"?fiscal_period_id="+uuid.NewString(), b.token).status(t, 200).list("data.journal_entries")); n != 0 {
		t.Fatal("another period's filter")
	}

	// Committing announced and audited it.
	if n := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'journal_entry.committed'`, b.company); n != 2 {
		t.Fatalf("%d committed events", n)
	}
	if n := b.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND action = 'COMMIT'`, b.company); n != 2 {
		t.Fatalf("%d COMMIT audit rows", n)
	}
}

func TestJournalEntryRules(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	je := b.base + "/journal-entries"
	bad := func(mutate func(map[string]any), status int, code string) *response {
		t.Helper()
		body := b.sale("03-15")
		mutate(body)
		return b.create(body).errorCode(t, status, code)
	}
	lines := func(ls ...map[string]any) func(map[string]any) {
		return func(m map[string]any) { m["lines"] = ls }
	}
	r := bad(lines(map[string]any{"account_number": "1930", "debit_amount": 100}, map[string]any{"account_number": "3001", "credit_amount": 99.99}),
		400, "JOURNAL_ENTRY_NOT_BALANCED")
	if r.at("error.details.total_debit") != 100.0 || r.at("error.details.total_credit") != 99.99 {
		t.Fatalf("details: %s", r.Body)
	}
	bad(lines(map[string]any{"account_number": "1930", "debit_amount": -100}, map[string]any{"account_number": "3001", "credit_amount": -100}),
		400, "JOURNAL_LINE_NEGATIVE_AMOUNT")
	bad(lines(map[string]any{"account_number": "1930", "debit_amount": 100, "credit_amount": 100}, map[string]any{"account_number": "3001", "credit_amount": 0.01}),
		400, "JOURNAL_LINE_BOTH_SIDES_NONZERO")
	bad(lines(map[string]any{"account_number": "1930"}, map[string]any{"account_number": "3001"}), 400, "VALIDATION_ERROR")
	bad(func(m map[string]any) { m["entry_date"] = fmt.Sprintf("%d-01-01", atoi(b.year)+1) }, 400, "ENTRY_DATE_OUTSIDE_FISCAL_PERIOD")
	bad(func(m map[string]any) { m["fiscal_period_id"] = uuid.NewString() }, 404, "PERIOD_NOT_FOUND")
	bad(func(m map[string]any) { m["source_type"] = "year_end" }, 400, "VALIDATION_ERROR")
	bad(func(m map[string]any) { m["voucher_series"] = "aa" }, 400, "VALIDATION_ERROR")
	r = bad(lines(map[string]any{"account_number": "1930", "debit_amount": 100}, map[string]any{"account_number": "3986", "credit_amount": 100}),
		400, "ACCOUNTS_NOT_IN_CHART")
	if fmt.Sprint(r.at("error.details.unknown")) != "[3986]" {
		t.Fatalf("unknown accounts: %s", r.Body)
	}
	// The dry run resolves accounts against the chart like the live call.
	body := b.sale("03-15")
	body["lines"] = []map[string]any{{"account_number": "1930", "debit_amount": 100}, {"account_number": "3986", "credit_amount": 100}}
	b.post(je+"?dry_run=true", b.token, body, "Idempotency-Key", ik()).errorCode(t, 400, "ACCOUNTS_NOT_IN_CHART")
	// A deactivated account fails too.
	b.patch(b.base+"/accounts/3001", b.token, map[string]any{"is_active": false}).status(t, 200)
	bad(func(map[string]any) {}, 400, "ACCOUNTS_NOT_IN_CHART")
	b.patch(b.base+"/accounts/3001", b.token, map[string]any{"is_active": true}).status(t, 200)
	if n := b.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1`, b.company); n != 0 {
		t.Fatalf("refused entries stored: %d", n)
	}
	// A storno may undo lines on an account deactivated since; a new
	// posting on it may not.
	sold := b.posted(t, "03-14")
	b.patch(b.base+"/accounts/3001", b.token, map[string]any{"is_active": false}).status(t, 200)
	b.action(sold, "correct", map[string]any{"lines": []map[string]any{{"account_number": "1930", "debit_amount": 1000},
		{"account_number": "3001", "credit_amount": 1000}}}).errorCode(t, 400, "ACCOUNTS_NOT_IN_CHART")
	b.action(sold, "reverse", map[string]any{"reversal_date": b.day("03-14")}).status(t, 200)
	b.patch(b.base+"/accounts/3001", b.token, map[string]any{"is_active": true}).status(t, 200)

	// The company lock date refuses entries on or before it, with the reason.
	id := b.create(b.sale("03-15")).status(t, 201).str("data.id")
	b.patch(b.base+"/settings/bookkeeping-lock", b.token, map[string]any{"bookkeeping_locked_through": b.day("03-31")}).status(t, 200)
	r = b.create(b.sale("03-31")).errorCode(t, 400, "PERIOD_LOCKED")
	if r.str("error.details.reason") != "company_lock_date" {
		t.Fatalf("reason: %s", r.Body)
	}
	b.action(id, "commit", nil).errorCode(t, 400, "PERIOD_LOCKED")
	b.create(b.sale("04-01")).status(t, 201)

	// Unknown and other companies' entries answer 404.
	b.get(je+"/"+uuid.NewString(), b.token).errorCode(t, 404, "JOURNAL_ENTRY_NOT_FOUND")
	stranger := b.key("stranger@example.se", keySpec{})
	b.get(je+"/"+id, stranger).errorCode(t, 404, "NOT_FOUND")
	other := b.env.company(stranger, "Annat AB")
	b.get("/api/v1/companies/"+other.String()+"/journal-entries/"+id, stranger).errorCode(t, 404, "JOURNAL_ENTRY_NOT_FOUND")
}

func atoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

func TestStornoCorrectionAndRedate(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	je := b.base + "/journal-entries"
	id := b.posted(t, "03-15")

	r := b.action(id, "reverse", map[string]any{"reversal_date": b.day("03-20")}).status(t, 200)
	storno := r.str("data.reversal_id")
	if r.at("data.voucher_number") != float64(2) || r.str("data.entry_date") != b.day("03-20") {
		t.Fatalf("reversal: %s", r.Body)
	}
	s := b.get(je+"/"+storno, b.token).status(t, 200)
	if s.str("data.reverses_id") != id || s.str("data.source_type") != "storno" || s.at("data.lines.0.credit_amount") != 1250.0 {
		t.Fatalf("storno: %s", s.Body)
	}
	if b.get(je+"/"+id, b.token).str("data.reversed_by_id") != storno {
		t.Fatal("original not linked to its storno")
	}
	b.action(id, "reverse", nil).errorCode(t, 409, "ENTRY_ALREADY_REVERSED")
	r = b.action(storno, "correct-metadata", map[string]any{"description": "Ny"}).errorCode(t, 409, "JOURNAL_RATTELSE_REFUSED")
	if r.str("error.details.reason") != "storno_entry" {
		t.Fatalf("reason: %s", r.Body)
	}
	b.action(id, "strike-lines", map[string]any{"lines": []map[string]any{{"account_number": "1930", "debit_amount": 1},
		{"account_number": "3001", "credit_amount": 1}}}).errorCode(t, 409, "JOURNAL_RATTELSE_REFUSED")
	b.action(id, "correct", map[string]any{"lines": []map[string]any{{"account_number": "1930", "debit_amount": 1}, {"account_number": "3001", "credit_amount": 1}}}).
		errorCode(t, 409, "ENTRY_ALREADY_REVERSED")

	// Correct: storno plus replacement on the original's date.
	id2 := b.posted(t, "05-10")
	fix := map[string]any{"description": "Kontantförsäljning, rättad", "lines": []map[string]any{
		{"account_number": "1930", "debit_amount": 1500}, {"account_number": "3001", "credit_amount": 1200}, {"account_number": "2611", "credit_amount": 300}}}
	c := b.action(id2, "correct", fix).status(t, 200)
	if c.at("data.reversal_voucher_number") != float64(4) || c.at("data.corrected_voucher_number") != float64(5) {
		t.Fatalf("correction: %s", c.Body)
	}
	repl := b.get(je+"/"+c.str("data.corrected_id"), b.token).status(t, 200)
	if repl.str("data.correction_of_id") != id2 || repl.str("data.entry_date") != b.day("05-10") || repl.at("data.total_debit") != 1500.0 {
		t.Fatalf("replacement: %s", repl.Body)
	}
	// Correcting with the same lines and description changes nothing.
	id3 := b.posted(t, "05-11")
	same := map[string]any{"lines": b.sale("05-11")["lines"]}
	b.action(id3, "correct", same).errorCode(t, 400, "MEANINGLESS_CORRECTION")
	// The chain: a correction of a correction of a correction needs allow_deep_chain.
	amountFix := func(kr int, deep bool) map[string]any {
		return map[string]any{"allow_deep_chain": deep, "lines": []map[string]any{
			{"account_number": "1930", "debit_amount": kr}, {"account_number": "3001", "credit_amount": kr}}}
	}
	cur := c.str("data.corrected_id")
	cur = b.action(cur, "correct", amountFix(1600, false)).status(t, 200).str("data.corrected_id")
	b.action(cur, "correct", amountFix(1700, false)).errorCode(t, 409, "CORRECTION_CHAIN_TOO_DEEP")
	b.action(cur, "correct", amountFix(1700, true)).status(t, 200)

	// Redate: storno on the old date, copy on the new one.
	b.action(id3, "redate", map[string]any{"new_entry_date": b.day("05-11")}).errorCode(t, 400, "MEANINGLESS_CORRECTION")
	b.action(id3, "redate", map[string]any{"new_entry_date": fmt.Sprintf("%d-02-01", atoi(b.year)+1)}).errorCode(t, 400, "NO_OPEN_PERIOD_FOR_DATE")
	rd := b.action(id3, "redate", map[string]any{"new_entry_date": b.day("06-01")}).status(t, 200)
	copyEntry := b.get(je+"/"+rd.str("data.corrected_id"), b.token).status(t, 200)
	if copyEntry.str("data.entry_date") != b.day("06-01") || copyEntry.at("data.total_debit") != 1250.0 {
		t.Fatalf("redated copy: %s", copyEntry.Body)
	}
	if b.get(je+"/"+rd.str("data.reversal_id"), b.token).str("data.entry_date") != b.day("05-11") {
		t.Fatal("the storno of a redate is on the old date")
	}
	// A redate into a closed year is refused.
	next := fmt.Sprint(atoi(b.year) + 1)
	np := b.post(b.base+"/fiscal-periods", b.token, map[string]any{"period_start": next + "-01-01", "period_end": next + "-12-31"}).
		status(t, 201).str("data.fiscal_period.id")
	b.exec(`UPDATE fiscal_periods SET locked_at = now(), is_closed = true, closed_at = now(), closed_externally = true WHERE id = $1`, np) // a year closed outside Kontera
	b.action(b.posted(t, "06-10"), "redate", map[string]any{"new_entry_date": next + "-02-01"}).errorCode(t, 409, "TARGET_PERIOD_CLOSED")
	// A redate into a locked part of the books is refused.
	id4 := b.posted(t, "07-01")
	b.patch(b.base+"/settings/bookkeeping-lock", b.token, map[string]any{"bookkeeping_locked_through": b.day("06-30")}).status(t, 200)
	b.action(id4, "redate", map[string]any{"new_entry_date": b.day("06-15")}).errorCode(t, 409, "TARGET_PERIOD_LOCKED")
	// A reversal dry run takes no number.
	b.post(je+"/"+id4+"/reverse?dry_run=true", b.token, map[string]any{"reversal_date": b.day("07-02")}, "Idempotency-Key", ik()).status(t, 200)
	if n := b.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1 AND source_type = 'storno' AND entry_date = $2`,
		b.company, b.day("07-02")); n != 0 {
		t.Fatal("dry-run storno stored")
	}
	if n := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'journal_entry.corrected'`, b.company); n != 4 {
		t.Fatalf("%d corrected events", n)
	}
	if n := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'journal_entry.reversed'`, b.company); n != 1 {
		t.Fatalf("%d reversed events", n)
	}
}

func TestInlineRattelse(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	je := b.base + "/journal-entries"
	id := b.posted(t, "03-15")

	m := b.action(id, "correct-metadata", map[string]any{"description": "Kontantförsäljning 15 mars", "entry_date": b.day("03-16")}).status(t, 200)
	if m.at("data.changed") != true || m.str("data.old_description") != "Kontantförsäljning" || m.str("data.new_entry_date") != b.day("03-16") {
		t.Fatalf("metadata: %s", m.Body)
	}
	e := b.get(je+"/"+id, b.token).status(t, 200)
	if e.str("data.description") != "Kontantförsäljning 15 mars" || e.str("data.entry_date") != b.day("03-16") || e.at("data.voucher_number") != float64(1) {
		t.Fatalf("after rättelse: %s", e.Body)
	}
	b.action(id, "correct-metadata", map[string]any{"description": "Kontantförsäljning 15 mars"}).status(t, 200)
	if b.action(id, "correct-metadata", map[string]any{"description": "Kontantförsäljning 15 mars"}).at("data.changed") != false {
		t.Fatal("an unchanged value was logged")
	}
	b.action(id, "correct-metadata", map[string]any{"entry_date": fmt.Sprintf("%d-01-01", atoi(b.year)+1)}).
		errorCode(t, 409, "JOURNAL_RATTELSE_REFUSED")

	// Strike the 3001 line and book the sale on 3990 instead.
	lines := e.list("data.lines")
	var sales string
	for _, l := range lines {
		if l.(map[string]any)["account_number"] == "3001" {
			sales = l.(map[string]any)["id"].(string)
		}
	}
	b.action(id, "strike-lines", map[string]any{"strike_line_ids": []string{sales},
		"lines": []map[string]any{{"account_number": "3990", "credit_amount": 999}}}).errorCode(t, 400, "JOURNAL_ENTRY_NOT_BALANCED")
	b.action(id, "strike-lines", map[string]any{"strike_line_ids": []string{sales},
		"lines": []map[string]any{{"account_number": "3001", "credit_amount": 1000}}}).errorCode(t, 400, "MEANINGLESS_CORRECTION")
	s := b.action(id, "strike-lines", map[string]any{"strike_line_ids": []string{sales},
		"lines": []map[string]any{{"account_number": "3990", "credit_amount": 1000}}}).status(t, 200)
	if s.at("data.struck_count") != float64(1) || s.at("data.added_count") != float64(1) || s.at("data.total_credit") != 1250.0 {
		t.Fatalf("strike: %s", s.Body)
	}
	e = b.get(je+"/"+id, b.token).status(t, 200)
	if len(e.list("data.lines")) != 3 || e.at("data.voucher_number") != float64(1) {
		t.Fatalf("after strike: %s", e.Body)
	}
	var keep []string
	for _, l := range e.list("data.lines") {
		keep = append(keep, l.(map[string]any)["id"].(string))
	}
	r := b.action(id, "strike-lines", map[string]any{"strike_line_ids": keep[:2], "lines": []map[string]any{}}).
		errorCode(t, 409, "JOURNAL_RATTELSE_REFUSED")
	if r.str("error.details.reason") != "too_few_lines" {
		t.Fatalf("reason: %s", r.Body)
	}
	log := b.get(je+"/"+id+"/rattelse-log", b.token).status(t, 200)
	entries := log.list("data.entries")
	if len(entries) != 2 || log.str("data.entries.0.rattelse_type") != "lines" || log.str("data.entries.1.rattelse_type") != "metadata" ||
		log.str("data.entries.0.struck_lines.0.account_number") != "3001" || log.str("data.entries.0.actor") != "api_key" {
		t.Fatalf("log: %s", log.Body)
	}
	// The general ledger follows: 3001 has nothing left, 3990 has the sale.
	if n := b.count(`SELECT count(*) FROM ledger_postings WHERE company_id = $1 AND account_number = '3001'`, b.company); n != 0 {
		t.Fatal("struck line still in the general ledger")
	}
	// Behind the lock date, inline rättelse is refused: use storno.
	b.patch(b.base+"/settings/bookkeeping-lock", b.token, map[string]any{"bookkeeping_locked_through": b.day("03-31")}).status(t, 200)
	b.action(id, "correct-metadata", map[string]any{"description": "Ny"}).errorCode(t, 409, "JOURNAL_RATTELSE_PERIOD_LOCKED")
	b.action(id, "strike-lines", map[string]any{"lines": []map[string]any{{"account_number": "1930", "debit_amount": 1}, {"account_number": "3990", "credit_amount": 1}}}).
		errorCode(t, 409, "JOURNAL_RATTELSE_PERIOD_LOCKED")
	// A draft is not corrected inline.
	d := b.create(b.sale("04-01")).status(t, 201).str("data.id")
	b.action(d, "correct-metadata", map[string]any{"description": "X"}).errorCode(t, 409, "JOURNAL_ENTRY_NOT_POSTED")
	b.get(je+"/"+uuid.NewString()+"/rattelse-log", b.token).errorCode(t, 404, "JOURNAL_ENTRY_NOT_FOUND")
}

func TestNotesNoDocumentAndBatch(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	je := b.base + "/journal-entries"
	id := b.posted(t, "03-15")
	n := b.patch(je+"/"+id+"/notes", b.token, map[string]any{"notes": "Kvitto i mejl."}).status(t, 200)
	if n.str("data.notes") != "Kvitto i mejl." || n.at("data.voucher_number") != float64(1) {
		t.Fatalf("notes: %s", n.Body)
	}
	if b.patch(je+"/"+id+"/notes", b.token, map[string]any{"notes": "  "}).status(t, 200).at("data.notes") != nil {
		t.Fatal("blank note not cleared")
	}
	d := b.create(b.sale("04-01")).status(t, 201).str("data.id")
	b.action(d, "no-document-required", map[string]any{}).errorCode(t, 409, "JOURNAL_ENTRY_NOT_POSTED")
	cancelled := b.create(b.sale("04-02")).status(t, 201).str("data.id")
	b.do(req{Method: "DELETE", Path: je + "/" + cancelled, Token: b.token}).status(t, 200)
	b.patch(je+"/"+cancelled+"/notes", b.token, map[string]any{"notes": "X"}).errorCode(t, 400, "JOURNAL_ENTRY_NOTE_FAILED")
	m := b.action(id, "no-document-required", map[string]any{"reason": "Bankavgift"}).status(t, 200)
	if m.at("data.exempted") != true || m.str("data.reason") != "Bankavgift" {
		t.Fatalf("mark: %s", m.Body)
	}
	u := b.do(req{Method: "DELETE", Path: je + "/" + id + "/no-document-required", Token: b.token}).status(t, 200)
	if u.at("data.removed") != true {
		t.Fatalf("unmark: %s", u.Body)
	}
	if b.do(req{Method: "DELETE", Path: je + "/" + id + "/no-document-required", Token: b.token}).status(t, 200).at("data.removed") != false {
		t.Fatal("second unmark removed something")
	}
	bulk := b.post(je+"/no-document-required", b.token, map[string]any{"journal_entry_ids": []string{id, d, uuid.NewString()}}).status(t, 200)
	if bulk.at("data.exempted") != float64(1) || len(bulk.list("data.skipped_ids")) != 2 {
		t.Fatalf("bulk: %s", bulk.Body)
	}

	// Batch: partial success, one result per item.
	good, unbalanced := b.sale("05-01"), b.sale("05-02")
	unbalanced["lines"] = []map[string]any{{"account_number": "1930", "debit_amount": 100}, {"account_number": "3001", "credit_amount": 90}}
	r := b.post(je+"/batch-create", b.token, map[string]any{"journal_entries": []any{good, unbalanced}}, "Idempotency-Key", ik()).status(t, 200)
	if r.at("data.summary.succeeded") != float64(1) || r.at("data.summary.failed") != float64(1) ||
		r.str("data.results.1.error.code") != "JOURNAL_ENTRY_NOT_BALANCED" || r.at("data.results.0.ok") != true {
		t.Fatalf("batch: %s", r.Body)
	}
	if c := b.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1 AND entry_date = $2`, b.company, b.day("05-01")); c != 1 {
		t.Fatal("the good item was not stored")
	}
	b.post(je+"/batch-create", b.token, map[string]any{"journal_entries": []any{good}, "all_or_nothing": true}, "Idempotency-Key", ik()).
		errorCode(t, 501, "NOT_IMPLEMENTED")
	engine := b.sale("05-03")
	engine["source_type"] = "storno"
	b.post(je+"/batch-create", b.token, map[string]any{"journal_entries": []any{good, engine}}, "Idempotency-Key", ik()).
		errorCode(t, 400, "VALIDATION_ERROR")
}

// Fifty clients commit drafts of one company at once: the numbers are
// 1..50, each once.
func TestConcurrentCommitsOverHTTP(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	const n = 50
	ids := make([]string, n)
	for i := range ids {
		ids[i] = b.create(b.sale("08-01")).status(t, 201).str("data.id")
	}
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.action(id, "commit", nil).status(t, 200)
		}()
	}
	wg.Wait()
	b.gapless(t, n)
}

// gapless wants the company's posted vouchers numbered 1..n, no gap and
// no number twice.
func (b *ledgerBooks) gapless(t *testing.T, n int) {
	t.Helper()
	var got []int
	if err := b.db.Select(&got, `SELECT voucher_number FROM journal_entries WHERE company_id = $1
		AND status = 'posted' ORDER BY 1`, b.company); err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != i+1 {
			t.Fatalf("voucher numbers: %v", got)
		}
	}
	if len(got) != n {
		t.Fatalf("%d numbered, want %d", len(got), n)
	}
}
