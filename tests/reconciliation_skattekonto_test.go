package tests

import (
	"os"
	"strings"
	"testing"
	"time"
)

// skattekonto posts a skattekonto statement.
func skattekonto(b *partiesBooks, name string, data []byte, dry bool) *response {
	b.t.Helper()
	ct, raw := form{name: name, partType: "application/octet-stream", data: data}.body()
	q := ""
	if dry {
		q = "?dry_run=true"
	}
	return b.do(req{Method: "POST", Path: b.path("skattekonto/imports" + q), Token: b.token, Body: raw,
		Header: map[string]string{"Content-Type": ct, "Idempotency-Key": newKey()}})
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile("../internal/reconciliation/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// The skattekonto by hand, its clock on 10 November 2026. The statement
// (our fixture) opens 1 October at 1 250.00: +30 000 inbetalning, then
// on the 12th preliminärskatt −8 500, arbetsgivaravgifter −9 426,
// avdragen skatt −7 850 and moms −4 200, kostnadsränta −12 on 7
// November (saldo 1 262.00), and preliminärskatt −8 500 coming 12
// December. 1630 held 1 000.00 on 30 September (opening difference
// 250.00); the books have the inbetalning two days early, the four
// debits on the day, an inbetalning of 500 the account does not show yet
// and next month's −8 500 booked on 9 November: −6 976.00. Linked at 0.9
// the bridge is +12 (kostnadsränta) +500 −8 500 (after the last row)
// −250 (opening) = −8 238 = −6 976 − 1 262.
func TestReconciliationSkattekontoByHand(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 11, 10, 9, 0, 0, 0, time.UTC) }))
	b.write("POST", "cash-accounts", map[string]any{"name": "Företagskonto", "currency": "SEK"}).status(t, 201)
	b.write("POST", "reconciliation/accounts/skattekonto/signoff", map[string]any{"through_date": "2026-10-31"}).
		errorCode(t, 400, "VALIDATION_ERROR").at("error.details.code")
	b.posted("2026-09-15", "Inbetalning skattekonto", "D 1630 1000", "C 1930 1000")
	b.posted("2026-10-10", "Inbetalning skattekonto", "D 1630 30000", "C 1930 30000")
	b.posted("2026-10-12", "Preliminärskatt oktober", "D 2518 8500", "C 1630 8500")
	b.posted("2026-10-12", "Arbetsgivaravgifter september", "D 2731 9426", "C 1630 9426")
	b.posted("2026-10-12", "Personalskatt september", "D 2710 7850", "C 1630 7850")
	b.posted("2026-10-12", "Moms september", "D 2650 4200", "C 1630 4200")
	pending := b.posted("2026-11-05", "Inbetalning skattekonto", "D 1630 500", "C 1930 500")
	coming := b.posted("2026-11-09", "Preliminärskatt december", "D 2518 8500", "C 1630 8500")

	dry := skattekonto(b, "skattekonto.csv", fixture(t, "skattekonto_utf8_comma.csv"), true).status(t, 200)
	if dry.at("data.added") != 7.0 || dry.at("data.saldo") != 1262.0 || dry.str("data.history_start") != "2026-10-01" ||
		b.count(`SELECT count(*) FROM skattekonto_transactions WHERE company_id = $1`, b.company) != 0 {
		t.Fatalf("dry run: %s", dry.Body)
	}
	im := skattekonto(b, "skattekonto.csv", fixture(t, "skattekonto_utf8_comma.csv"), false).status(t, 200)
	if im.at("data.added") != 7.0 || im.at("data.duplicates") != 0.0 || im.str("data.encoding") != "utf-8" ||
		im.at("data.rows.6.upcoming") != true || im.at("data.opening.saldo") != 1250.0 {
		t.Fatalf("import: %s", im.Body)
	}
	// The same statement from the other program: Windows-1252, ';',
	// newest first. It reads the same, so it adds nothing.
	again := skattekonto(b, "skattekonto.csv", fixture(t, "skattekonto_1252_semicolon.csv"), false).status(t, 200)
	if again.at("data.added") != 0.0 || again.at("data.duplicates") != 7.0 || again.str("data.encoding") != "windows-1252" ||
		again.at("data.saldo") != 1262.0 {
		t.Fatalf("re-import: %s", again.Body)
	}
	brk := skattekonto(b, "trasig.csv", []byte("Datum;Text;Belopp;Saldo\n2026-10-01;Ingående saldo;;1 250,00\n"+
		"2026-10-12;Inbetalning;30 000,00;31 250,00\n2026-10-13;Moms;-100,00;31 100,00\n"), false).errorCode(t, 400, "SKATTEKONTO_FILE_INVALID")
	if brk.at("error.details.line") != 4.0 || brk.str("error.details.column") != "Saldo" {
		t.Fatalf("saldo break: %s", brk.Body)
	}
	clash := skattekonto(b, "annan.csv", []byte("Datum;Text;Belopp;Saldo\n2026-10-01;Ingående saldo;;1 250,00\n"+
		"2026-10-12;Inbetalning bokförd 261012;30 000,00;31 250,00\n2026-10-13;Extra debitering;-100,00;31 150,00\n"), false).
		errorCode(t, 409, "SKATTEKONTO_SALDO_CONFLICT")
	if clash.str("error.details.date") != "2026-10-13" {
		t.Fatalf("conflict: %s", clash.Body)
	}
	if n := b.count(`SELECT count(*) FROM skattekonto_transactions WHERE company_id = $1`, b.company); n != 8 {
		t.Fatalf("%d rows stored, want the opening and 7", n)
	}

	l := b.write("POST", "reconciliation/accounts/skattekonto/links", map[string]any{"use_proposals": true}).status(t, 200)
	if len(l.list("data.applied")) != 5 || len(l.list("data.skipped")) != 0 {
		t.Fatalf("links: %s", l.Body)
	}
	a := b.recon("skattekonto", "")
	wantBridge := "unmatched_external 12.00 1; proposed_external 0.00 0; ignored 0.00 0; unmatched_ledger 500.00 1; " +
		"proposed_ledger 0.00 0; upcoming_ledger -8500.00 1; matched_straddling 0.00 0; opening_difference -250.00 1; reversed_pairs 0.00 0"
	if bridgeOf(a, "data.bridge") != wantBridge || a.at("data.external_balance") != 1262.0 || a.at("data.ledger_balance") != -6976.0 ||
		a.at("data.unexplained_difference") != 0.0 || a.at("data.skattekonto.opening_difference") != 250.0 ||
		a.at("data.skattekonto.upcoming_total") != -8500.0 || a.at("data.skattekonto.saldo") != 1262.0 ||
		a.str("data.external_balance_source") != "saldo" || a.str("data.status.state") != "open" {
		t.Fatalf("skattekonto:\n%s\n%s", bridgeOf(a, "data.bridge"), a.Body)
	}
	items := b.recon("skattekonto", "/items?limit=200")
	bk := buckets(items)
	if bk[pending] != "unmatched_ledger" || bk[coming] != "upcoming" || a.at("data.counts.matched") != 10.0 ||
		a.at("data.counts.upcoming") != 2.0 {
		t.Fatalf("items: %s", items.Body)
	}
	var interest, upcomingRow string
	for _, it := range items.list("data.items") {
		m := it.(map[string]any)
		switch {
		case m["side"] == "external" && m["bucket"] == "unmatched_external":
			interest = m["item_id"].(string)
		case m["side"] == "external" && m["bucket"] == "upcoming":
			upcomingRow = m["item_id"].(string)
		}
	}
	if interest == "" || upcomingRow == "" {
		t.Fatalf("items: %s", items.Body)
	}
	// Ignored, the interest still counts in the saldo, on its own line.
	b.write("POST", "reconciliation/accounts/skattekonto/items/"+interest+"/ignore", map[string]any{"ignored": true}).status(t, 200)
	a = b.recon("skattekonto", "")
	if !strings.HasPrefix(bridgeOf(a, "data.bridge"), "unmatched_external 0.00 0; proposed_external 0.00 0; ignored 12.00 1;") ||
		a.at("data.external_balance") != 1262.0 || a.at("data.unexplained_difference") != 0.0 {
		t.Fatalf("ignored interest:\n%s", bridgeOf(a, "data.bridge"))
	}

	// Rows by hand: one added and deleted; a statement row is kept. A dry
	// run answers 200, not the 201 of a row made, with the row under
	// preview.
	if d := b.write("POST", "skattekonto/transactions?dry_run=true", map[string]any{"date": "2026-11-09",
		"description": "Kostnadsränta", "amount": -3, "saldo_after": 1259}).status(t, 200); d.at("data.dry_run") != true ||
		d.str("data.preview.description") != "Kostnadsränta" || d.at("data.id") != nil {
		t.Fatalf("dry run: %s", d.Body)
	}
	m := b.write("POST", "skattekonto/transactions", map[string]any{"date": "2026-11-09", "description": "Kostnadsränta", "amount": -3,
		"saldo_after": 1259}).status(t, 201)
	b.write("POST", "skattekonto/transactions", map[string]any{"date": "2026-11-09", "description": "Fel", "amount": -3,
		"saldo_after": 1000}).errorCode(t, 409, "SKATTEKONTO_SALDO_CONFLICT")
	b.write("POST", "skattekonto/transactions", map[string]any{"date": "2026-09-01", "description": "Före", "amount": -3}).
		errorCode(t, 400, "VALIDATION_ERROR")
	b.write("DELETE", "skattekonto/transactions/"+m.str("data.id"), nil).status(t, 200)
	b.write("DELETE", "skattekonto/transactions/"+interest, nil).errorCode(t, 409, "CONFLICT")
	list := b.get(b.path("skattekonto/transactions"), b.token).status(t, 200)
	if len(list.list("data.transactions")) != 8 || list.at("data.saldo") != 1262.0 {
		t.Fatalf("rows: %s", list.Body)
	}
	if _, err := b.db.Exec(`UPDATE skattekonto_transactions SET amount = 0 WHERE company_id = $1 AND id = $2`, b.company, interest); err == nil {
		t.Fatal("the database let a statement row's amount change")
	}

	// December's statement: it opens 1 November at 1 274.00 (what the
	// rows through October make), repeats the interest, and shows the
	// coming debit drawn a day before it was due.
	dec := skattekonto(b, "december.csv", []byte("Datum;Text;Belopp;Saldo\n2026-11-01;Ingående saldo;;1 274,00\n"+
		"2026-11-07;Kostnadsränta;-12,00;1 262,00\n2026-12-11;Debiterad preliminärskatt;-8 500,00;-7 238,00\n"), false).status(t, 200)
	if dec.at("data.added") != 0.0 || dec.at("data.duplicates") != 1.0 || dec.at("data.drawn") != 1.0 || dec.at("data.saldo") != -7238.0 ||
		dec.str("data.rows.1.id") != upcomingRow {
		t.Fatalf("the debit drawn: %s", dec.Body)
	}
	var drawn struct {
		Day      string `db:"day"`
		Upcoming bool   `db:"upcoming"`
	}
	if err := b.db.Get(&drawn, `SELECT date::text AS day, upcoming FROM skattekonto_transactions WHERE company_id = $1 AND id = $2`,
		b.company, upcomingRow); err != nil || drawn.Day != "2026-12-11" || drawn.Upcoming {
		t.Fatalf("the drawn row: %+v %v", drawn, err)
	}
}
