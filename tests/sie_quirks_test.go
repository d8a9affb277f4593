package tests

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/sie/sietest"
)

// Every quirk of other programs' files is imported with its warning and
// the balances its own opening balance and vouchers give, to the öre, or
// refused with its line: never an internal error, never an import left
// running or paused.
// quirksDay is the day the quirks are imported on, in the files' year.
var quirksDay = time.Date(2025, 6, 15, 0, 0, 0, 0, time.UTC)

func TestSieImportQuirks(t *testing.T) {
	t.Parallel()
	c := &movingClock{}
	c.set(quirksDay)
	e := newEnv(t, c.option())
	for _, q := range sietest.Quirks(2025) {
		b := ledgerOn(t, e)
		b.clock = c
		started := b.importSie(t, "kvirk.se", q.File, "").status(t, 202)
		op, imp := b.imported(t, started)
		if strings.Contains(string(op.Body), "INTERNAL_ERROR") || strings.Contains(string(imp.Body), "INTERNAL_ERROR") {
			t.Errorf("%s: internal error\n%s\n%s", q.Name, op.Body, imp.Body)
			continue
		}
		if q.Refused > 0 {
			if op.str("data.error.code") != "SIE_IMPORT_INVALID_FILE" || imp.str("data.state") != "failed" {
				t.Errorf("%s: want refused\n%s\n%s", q.Name, op.Body, imp.Body)
				continue
			}
			found := false
			for _, p := range imp.list("data.errors") {
				found = found || p.(map[string]any)["line"] == float64(q.Refused)
			}
			if !found {
				t.Errorf("%s: errors %v, want line %d", q.Name, imp.at("data.errors"), q.Refused)
			}
			if n := b.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1`, b.company); n != 0 {
				t.Errorf("%s: %d entries written by a refused file", q.Name, n)
			}
			continue
		}
		if op.str("data.status") != "succeeded" || imp.str("data.state") != "completed" {
			t.Errorf("%s: not imported\n%s\n%s", q.Name, op.Body, imp.Body)
			continue
		}
		if q.Warning != "" && !strings.Contains(string(imp.Body), `"code":"`+q.Warning+`"`) {
			t.Errorf("%s: no %s in %s", q.Name, q.Warning, imp.at("data.warnings"))
		}
		if got := imp.at("data.result.vouchers_posted"); got != float64(q.Vouchers) {
			t.Errorf("%s: %v vouchers posted, want %d", q.Name, got, q.Vouchers)
		}
		// What the import kept (a file's series, its object codes) reads
		// back as the document states it.
		b.get(b.base+"/journal-entries?limit=100", b.token).status(t, 200)
		b.get(b.base+"/dimensions", b.token).status(t, 200)
		got := b.booksBalances(t, imp.str("data.fiscal_period_id"))
		for acct, v := range q.Balances {
			if want, _ := strconv.ParseFloat(v.String(), 64); got[acct] != want {
				t.Errorf("%s: %s is %.2f in the books, %s by the file", q.Name, acct, got[acct], v)
			}
		}
		for acct, v := range got {
			if _, ok := q.Balances[acct]; !ok {
				t.Errorf("%s: %s holds %.2f, the file gives it nothing", q.Name, acct, v)
			}
		}
		switch q.Name {
		case "result account outside BAS":
			resultOutsideBAS(t, b, imp.str("data.fiscal_period_id"))
		case "balance accounts in classes 3-8 by #KTYP":
			typeFromFile(t, b, imp.str("data.fiscal_period_id"))
		}
	}
}

// A 9999 obs-konto kept as a result account is in the year's result:
// sales 1 000, purchases 800 and the obs-konto's 300 make a loss of 100 in
// the income statement, the balance sheet balances, and the year-end
// carries all of it to equity so the year closes.
func resultOutsideBAS(t *testing.T, b *ledgerBooks, period string) {
	t.Helper()
	is := b.get(b.base+"/reports/income-statement?period_id="+period, b.token).status(t, 200)
	if got := is.at("data.totals.arets_resultat"); got != -100.0 {
		t.Errorf("the result is %v, want -100 with the obs-konto in it", got)
	}
	bs := b.get(b.base+"/reports/balance-sheet?period_id="+period, b.token).status(t, 200)
	if d := bs.at("data.totals.difference"); d != 0.0 {
		t.Errorf("the balance sheet differs by %v", d)
	}
	b.periodAction(period, "lock", nil).status(t, 200)
	b.yearOver(t)
	defer b.clock.set(quirksDay)
	op := b.operation(t, b.periodAction(period, "year-end", nil).status(t, 202).str("data.operation_id"))
	if op.str("data.status") != "succeeded" || op.at("data.result.net_result") != -100.0 {
		t.Fatalf("year-end: %s", op.Body)
	}
	b.periodAction(period, "close", nil).status(t, 200)
}

// Accounts of classes 3-8 the file declares an asset (3950) and a
// liability (4990) stand on the balance sheet. By hand: 3950 opens at
// 2 000 and takes 500, so closes at 2 500; 4990 stays at 2 000 credit;
// the result is sales 1 000 less purchases 800, 200, with neither in
// it; assets 1930 49 950 + 3950 2 500 = 52 450 = 2081 50 000 + 2611 250
// + 4990 2 000 + the result 200. The year-end closes 200 only, the next
// year opens with both, and the export declares them and gives them
// #IB/#UB, no #RES.
func typeFromFile(t *testing.T, b *ledgerBooks, period string) {
	t.Helper()
	types := map[string]any{}
	for _, a := range b.get(b.base+"/accounts?class=3", b.token).status(t, 200).list("data.accounts") {
		types[a.(map[string]any)["account_number"].(string)] = a.(map[string]any)["account_type"]
	}
	for _, a := range b.get(b.base+"/accounts?class=4", b.token).status(t, 200).list("data.accounts") {
		types[a.(map[string]any)["account_number"].(string)] = a.(map[string]any)["account_type"]
	}
	if types["3950"] != "asset" || types["4990"] != "liability" || types["3001"] != "revenue" {
		t.Errorf("account types %v %v %v", types["3950"], types["4990"], types["3001"])
	}
	is := b.get(b.base+"/reports/income-statement?period_id="+period, b.token).status(t, 200)
	if got := is.at("data.totals.arets_resultat"); got != 200.0 {
		t.Errorf("the result is %v, want 200 without 3950 and 4990", got)
	}
	bs := b.get(b.base+"/reports/balance-sheet?period_id="+period, b.token).status(t, 200)
	if d, a := bs.at("data.totals.difference"), bs.at("data.totals.assets"); d != 0.0 || a != 52450.0 {
		t.Errorf("the balance sheet: assets %v, difference %v", a, d)
	}
	export := string(b.exportSie(t, period, ""))
	for _, want := range []string{"#KTYP 3950 T", "#KTYP 4990 S", "#IB 0 3950 2000.00", "#UB 0 3950 2500.00", "#UB 0 4990 -2000.00"} {
		if !strings.Contains(export, want+"\r\n") {
			t.Errorf("the export lacks %q", want)
		}
	}
	if strings.Contains(export, "#RES 0 3950") || strings.Contains(export, "#RES 0 4990") {
		t.Error("the export gives a balance account a #RES")
	}
	b.periodAction(period, "lock", nil).status(t, 200)
	b.yearOver(t)
	defer b.clock.set(quirksDay)
	op := b.operation(t, b.periodAction(period, "year-end", nil).status(t, 202).str("data.operation_id"))
	if op.str("data.status") != "succeeded" || op.at("data.result.net_result") != 200.0 {
		t.Fatalf("year-end: %s", op.Body)
	}
	b.periodAction(period, "close", nil).status(t, 200)
	if n := b.count(`SELECT count(*) FROM journal_lines l JOIN journal_entries e ON e.company_id = l.company_id
		AND e.id = l.journal_entry_id WHERE e.company_id = $1 AND e.source_type = 'opening_balance' AND e.status = 'posted'
		AND e.entry_date > '2025-12-31' AND ((l.account_number = '3950' AND l.debit_amount = 2500)
		OR (l.account_number = '4990' AND l.credit_amount = 2000))`, b.company); n != 2 {
		t.Errorf("the next year opens with %d of 3950 and 4990, want both", n)
	}
}

// A file may declare an account the chart already holds an asset: while
// nothing books on it, the account takes the file's type; once an entry
// uses it as revenue, the file is refused at its #KTYP and nothing
// changes.
func TestSieImportTypeOnChart(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	e := newEnv(t, clock(func() time.Time { return now }))
	file := []byte("#FLAGGA 0\r\n#SIETYP 4\r\n#RAR 0 20250101 20251231\r\n#KONTO 3001 \"Fordran\"\r\n#KTYP 3001 T\r\n" +
		"#IB 0 3001 100.00\r\n#IB 0 2081 -100.00\r\n")
	typeOf := func(b *ledgerBooks) any {
		for _, a := range b.get(b.base+"/accounts?class=3", b.token).status(t, 200).list("data.accounts") {
			if a.(map[string]any)["account_number"] == "3001" {
				return a.(map[string]any)["account_type"]
			}
		}
		return nil
	}

	unused := ledgerOn(t, e)
	op, imp := unused.imported(t, unused.importSie(t, "a.se", file, "").status(t, 202))
	if op.str("data.status") != "succeeded" || typeOf(unused) != "asset" {
		t.Fatalf("an unused chart account: %s\n%s", op.Body, imp.Body)
	}
	if got := unused.booksBalances(t, imp.str("data.fiscal_period_id")); got["3001"] != 100 || got["2081"] != -100 {
		t.Errorf("balances %v", got)
	}

	used := ledgerOn(t, e)
	used.create(used.sale("03-15")).status(t, 201)
	op, imp = used.imported(t, used.importSie(t, "a.se", file, "").status(t, 202))
	found := false
	for _, p := range imp.list("data.errors") {
		found = found || p.(map[string]any)["line"] == 5.0
	}
	if op.str("data.error.code") != "SIE_IMPORT_INVALID_FILE" || !found || typeOf(used) != "revenue" {
		t.Fatalf("a chart account in use: %s\n%s", op.Body, imp.Body)
	}
}
