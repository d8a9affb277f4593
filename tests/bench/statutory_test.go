package bench

import (
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/pgtest"
)

// quantiles calls path n times and answers the median and the 99th
// percentile.
func (a *api) quantiles(path string, n int) (time.Duration, time.Duration) {
	var lat []time.Duration
	for range n {
		start := time.Now()
		a.must("GET", path, nil, 200)
		lat = append(lat, time.Since(start))
	}
	return spread(lat)
}

// spread answers the p50 and p99 of lat.
func spread(lat []time.Duration) (time.Duration, time.Duration) {
	slices.Sort(lat)
	return lat[len(lat)/2], lat[min(len(lat)-1, len(lat)*99/100)]
}

// beside GETs path and the baseline in turn, n times each, and answers
// the p50 and p99 of each: on a shared machine whose load drifts, a
// baseline measured before every row, not once at the start, is the one
// the row's ratio should divide by.
func (a *api) beside(path, baseline string, n int) (p50, p99, b50, b99 time.Duration) {
	var lat, base []time.Duration
	for range n {
		start := time.Now()
		a.must("GET", baseline, nil, 200)
		base = append(base, time.Since(start))
		start = time.Now()
		a.must("GET", path, nil, 200)
		lat = append(lat, time.Since(start))
	}
	p50, p99 = spread(lat)
	b50, b99 = spread(base)
	return p50, p99, b50, b99
}

// TestBenchStatutoryReports measures the statements, the VAT return, the
// ledgers and the tax returns on a company with 1,000,000 journal lines
// spread over 40 accounts of every class, 400 customer invoices (half
// paid) and 200 supplier invoices, beside the same company's trial
// balance in the same run, called in turn with each report. The goal is
// 2× the trial balance for the reports read from the month balances, 3×
// for the VAT return and the ledgers.
func TestBenchStatutoryReports(t *testing.T) {
	if os.Getenv("KONTERA_BENCH") == "" {
		t.Skip("run with make bench")
	}
	lines := envInt("KONTERA_BENCH_LINES", 1_000_000)
	d, owner := pgtest.NewPair(t)
	a := benchServer(t, d)
	big := newCompany(a, "Stor AB")
	if _, err := owner.Exec(`UPDATE company_settings SET vat_registered = true, moms_period = 'quarterly' WHERE company_id = $1`,
		big.id); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	generateOver(t, d, big, lines, "md5(account_number)")
	base := "/api/v1/companies/" + big.id
	c := a.must("POST", base+"/customers", map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}, 201)
	s := a.must("POST", base+"/suppliers", map[string]any{"name": "Leverantör AB", "supplier_type": "swedish_business",
		"default_expense_account": "5410"}, 201)
	customer, supplier := str(c, "data", "id"), str(s, "data", "id")
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				month := 1 + (w*100+i)%12
				_, out := a.call("POST", base+"/invoices", map[string]any{"customer_id": customer,
					"invoice_date": fmt.Sprintf("%s-%02d-05", big.year, month), "items": []any{map[string]any{
						"description": "Konsulttimmar", "quantity": 10, "unit": "tim", "unit_price": 1000}}})
				id := str(out, "data", "id")
				a.call("POST", base+"/invoices/"+id+"/mark-sent", nil)
				if i%2 == 0 {
					a.call("POST", base+"/invoices/"+id+"/mark-paid", map[string]any{
						"payment_date": fmt.Sprintf("%s-%02d-25", big.year, month)})
				}
				if i%2 == 1 {
					a.call("POST", base+"/supplier-invoices", map[string]any{"supplier_id": supplier,
						"supplier_invoice_number": fmt.Sprintf("F-%d-%d", w, i), "invoice_date": fmt.Sprintf("%s-%02d-02", big.year, month),
						"due_date": fmt.Sprintf("%s-%02d-28", big.year, month), "items": []any{
							map[string]any{"description": "Kontorsmaterial", "amount": 1000, "vat_rate": 0.25}}})
				}
			}
		}()
	}
	wg.Wait()
	gen := time.Since(start)
	settle(t, owner)
	var count int
	_ = d.Get(&count, `SELECT count(*) FROM ledger_postings WHERE company_id = $1`, big.id)
	fmt.Printf("\nStatutory reports on %d posted lines, 400 invoices, 200 supplier invoices (set up in %v); 100 calls each\n",
		count, gen.Round(time.Second))
	q := "?period_id=" + big.period
	vat := "?period_type=quarterly&year=" + big.year + "&period=2"
	rows := []struct {
		name, path string
		goal       float64
	}{
		{"income statement", "/reports/income-statement" + q, 2},
		{"income statement, window cutting months", "/reports/income-statement" + q + "&from_date=" + big.year + "-02-10&to_date=" + big.year + "-05-20", 2},
		{"balance sheet", "/reports/balance-sheet" + q, 2},
		{"monthly breakdown", "/reports/monthly-breakdown" + q, 2},
		{"kpi", "/reports/kpi" + q, 3},
		{"kassaflödesanalys", "/reports/kassaflodesanalys" + q, 2},
		{"bokslutsbilagor", "/reports/bokslutsbilagor" + q, 3},
		{"ink2", "/reports/ink2" + q, 2},
		{"compliance check", "/compliance/check?type=year_end_readiness&fiscal_period_id=" + big.period, 3},
		{"behandlingshistorik p1", "/reports/behandlingshistorik" + q, 2},
		{"VAT return, quarter", "/reports/vat-declaration" + vat, 3},
		{"VAT return, year", "/reports/vat-declaration?period_type=yearly&year=" + big.year + "&period=1", 3},
		{"settlement proposal", "/reports/vat-declaration/settlement-proposal" + vat, 3},
		{"AR ledger", "/reports/ar-ledger?as_of_date=" + big.year + "-12-31", 3},
		{"supplier ledger", "/reports/supplier-ledger?as_of_date=" + big.year + "-12-31", 3},
	}
	const n = 100
	tb := base + "/reports/trial-balance" + q
	t50, t99 := a.quantiles(tb, n)
	fmt.Printf("%-40s %10s %10s %10s %9s %9s %6s\n", "", "p50", "p99", "tb p50", "p50/tb", "p99/tb", "goal")
	fmt.Printf("%-40s %10v %10v %10s %9s %9s\n", "trial balance (baseline)", t50.Round(time.Microsecond), t99.Round(time.Microsecond),
		"", "1.0", "1.0")
	for _, r := range rows {
		// KONTERA_BENCH_STATEMENTS=1: where each report's database time
		// goes, before its row (from calls of its own, so that the
		// baseline's statements stay out of it).
		if profile := statementProfile(t, r.name); profile != nil {
			a.quantiles(base+r.path, n)
			profile()
		}
		p50, p99, b50, b99 := a.beside(base+r.path, tb, n)
		fmt.Printf("%-40s %10v %10v %10v %9.2f %9.2f %6.0f×\n", r.name, p50.Round(time.Microsecond), p99.Round(time.Microsecond),
			b50.Round(time.Microsecond), float64(p50)/float64(b50), float64(p99)/float64(b99), r.goal)
	}
}
