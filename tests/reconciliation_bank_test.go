package tests

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// reconBooks is a VAT-registered aktiebolag with a SEK cash account on
// 1930, its clock on 1 September 2026.
func reconBooks(t *testing.T) (*partiesBooks, string) {
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 9, 1, 9, 0, 0, 0, time.UTC) }))
	b.vatQuarterly()
	cash := b.write("POST", "cash-accounts", map[string]any{"name": "Företagskonto", "currency": "SEK"}).status(t, 201).
		str("data.cash_account_id")
	return b, cash
}

// posted books a verifikat of lines ("D 1930 3125", "C 3001 2500") on
// day, answering its id.
func (b *partiesBooks) posted(day, text string, lines ...string) string {
	b.t.Helper()
	period := b.get(b.path("fiscal-periods"), b.token).status(b.t, 200).str("data.fiscal_periods.0.id")
	var ls []any
	for _, l := range lines {
		var side, account string
		var amount float64
		if _, err := fmt.Sscanf(l, "%s %s %f", &side, &account, &amount); err != nil {
			b.t.Fatal(err)
		}
		key := map[string]string{"D": "debit_amount", "C": "credit_amount"}[side]
		ls = append(ls, map[string]any{"account_number": account, key: amount})
	}
	id := b.write("POST", "journal-entries", map[string]any{"fiscal_period_id": period, "entry_date": day, "description": text,
		"lines": ls}).status(b.t, 201).str("data.id")
	b.write("POST", "journal-entries/"+id+"/commit", nil).status(b.t, 200)
	return id
}

// recon reads a reconciliation path of the cash account (or skattekonto).
func (b *partiesBooks) recon(account, p string) *response {
	b.t.Helper()
	return b.get(b.path("reconciliation/accounts/"+account+p), b.token).status(b.t, 200)
}

// buckets maps each item id of an items answer to its bucket.
func buckets(r *response) map[string]string {
	out := map[string]string{}
	for _, it := range r.list("data.items") {
		m := it.(map[string]any)
		out[m["item_id"].(string)] = m["bucket"].(string)
	}
	return out
}

// bridgeOf writes a bridge as "key amount count" lines, in order.
func bridgeOf(r *response, path string) string {
	var out []string
	for _, l := range r.list(path) {
		m := l.(map[string]any)
		out = append(out, fmt.Sprintf("%s %.2f %v", m["key"], m["amount"], m["count"]))
	}
	return strings.Join(out, "; ")
}

// The acceptance line by hand, on 1930 (bank rows ingested, no stated
// balance: the books' balance before the first row plus the rows):
//
//	(a) +3 125 same day and +12 500 paid by OCR 2 days before: the run
//	    links both (0.97, 0.99);
//	(b) −2 000 three days from its verifikat: proposed 0.89;
//	(c) card rows −1 200, −800, −500 and one −2 500 verifikat;
//	(d) one −10 000 payment and −6 000 + −4 000 verifikat;
//	(e) a −45 fee without verifikat: unmatched_external;
//	(f) a +1 999 verifikat by hand: unmatched_ledger;
//	(g) a −300 duplicate: ignored;
//	(h) a −150 verifikat after the last bank row (1 July): upcoming;
//	(i) a −500 verifikat and its storno: gone, bridge line reversed_pairs.
//
// Rows sum to 780.00 (= external balance, the books held 0 before);
// 1930 holds 2 974.00. Bridge: +45 +2 000 +300 +1 999 −2 000 −150 = 2 194
// = 2 974 − 780, nothing unexplained.
func TestReconciliationBankByHand(t *testing.T) {
	t.Parallel()
	b, cash := reconBooks(t)
	key := "bank:" + cash
	b.write("PATCH", "settings", map[string]any{"invoice_show_ocr": true}).status(t, 200)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	inv := b.issued(customer, nil)
	ocr := b.get(b.path("invoices/"+inv), b.token).status(t, 200).str("data.ocr_reference")
	b.markPaid(inv, map[string]any{"amount": 12500, "payment_date": "2026-03-09"}).status(t, 200)
	e2 := b.get(b.path("invoices/"+inv), b.token).status(t, 200).str("data.payment_journal_entry_id")
	if e2 == "" {
		var id string
		if err := b.db.QueryRow(`SELECT journal_entry_id FROM invoice_payments WHERE company_id = $1 AND invoice_id = $2`,
			b.company, inv).Scan(&id); err != nil {
			t.Fatal(err)
		}
		e2 = id
	}
	e1 := b.posted("2026-03-02", "Försäljning kontant", "D 1930 3125", "C 3001 2500", "C 2611 625")
	e3 := b.posted("2026-04-07", "Kontorsmaterial", "D 5410 1600", "D 2641 400", "C 1930 2000")
	e4 := b.posted("2026-04-21", "Kortköp april", "D 5460 2000", "D 2641 500", "C 1930 2500")
	e5 := b.posted("2026-05-14", "Betalning leverantör A", "D 2890 6000", "C 1930 6000")
	e6 := b.posted("2026-05-15", "Betalning leverantör B", "D 2890 4000", "C 1930 4000")
	e7 := b.posted("2026-06-10", "Insättning", "D 1930 1999", "C 2893 1999")
	e9 := b.posted("2026-06-15", "Felbokning", "D 6110 500", "C 1930 500")
	st := b.write("POST", "journal-entries/"+e9+"/reverse", map[string]any{"reversal_date": "2026-06-20"}).status(t, 200)
	_ = st
	e8 := b.posted("2026-08-20", "Porto", "D 6110 150", "C 1930 150")
	in := bankRow("R2", "2026-03-11", 12500, "BG INBETALNING")
	in["reference"] = ocr
	ids := b.ingested(bankRow("R1", "2026-03-02", 3125, "KONTANT"), in, bankRow("R3", "2026-04-10", -2000, "KONTORSGROSSISTEN"),
		bankRow("R4a", "2026-04-20", -1200, "KORT ICA"), bankRow("R4b", "2026-04-20", -800, "KORT BILTEMA"),
		bankRow("R4c", "2026-04-21", -500, "KORT CLAS OHLSON"), bankRow("R5", "2026-05-15", -10000, "BG LEVERANTÖRER"),
		bankRow("R6", "2026-06-01", -45, "AVGIFT"), bankRow("R7", "2026-07-01", -300, "DUBBLETT"))
	r1, r2, r3, r4a, r4b, r4c, r5, r6, r7 := ids[0], ids[1], ids[2], ids[3], ids[4], ids[5], ids[6], ids[7], ids[8]

	// The run links what it is sure of, (a); the rest waits as proposals.
	run := b.write("POST", "reconciliation/bank/run", map[string]any{"date_from": "2026-01-01", "date_to": "2026-09-01"}).status(t, 200)
	var got []string
	for _, m := range run.list("data.matches") {
		mm := m.(map[string]any)
		got = append(got, fmt.Sprintf("%s→%s %s %.2f", mm["transaction_id"], mm["journal_entry_id"], mm["method"], mm["confidence"]))
	}
	sort.Strings(got)
	want := []string{r1 + "→" + e1 + " exact 0.97", r2 + "→" + e2 + " reference 0.99"}
	sort.Strings(want)
	if !slices.Equal(got, want) || run.at("data.applied") != 2.0 || run.at("data.skipped_below_threshold") != 3.0 {
		t.Fatalf("run: %v\n%s", got, run.Body)
	}
	if n := b.events("transaction.reconciled"); n != 2 {
		t.Fatalf("%d transaction.reconciled", n)
	}
	if n := b.events("reconciliation.matched"); n != 2 {
		t.Fatalf("%d reconciliation.matched", n)
	}
	tx := b.get(b.path("transactions/"+r1), b.token).status(t, 200)
	if tx.str("data.journal_entry_id") != e1 || tx.str("data.reconciliation_method") != "linked" {
		t.Fatalf("the linked transaction: %s", tx.Body)
	}
	prop := b.recon(key, "/items?bucket=proposed")
	bk := buckets(prop)
	if len(bk) != 9 || bk[r3] != "proposed" || bk[e3] != "proposed" || bk[r4a] != "proposed" || bk[e4] != "proposed" ||
		bk[r5] != "proposed" || bk[e5] != "proposed" {
		t.Fatalf("proposed: %s", prop.Body)
	}
	for _, it := range prop.list("data.items") {
		m := it.(map[string]any)
		p := m["proposal"].(map[string]any)
		if m["item_id"] == r3 && (p["confidence"] != 0.89 || !slices.Contains(p["reasons"].([]any), any("3 dagars avstånd"))) {
			t.Fatalf("(b) proposed: %v", p)
		}
		if m["item_id"] == r4a && (p["confidence"] != 0.85 || p["method"] != "many_to_one") {
			t.Fatalf("(c) proposed: %v", p)
		}
		if m["item_id"] == r5 && (p["confidence"] != 0.85 || p["method"] != "one_to_many") {
			t.Fatalf("(d) proposed: %v", p)
		}
	}

	// (c) and (d) linked by hand, (g) ignored.
	l := b.write("POST", "reconciliation/accounts/"+key+"/links", map[string]any{"pairs": []any{
		map[string]any{"external_ids": []any{r4a, r4b, r4c}, "journal_entry_ids": []any{e4}},
		map[string]any{"external_ids": []any{r5}, "journal_entry_ids": []any{e5, e6}, "allocations": []any{
			map[string]any{"external_id": r5, "journal_entry_id": e5, "amount": -6000},
			map[string]any{"external_id": r5, "journal_entry_id": e6, "amount": -4000}}}}}).status(t, 200)
	if len(l.list("data.applied")) != 2 || len(l.list("data.skipped")) != 0 || l.at("data.considered") != 2.0 {
		t.Fatalf("links: %s", l.Body)
	}
	ig := b.write("POST", "reconciliation/accounts/"+key+"/items/"+r7+"/ignore", map[string]any{"ignored": true}).status(t, 200)
	if ig.at("data.is_ignored") != true || b.get(b.path("transactions/"+r7), b.token).status(t, 200).at("data.is_ignored") != true {
		t.Fatalf("ignored: %s", ig.Body)
	}

	all := buckets(b.recon(key, "/items?limit=200"))
	wantBuckets := map[string]string{r1: "matched", r2: "matched", r4a: "matched", r4b: "matched", r4c: "matched", r5: "matched",
		e1: "matched", e2: "matched", e4: "matched", e5: "matched", e6: "matched", r3: "proposed", e3: "proposed",
		r6: "unmatched_external", e7: "unmatched_ledger", r7: "ignored", e8: "upcoming"}
	if len(all) != len(wantBuckets) {
		t.Fatalf("%d items, want %d (the storno pair gone): %v", len(all), len(wantBuckets), all)
	}
	for id, w := range wantBuckets {
		if all[id] != w {
			t.Errorf("item %s in %s, want %s", id, all[id], w)
		}
	}
	up := b.recon(key, "/items?bucket=upcoming")
	if up.at("data.items.0.awaiting_external") != true || up.at("data.items.0.amount") != -150.0 {
		t.Fatalf("upcoming: %s", up.Body)
	}
	a := b.recon(key, "")
	wantBridge := "unmatched_external 45.00 1; proposed_external 2000.00 1; ignored 300.00 1; unmatched_ledger 1999.00 1; " +
		"proposed_ledger -2000.00 1; upcoming_ledger -150.00 1; matched_straddling 0.00 0; opening_difference 0.00 0; reversed_pairs 0.00 2"
	if bridgeOf(a, "data.bridge") != wantBridge || a.at("data.external_balance") != 780.0 || a.at("data.ledger_balance") != 2974.0 ||
		a.at("data.difference") != -2194.0 || a.at("data.unexplained_difference") != 0.0 || a.at("data.is_reconciled") != true ||
		a.str("data.external_balance_source") != "movements" || a.str("data.history_start") != "2026-03-02" ||
		a.str("data.last_covered") != "2026-07-01" {
		t.Fatalf("account:\n%s\n%s", bridgeOf(a, "data.bridge"), a.Body)
	}
	// As a generated client sends the key, its colon escaped (bank%3A…):
	// the same account.
	if escaped := b.recon(strings.Replace(key, ":", "%3A", 1), ""); escaped.str("data.account_key") != key ||
		escaped.at("data.external_balance") != 780.0 {
		t.Fatalf("the escaped key: %s", escaped.Body)
	}
	if a.at("data.counts.matched") != 11.0 || a.at("data.counts.proposed") != 2.0 || a.str("data.status.state") != "stale" ||
		a.at("data.status.open_counts.unmatched_external") != 1.0 {
		t.Fatalf("counts: %s", a.Body)
	}
	// The older status on the same window: rows not ignored 1 080, the
	// books moved 2 974; unmatched rows −45 −2 000 (proposed), verifikat
	// +1 999 −2 000 −150: 1 080 − 2 974 − (−2 045) + (−151) = 0.
	s := b.get(b.path("reconciliation/bank/status?date_from=2026-01-01&date_to=2026-09-01"), b.token).status(t, 200)
	if s.at("data.bank_transaction_total") != 1080.0 || s.at("data.ignored_transaction_total") != -300.0 ||
		s.at("data.gl_1930_period_movement") != 2974.0 || s.at("data.difference") != -1894.0 || s.at("data.matched_count") != 6.0 ||
		s.at("data.unmatched_transaction_count") != 2.0 || s.at("data.unmatched_gl_line_total") != -151.0 ||
		s.at("data.unexplained_difference") != 0.0 || s.at("data.is_reconciled") != false ||
		s.at("data.gl_1930_correction_adjustment") != 0.0 {
		t.Fatalf("status: %s", s.Body)
	}
	list := b.get(b.path("reconciliation/accounts"), b.token).status(t, 200)
	if list.str("data.accounts.0.account_key") != key || list.str("data.accounts.1.account_key") != "skattekonto" ||
		list.str("data.accounts.1.status.state") != "not_configured" || list.str("data.accounts.0.source.type") != "manual" {
		t.Fatalf("accounts: %s", list.Body)
	}

	// Pages of five, oldest first, every item once.
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		p := b.recon(key, "/items?limit=5"+cursor)
		for _, it := range p.list("data.items") {
			id := it.(map[string]any)["item_id"].(string)
			if seen[id] {
				t.Fatalf("item %s on two pages", id)
			}
			seen[id] = true
		}
		if p.at("data.has_more") != true {
			break
		}
		if page > 5 || len(p.list("data.items")) != 5 {
			t.Fatalf("page %d: %s", page, p.Body)
		}
		cursor = "&cursor=" + p.str("data.next_cursor")
	}
	if len(seen) != len(wantBuckets) {
		t.Fatalf("%d items over the pages, want %d", len(seen), len(wantBuckets))
	}

	// A linked verifikat reversed later: the link shows it, the storno
	// waits unmatched, nothing is unexplained.
	b.write("POST", "journal-entries/"+e1+"/reverse", map[string]any{"reversal_date": "2026-06-25"}).status(t, 200)
	rev := b.recon(key, "/items?bucket=matched")
	problem := map[string]any{}
	for _, it := range rev.list("data.items") {
		m := it.(map[string]any)
		problem[m["item_id"].(string)] = m["link_problem"]
	}
	if problem[r1] != "entry_reversed" || problem[e1] != "entry_reversed" || problem[r2] != nil {
		t.Fatalf("reversed link: %v", problem)
	}
	if a := b.recon(key, ""); a.at("data.unexplained_difference") != 0.0 || a.at("data.counts.unmatched_ledger") != 2.0 {
		t.Fatalf("after the storno: %s", a.Body)
	}

	// Unlink (d): the transaction is free again, the verifikat untouched.
	before := b.exact("1930")
	u := b.write("DELETE", "reconciliation/accounts/"+key+"/links/"+r5, nil).status(t, 200)
	if u.str("data.previous_journal_entry_id") != e5 || b.exact("1930") != before {
		t.Fatalf("unlink: %s", u.Body)
	}
	if b.get(b.path("transactions/"+r5), b.token).status(t, 200).at("data.journal_entry_id") != nil ||
		b.events("reconciliation.unmatched") != 1 {
		t.Fatal("the unlinked transaction still names its verifikat")
	}
	if bk := buckets(b.recon(key, "/items?limit=200")); bk[e6] == "matched" || bk[r5] == "matched" {
		t.Fatalf("unlinked set still matched: %v", bk)
	}
	// Uncategorizing one card row releases its whole set: nothing is
	// stornoed, the three rows are free, the removal announced.
	u = b.write("POST", "transactions/"+r4b+"/uncategorize", nil).status(t, 200)
	if b.exact("1930") != before || b.events("reconciliation.unmatched") != 2 {
		t.Fatalf("uncategorize of a linked card row: %s", u.Body)
	}
	for _, id := range []string{r4a, r4b, r4c} {
		if b.get(b.path("transactions/"+id), b.token).status(t, 200).at("data.journal_entry_id") != nil {
			t.Fatalf("card row %s still names its verifikat", id)
		}
	}
	if bk := buckets(b.recon(key, "/items?limit=200")); bk[e4] == "matched" || bk[r4c] == "matched" {
		t.Fatalf("the released set still matched: %v", bk)
	}
}
