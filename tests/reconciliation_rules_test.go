package tests

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

// A small account for the rules: three rows and their verifikat on 1930
// in March, answering the rows and verifikat ids in order.
func reconSmall(t *testing.T) (*partiesBooks, string, []string, []string) {
	b, cash := reconBooks(t)
	e := []string{b.posted("2026-03-02", "Hyra", "D 5010 8000", "C 1930 8000"),
		b.posted("2026-03-03", "Avgift", "D 6570 45", "C 1930 45"),
		b.posted("2026-03-04", "Insättning", "D 1930 1999", "C 2893 1999"),
		b.posted("2026-03-05", "Porto", "D 6110 150", "C 1930 150")}
	r := b.ingested(bankRow("S1", "2026-03-02", -8000, "HYRA"), bankRow("S2", "2026-03-03", -45, "AVGIFT"),
		bankRow("S3", "2026-03-04", 1999, "INSÄTTNING"), bankRow("S4", "2026-03-31", -300, "DUBBLETT"),
		bankRow("S5", "2026-03-31", -70, "OKÄND"))
	return b, "bank:" + cash, r, e
}

// racing sends n requests at once while table is locked, releases it
// once n sessions wait on it (blocked: once one waits there with another
// behind it), and answers each request's outcome: "ok", or the 409's
// details.code (a skipped pair's code for a links answer that skipped).
func (b *partiesBooks) racing(n int, table string, blocked bool, send func() *response) []string {
	b.t.Helper()
	lock, err := b.db.Begin()
	if err != nil {
		b.t.Fatal(err)
	}
	if _, err := lock.Exec(`LOCK TABLE ` + table + ` IN EXCLUSIVE MODE`); err != nil {
		b.t.Fatal(err)
	}
	out := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := send()
			switch {
			case r.Status == 409:
				out[i] = r.str("error.details.code")
			case r.Status != 200:
				out[i] = fmt.Sprint(r.Status, string(r.Body))
			case r.at("data.skipped.0.code") != nil:
				out[i] = r.str("data.skipped.0.code")
			default:
				out[i] = "ok"
			}
		}()
	}
	want := n
	if blocked {
		want = 1
	}
	for i := 0; b.waitingOn(table, blocked) < want; i++ {
		if i > 1000 {
			b.t.Fatal("the requests never met at " + table)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := lock.Rollback(); err != nil {
		b.t.Fatal(err)
	}
	wg.Wait()
	return out
}

// waitingOn counts the sessions of the test's database waiting for a lock
// on table (pg_locks, which shows what pg_stat_activity hides from other
// roles); blocked, with blocked set, only those some other session of it
// waits behind in turn.
func (b *partiesBooks) waitingOn(table string, blocked bool) int {
	return b.count(`SELECT count(*) FROM pg_locks a WHERE NOT a.granted AND a.relation = $1::regclass
		AND a.database = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND (NOT $2 OR EXISTS (SELECT 1 FROM pg_stat_activity s WHERE s.datname = current_database()
			AND a.pid = ANY (pg_blocking_pids(s.pid))))`, table, blocked)
}

func pair(ext, entries []string) map[string]any {
	return map[string]any{"external_ids": ext, "journal_entry_ids": entries}
}

// Every skipped code of links, and every refusal of sign-off and reopen;
// the freeze holds until reopen; a malformed key is 400 on accountKey,
// an unknown cash account 404; each scope guards its verbs.
func TestReconciliationRefusals(t *testing.T) {
	t.Parallel()
	b, key, r, e := reconSmall(t)
	links := func(body map[string]any) *response {
		return b.write("POST", "reconciliation/accounts/"+key+"/links", body).status(t, 200)
	}
	b.write("POST", "reconciliation/accounts/"+key+"/items/"+r[3]+"/ignore", map[string]any{"ignored": true}).status(t, 200)
	links(map[string]any{"pairs": []any{pair(r[:1], e[:1])}})
	res := links(map[string]any{"pairs": []any{
		pair(r[1:3], e[1:3]),                     // many to many
		pair(r[:1], e[:1]),                       // linked already
		pair(r[1:2], []string{uuid.NewString()}), // no such verifikat
		pair(r[1:2], e[2:3]),                     // −45 against +1 999
		pair(r[3:4], e[3:4]),                     // ignored row
		pair([]string{uuid.NewString()}, e[1:2]), // no such row
		pair(r[2:3], e[2:3]),                     // fine
		pair(r[2:3], e[2:3]),                     // the same row again in the request
		map[string]any{"external_ids": r[4:5], "journal_entry_ids": e[1:2], "allocations": []any{map[string]any{
			"external_id": r[4], "journal_entry_id": e[1], "amount": -70}}}, // allocations not closing
	}})
	var codes []string
	for _, s := range res.list("data.skipped") {
		codes = append(codes, s.(map[string]any)["code"].(string))
	}
	want := "[UNSUPPORTED_PAIR_SHAPE ALREADY_LINKED ENTRY_NOT_FOUND PAIR_NOT_CLOSED ROW_IGNORED NOT_FOUND ALREADY_LINKED PAIR_NOT_CLOSED]"
	if fmt.Sprint(codes) != want || len(res.list("data.applied")) != 1 || res.at("data.considered") != 9.0 {
		t.Fatalf("skipped %v, want %s: %s", codes, want, res.Body)
	}

	// Sign-off refusals.
	so := func(body map[string]any, status int, code string) *response {
		t.Helper()
		r := b.write("POST", "reconciliation/accounts/"+key+"/signoff", body)
		errCode := "VALIDATION_ERROR"
		if status == 409 {
			errCode = "CONFLICT"
		}
		r.errorCode(t, status, errCode)
		if r.str("error.details.code") != code {
			t.Fatalf("sign-off %v: %s, want %s", body, r.Body, code)
		}
		return r
	}
	so(map[string]any{"through_date": "1999-12-31"}, 400, "INVALID_DATE")
	so(map[string]any{"through_date": "2026-09-02"}, 400, "DATE_IN_FUTURE")
	so(map[string]any{"through_date": "2026-08-31"}, 400, "NOT_FETCHED_THROUGH")
	if b.write("POST", "reconciliation/accounts/skattekonto/signoff", map[string]any{"through_date": "2026-03-31"}).
		errorCode(t, 400, "VALIDATION_ERROR").str("error.details.code") != "OUTSIDE_UNKNOWN" {
		t.Fatal("a sign-off of a skattekonto without rows")
	}
	// The rows say 1930 ends March at −6 416; the bank shows −6 400.
	so(map[string]any{"through_date": "2026-03-31", "external_balance": -6400}, 400, "NOT_RECONCILED")
	so(map[string]any{"through_date": "2026-03-31", "external_balance": -6400, "force": true}, 400, "NOTE_REQUIRED")
	dry := b.do(req{Method: "POST", Path: b.path("reconciliation/accounts/" + key + "/signoff?dry_run=true"), Token: b.token,
		Body: map[string]any{"through_date": "2026-03-31"}, Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if dry.at("data.would_sign.unexplained_difference") != 0.0 || dry.at("data.signoff") != nil || b.events("reconciliation.signed_off") != 0 {
		t.Fatalf("dry sign-off: %s", dry.Body)
	}
	signed := b.write("POST", "reconciliation/accounts/"+key+"/signoff", map[string]any{"through_date": "2026-03-31",
		"note": "Mars avstämd"}).status(t, 200)
	id := signed.str("data.signoff.id")
	if signed.at("data.signoff.forced") != false || signed.at("data.signoff.external_balance") != -6416.0 ||
		len(signed.list("data.signoff.items.ignored")) != 1 || b.events("reconciliation.signed_off") != 1 {
		t.Fatalf("signed: %s", signed.Body)
	}
	so(map[string]any{"through_date": "2026-03-31"}, 409, "ALREADY_SIGNED_OFF")

	// Frozen: links, unlinks and ignores of March rows.
	frozen := links(map[string]any{"pairs": []any{pair(r[1:2], e[1:2])}})
	if frozen.str("data.skipped.0.code") != "SIGNED_OFF" {
		t.Fatalf("frozen link: %s", frozen.Body)
	}
	if b.write("DELETE", "reconciliation/accounts/"+key+"/links/"+r[0], nil).errorCode(t, 409, "CONFLICT").
		str("error.details.code") != "SIGNED_OFF" {
		t.Fatal("unlink in a signed-off period")
	}
	b.write("POST", "reconciliation/accounts/"+key+"/items/"+r[4]+"/ignore", map[string]any{"ignored": true}).errorCode(t, 409, "CONFLICT")
	// A later posting in March moves the books' side: the sign-off drifts.
	b.posted("2026-03-20", "Sent kvitto", "D 6110 10", "C 1930 10")
	if d := b.recon(key, "?date_to=2026-03-31"); d.at("data.signoff.drift.amount") != -10.0 {
		t.Fatalf("drift: %s", d.Body)
	}
	reopen := b.write("POST", "reconciliation/accounts/"+key+"/signoff/"+id+"/reopen", map[string]any{"reason": "Sent kvitto"}).status(t, 200)
	if reopen.at("data.is_active") != false || reopen.str("data.reopen_reason") != "Sent kvitto" || b.events("reconciliation.reopened") != 1 {
		t.Fatalf("reopen: %s", reopen.Body)
	}
	if b.write("POST", "reconciliation/accounts/"+key+"/signoff/"+id+"/reopen", map[string]any{"reason": "igen"}).
		errorCode(t, 409, "CONFLICT").str("error.details.code") != "ALREADY_REOPENED" {
		t.Fatal("reopened twice")
	}
	b.write("DELETE", "reconciliation/accounts/"+key+"/links/"+r[0], nil).status(t, 200)
	hist := b.get(b.path("reconciliation/accounts/"+key+"/signoff?include_reopened=true"), b.token).status(t, 200)
	if len(hist.list("data.signoffs")) != 1 || len(b.get(b.path("reconciliation/accounts/"+key+"/signoff"), b.token).status(t, 200).
		list("data.signoffs")) != 0 {
		t.Fatalf("sign-offs: %s", hist.Body)
	}
	forced := b.write("POST", "reconciliation/accounts/"+key+"/signoff", map[string]any{"through_date": "2026-03-31",
		"external_balance": -6400, "force": true, "note": "Banken visar 16 kr mer; utreds"}).status(t, 200)
	if forced.at("data.signoff.forced") != true || forced.at("data.signoff.unexplained_difference") != 16.0 {
		t.Fatalf("forced: %s", forced.Body)
	}
	// The bokslutsbilagor carry it on 1930 (not the one reopened); the
	// accounts without a reconciliation have none.
	period := b.get(b.path("fiscal-periods"), b.token).status(t, 200).str("data.fiscal_periods.0.id")
	bilagor := b.get(b.path("reports/bokslutsbilagor?period_id="+period), b.token).status(t, 200)
	if s, ok := bokslutAccount(t, bilagor, "1930")["signoff"].(map[string]any); !ok ||
		s["id"] != forced.str("data.signoff.id") || s["through_date"] != "2026-03-31" || s["forced"] != true {
		t.Fatalf("1930's sign-off in the bokslutsbilagor: %s", bilagor.Body)
	}
	for _, x := range bilagor.list("data.accounts") {
		if a := x.(map[string]any); a["account_number"] != "1930" && a["signoff"] != nil {
			t.Fatalf("%s has a sign-off: %s", a["account_number"], bilagor.Body)
		}
	}
	// What a statement states may not be overridden.
	if _, err := b.db.Exec(`INSERT INTO bank_statement_balances (company_id, cash_account_id, day, balance, source)
		VALUES ($1, $2, '2026-03-31', -6426, 'camt053')`, b.company, key[5:]); err != nil {
		t.Fatal(err)
	}
	so(map[string]any{"through_date": "2026-03-31", "external_balance": -6400}, 400, "EXTERNAL_BALANCE_NOT_ALLOWED")

	// Keys, scopes.
	b.get(b.path("reconciliation/accounts/bank:nope"), b.token).errorCode(t, 400, "VALIDATION_ERROR")
	b.get(b.path("reconciliation/accounts/bank:"+uuid.NewString()), b.token).errorCode(t, 404, "NOT_FOUND")
	reader := b.key("kund@example.se", keySpec{scopes: []string{"reconciliation:read"}})
	b.get(b.path("reconciliation/accounts/"+key), reader).status(t, 200)
	b.do(req{Method: "POST", Path: b.path("reconciliation/accounts/" + key + "/links"), Token: reader, Body: map[string]any{},
		Header: map[string]string{"Idempotency-Key": newKey()}}).errorCode(t, 403, "INSUFFICIENT_SCOPE")
	writer := b.key("kund@example.se", keySpec{scopes: []string{"reconciliation:read", "reconciliation:write"}})
	b.do(req{Method: "POST", Path: b.path("reconciliation/accounts/" + key + "/signoff"), Token: writer,
		Body: map[string]any{"through_date": "2026-03-31"}, Header: map[string]string{"Idempotency-Key": newKey()}}).
		errorCode(t, 403, "INSUFFICIENT_SCOPE")
	b.get(b.path("reconciliation/bank/status"), reader).errorCode(t, 403, "INSUFFICIENT_SCOPE")
	b.do(req{Method: "POST", Path: b.path("reconciliation/accounts/" + key + "/links"), Token: b.token, Body: map[string]any{}}).
		errorCode(t, 400, "VALIDATION_ERROR")
	b.write("POST", "reconciliation/bank/run", map[string]any{"account_number": "1999"}).errorCode(t, 400, "VALIDATION_ERROR")
	if f := b.get(b.path("reconciliation/bank/status?account_number=1999"), b.token).errorCode(t, 400, "VALIDATION_ERROR").
		issueFields(); len(f) != 1 || f[0] != "query:account_number:cash_account" {
		t.Fatalf("status of no cash account: %v", f)
	}
	if f := b.get(b.path("reconciliation/accounts?date_from=2026-05-01&date_to=2026-04-30"), b.token).
		errorCode(t, 400, "VALIDATION_ERROR").issueFields(); len(f) != 1 || f[0] != "query:date_from:before_date_to" {
		t.Fatalf("a window ending before it starts: %v", f)
	}
	b.write("POST", "reconciliation/bank/run", map[string]any{"date_from": "2025-01-01", "date_to": "2026-03-01"}).
		errorCode(t, 400, "VALIDATION_ERROR")
}

// Eight link requests for one row at once make one link; two sign-offs
// at once make one and one SIGNOFF_RACE; events exist only for what
// committed.
func TestReconciliationRaces(t *testing.T) {
	t.Parallel()
	b, key, r, e := reconSmall(t)
	var wg sync.WaitGroup
	applied := make([]int, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := b.write("POST", "reconciliation/accounts/"+key+"/links", map[string]any{"pairs": []any{pair(r[:1], e[:1])}})
			if res.Status == 200 {
				applied[i] = len(res.list("data.applied"))
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, n := range applied {
		total += n
	}
	if total != 1 || b.count(`SELECT count(*) FROM reconciliation_links WHERE company_id = $1 AND removed_at IS NULL`, b.company) != 1 ||
		b.events("reconciliation.matched") != 1 || b.events("transaction.reconciled") != 1 {
		t.Fatalf("%d applied, %d links, %d matched events", total,
			b.count(`SELECT count(*) FROM reconciliation_links WHERE company_id = $1`, b.company), b.events("reconciliation.matched"))
	}
	b.write("POST", "reconciliation/accounts/"+key+"/links", map[string]any{"pairs": []any{pair(r[1:3], e[1:3])}}).status(t, 200)
	b.write("POST", "reconciliation/accounts/"+key+"/links", map[string]any{"pairs": []any{pair(r[1:2], e[1:2]), pair(r[2:3], e[2:3])}}).status(t, 200)
	b.write("POST", "reconciliation/accounts/"+key+"/items/"+r[3]+"/ignore", map[string]any{"ignored": true}).status(t, 200)
	b.write("POST", "reconciliation/accounts/"+key+"/items/"+r[4]+"/ignore", map[string]any{"ignored": true}).status(t, 200)
	// A dry run writes no event.
	b.do(req{Method: "DELETE", Path: b.path("reconciliation/accounts/" + key + "/links/" + r[0] + "?dry_run=true"), Token: b.token}).status(t, 200)
	if b.events("reconciliation.unmatched") != 0 {
		t.Fatal("a dry run emitted reconciliation.unmatched")
	}
	// Two sign-offs at once, held at their insert until both wait there:
	// one signs; the other is SIGNOFF_RACE when it read no sign-off before
	// the first committed (ALREADY_SIGNED_OFF when it read later). Tried
	// until the race shows, the sign-off reopened between tries.
	raced, signed := false, 0
	for try := 0; try < 8 && !raced; try++ {
		codes := b.racing(2, "reconciliation_signoffs", false, func() *response {
			return b.write("POST", "reconciliation/accounts/"+key+"/signoff", map[string]any{"through_date": "2026-03-31"})
		})
		slices.Sort(codes)
		switch fmt.Sprint(codes) {
		case "[SIGNOFF_RACE ok]":
			raced = true
		case "[ALREADY_SIGNED_OFF ok]":
		default:
			t.Fatalf("two sign-offs at once: %v", codes)
		}
		signed++
		if n := b.count(`SELECT count(*) FROM reconciliation_signoffs WHERE company_id = $1 AND reopened_at IS NULL`, b.company); n != 1 {
			t.Fatalf("%d active sign-offs", n)
		}
		if !raced {
			id := b.get(b.path("reconciliation/accounts/"+key+"/signoff"), b.token).status(t, 200).str("data.signoffs.0.id")
			b.write("POST", "reconciliation/accounts/"+key+"/signoff/"+id+"/reopen", map[string]any{"reason": "igen"}).status(t, 200)
		}
	}
	if !raced || b.events("reconciliation.signed_off") != signed {
		t.Fatalf("no SIGNOFF_RACE in 8 tries, or %d signed_off events for %d sign-offs", b.events("reconciliation.signed_off"), signed)
	}
	// The database keeps links and sign-offs as written.
	if _, err := b.db.Exec(`DELETE FROM reconciliation_links WHERE company_id = $1`, b.company); err == nil {
		t.Fatal("the app deleted links")
	}
	if _, err := b.db.Exec(`UPDATE reconciliation_signoffs SET external_balance = 0 WHERE company_id = $1`, b.company); err == nil {
		t.Fatal("the app changed a sign-off")
	}
}

// A camt.053 statement's closing balance is the outside balance: 10 000
// opening, −8 000 rent and +1 999 in March close at 3 999.00; the books
// hold 10 000 from January and the rent: 2 000.00. Its import queues the
// proposals' recompute, which proposes the rent. A row booked by its own
// verifikat is not unlinked or ignored here; two links of one row held
// at their insert give one link and one LINK_RACE.
func TestReconciliationStatementAndRace(t *testing.T) {
	t.Parallel()
	b, cash := reconBooks(t)
	key := "bank:" + cash
	b.posted("2026-01-10", "Aktiekapital", "D 1930 10000", "C 2081 10000")
	rent := b.posted("2026-03-02", "Hyra mars", "D 5010 8000", "C 1930 8000")
	camt := []byte(`<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">` +
		`<BkToCstmrStmt><Stmt><Id>M1</Id><Acct><Id><IBAN>SE4550000000058398257466</IBAN></Id><Ccy>SEK</Ccy></Acct>` +
		`<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="SEK">10000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-03-01</Dt></Dt></Bal>` +
		`<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="SEK">3999.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-03-31</Dt></Dt></Bal>` +
		`<Ntry><NtryRef>A1</NtryRef><Amt Ccy="SEK">8000.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>` +
		`<BookgDt><Dt>2026-03-03</Dt></BookgDt><AddtlNtryInf>HYRA</AddtlNtryInf></Ntry>` +
		`<Ntry><NtryRef>A2</NtryRef><Amt Ccy="SEK">1999.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>` +
		`<BookgDt><Dt>2026-03-04</Dt></BookgDt><AddtlNtryInf>INSÄTTNING</AddtlNtryInf></Ntry></Stmt></BkToCstmrStmt></Document>`)
	op := importFile(b, "mars.xml", camt, "?cash_account_id="+cash).status(t, 202)
	if r := waitOperation(b, op.str("data.operation_id")); r.at("data.result.ingested") != 2.0 {
		t.Fatalf("import: %s", r.Body)
	}
	var proposed *response
	for i := 0; ; i++ {
		proposed = b.recon(key, "/items?bucket=proposed")
		if len(proposed.list("data.items")) == 2 || i > 400 {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	if bk := buckets(proposed); bk[rent] != "proposed" || len(bk) != 2 {
		var ops []string
		_ = b.db.Select(&ops, `SELECT type || ' ' || status || ' ' || coalesce(error::text, '') || coalesce(result::text, '') FROM operations WHERE company_id = $1`, b.company)
		t.Fatalf("the job proposed: %s\n%v", proposed.Body, ops)
	}
	a := b.recon(key, "?date_to=2026-03-31")
	if a.str("data.external_balance_source") != "statement" || a.at("data.external_balance") != 3999.0 ||
		a.at("data.ledger_balance") != 2000.0 || a.at("data.unexplained_difference") != 0.0 ||
		bridgeOf(a, "data.bridge") != "unmatched_external -1999.00 1; proposed_external 8000.00 1; ignored 0.00 0; "+
			"unmatched_ledger 0.00 0; proposed_ledger -8000.00 1; upcoming_ledger 0.00 0; matched_straddling 0.00 0; "+
			"opening_difference 0.00 0; reversed_pairs 0.00 0" {
		t.Fatalf("statement:\n%s\n%s", bridgeOf(a, "data.bridge"), a.Body)
	}
	var rows []string
	for _, it := range b.recon(key, "/items?limit=200").list("data.items") {
		if m := it.(map[string]any); m["side"] == "external" {
			rows = append(rows, m["item_id"].(string))
		}
	}
	if len(rows) != 2 {
		t.Fatalf("rows %v", rows)
	}
	own := rows[1] // the +1 999, booked by its own verifikat
	b.write("POST", "transactions/"+own+"/categorize", map[string]any{"is_business": true, "category": "income_other"}).status(t, 200)
	if r := b.write("DELETE", "reconciliation/accounts/"+key+"/links/"+own, nil).errorCode(t, 409, "CONFLICT"); r.str("error.details.reason") != "own_verifikat" {
		t.Fatalf("unlink of a categorized row: %s", r.Body)
	}
	b.write("POST", "reconciliation/accounts/"+key+"/items/"+own+"/ignore", map[string]any{"ignored": true}).errorCode(t, 409, "CONFLICT")

	// Two links of the rent row at once, one held at its insert with the
	// other behind it: one links; the other is LINK_RACE when it read the
	// row free (ALREADY_LINKED when it read later). Tried until the race
	// shows, unlinked between tries.
	raced, linked := false, 0
	for try := 0; try < 8 && !raced; try++ {
		out := b.racing(2, "reconciliation_links", true, func() *response {
			return b.write("POST", "reconciliation/accounts/"+key+"/links", map[string]any{"pairs": []any{pair(rows[:1], []string{rent})}})
		})
		slices.Sort(out)
		switch fmt.Sprint(out) {
		case "[LINK_RACE ok]":
			raced = true
		case "[ALREADY_LINKED ok]":
		default:
			t.Fatalf("two links at once: %v", out)
		}
		linked++
		if n := b.count(`SELECT count(*) FROM reconciliation_links WHERE company_id = $1 AND removed_at IS NULL`, b.company); n != 1 {
			t.Fatalf("%d active links", n)
		}
		if !raced {
			b.write("DELETE", "reconciliation/accounts/"+key+"/links/"+rows[0], nil).status(t, 200)
		}
	}
	if !raced || b.events("reconciliation.matched") != linked {
		t.Fatalf("no LINK_RACE in 8 tries, or %d matched events for %d links", b.events("reconciliation.matched"), linked)
	}
}
