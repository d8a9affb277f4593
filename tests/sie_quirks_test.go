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
func TestSieImportQuirks(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	e := newEnv(t, clock(func() time.Time { return now }))
	for _, q := range sietest.Quirks(2025) {
		b := ledgerOn(t, e)
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
		if q.Name == "result account outside BAS" {
			resultOutsideBAS(t, b, imp.str("data.fiscal_period_id"))
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
	op := b.operation(t, b.periodAction(period, "year-end", nil).status(t, 202).str("data.operation_id"))
	if op.str("data.status") != "succeeded" || op.at("data.result.net_result") != -100.0 {
		t.Fatalf("year-end: %s", op.Body)
	}
	b.periodAction(period, "close", nil).status(t, 200)
}
