package tests

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/sie/sietest"
)

// A company created this year takes its history from three SIE files of
// consecutive past years through the API alone: the first import moves
// the empty first year onto the file's, the year before it becomes a year
// closed outside Kontera holding its balances, each later year opens with
// the file's #IB (agreeing with the year before, so no warning), and the
// statements show last year beside each year.
func TestSieImportHistory(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	e := newEnv(t, clock(func() time.Time { return now }))
	years := sietest.History(2022, 3, 40)
	// In order, and in any order: the last year first (its #RAR -1 makes
	// the year before it, which that year's own file then replaces), the
	// first, the middle.
	for _, order := range [][]int{{0, 1, 2}, {2, 0, 1}} {
		t.Run(fmt.Sprint(order), func(t *testing.T) { importHistory(t, ledgerOn(t, e), years, order) })
	}
}

// importHistory imports years into b in order and checks the books.
func importHistory(t *testing.T, b *ledgerBooks, years []sietest.Year, order []int) {
	f := func(a money.Amount) float64 {
		v, _ := strconv.ParseFloat(a.String(), 64)
		return v
	}
	periods := map[int]string{}
	for n, k := range order {
		y := years[k]
		started := b.importSie(t, "historik_"+strconv.Itoa(y.Year)+".se", y.File, "").status(t, 202)
		op, imp := b.imported(t, started)
		if op.str("data.status") != "succeeded" || imp.str("data.state") != "completed" {
			t.Fatalf("%d: %s\n%s", y.Year, op.Body, imp.Body)
		}
		for _, bad := range []string{"SIE_OPENING_BALANCE_DIFFERS", "SIE_OPENING_BALANCE_UNBALANCED", "SIE_PREVIOUS_YEAR_NOT_KEPT",
			"SIE_OPENING_BALANCE_KEPT", "SIE_BALANCE_MISMATCH"} {
			if strings.Contains(string(imp.Body), bad) {
				t.Errorf("%d: %s in %s", y.Year, bad, imp.at("data.warnings"))
			}
		}
		periods[y.Year] = imp.str("data.fiscal_period_id")
		if n == 0 && periods[y.Year] != b.period {
			t.Errorf("the first import made a year of its own rather than moving the empty first year")
		}
		// The year's balances are the file's: balance accounts at their
		// #UB (the result still on the income statement's accounts, not
		// yet in 2099), result accounts at their #RES.
		got := b.booksBalances(t, periods[y.Year])
		for acct, v := range y.Closing {
			if acct == "2099" {
				continue
			}
			if got[acct] != f(v) {
				t.Errorf("%d %s: books %.2f, file %s", y.Year, acct, got[acct], v)
			}
		}
		for acct, v := range y.Results {
			if got[acct] != f(v) {
				t.Errorf("%d %s: books %.2f, file %s", y.Year, acct, got[acct], v)
			}
		}
	}
	list := b.get(b.base+"/fiscal-periods", b.token).status(t, 200)
	names := map[string]string{}
	for _, p := range list.list("data.fiscal_periods") {
		m := p.(map[string]any)
		names[m["period_start"].(string)] = m["name"].(string) + " " + m["state"].(string)
	}
	want := map[string]string{"2021-01-01": "Räkenskapsår 2021 closed", "2022-01-01": "Räkenskapsår 2022 open",
		"2023-01-01": "Räkenskapsår 2023 open", "2024-01-01": "Räkenskapsår 2024 open"}
	for k, v := range want {
		if names[k] != v {
			t.Errorf("fiscal years %v, want %v", names, want)
			break
		}
	}
	// A year imported from its own file exports its vouchers only: the
	// balances another import made of it before are not in its file.
	for _, y := range years {
		if out := b.exportSie(t, periods[y.Year], ""); strings.Contains(string(out), "SIE-fil (#UB -1") {
			t.Errorf("%d exports the balances made of it before its file came", y.Year)
		}
	}
	// Each later year opens with what the year before closes with, its
	// result on 2099 where the year-end will book it (issue 46): the
	// continuity check agrees before any year-end has run.
	for _, y := range years[1:] {
		cc := b.get(b.base+"/reports/continuity-check?period_id="+periods[y.Year], b.token).status(t, 200)
		if cc.at("data.ok") != true || cc.at("data.differing_accounts") != 0.0 {
			t.Errorf("%d continuity: %s", y.Year, cc.Body)
		}
	}
	// Each year's income statement shows the year before beside it: 2022
	// the figures the first file gave for 2021.
	prevSales := map[int]float64{2022: 12000}
	for _, y := range years[:2] {
		prevSales[y.Year+1] = -f(y.Results["3001"])
	}
	for _, y := range years {
		r := b.get(b.base+"/reports/income-statement?period_id="+periods[y.Year], b.token).status(t, 200)
		if got := r.at("data.previous_totals.nettoomsattning"); got != prevSales[y.Year] {
			t.Errorf("%d: last year's net sales %v, want %v", y.Year, got, prevSales[y.Year])
		}
		if got := r.at("data.totals.nettoomsattning"); got != -f(y.Results["3001"]) {
			t.Errorf("%d: net sales %v, want %v", y.Year, got, -f(y.Results["3001"]))
		}
	}
}
