package bench

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/chart"
	"github.com/kontera/kontera/internal/company"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/httpapi"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/payroll"
	"github.com/kontera/kontera/internal/pgtest"
)

// TestBenchPayroll times calculating and booking a salary run of 1,000
// monthly paid employees (table tax, sick days for every tenth, each
// request to its commit) beside 1,000 calls of ledger.Post of a
// three-line verifikat, each in its own transaction, in the same run:
// the run's two writes should together take no longer than posting one
// verifikat per employee (ratio ≤ 1). KONTERA_BENCH_PAYROLL_EMPLOYEES
// changes the size.
func TestBenchPayroll(t *testing.T) {
	if os.Getenv("KONTERA_BENCH") == "" {
		t.Skip("run with make bench")
	}
	d, _ := pgtest.NewPair(t)
	now := time.Date(2026, 5, 20, 9, 0, 0, 0, time.UTC)
	a := benchServer(t, d, func(c *httpapi.Config) { c.Now = func() time.Time { return now } })
	n := envInt("KONTERA_BENCH_PAYROLL_EMPLOYEES", 1000)
	c := a.must("POST", "/api/v1/companies", map[string]any{"name": "Lönebolaget AB", "entity_type": "aktiebolag",
		"org_number": "5566778899", "vat_registered": false, "f_skatt": true}, 201)
	id := str(c, "data", "id")
	base := "/api/v1/companies/" + id
	raw, err := os.ReadFile("../../internal/payroll/testdata/month-tables-fixture.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := payroll.LoadTaxTables(context.Background(), d, 2026, raw, "bench fixture"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var wg sync.WaitGroup
	work := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				// Errors, not Fatal: a worker that stopped would leave the
				// others' work unsent.
				status, e := a.call("POST", base+"/employees", map[string]any{"personnummer": personnummer(i),
					"first_name": "Anställd", "last_name": fmt.Sprintf("Nr %04d", i), "employment_type": "employee",
					"employment_start": "2025-01-01", "salary_type": "monthly", "monthly_salary": 25000 + 10*i,
					"tax_table_number": 30, "tax_column": 1, "clearing_number": "8327", "bank_account_number": "9145678"})
				if status != 201 {
					t.Errorf("employee %d: %d %v", i, status, e)
					continue
				}
				if i%10 == 0 {
					if status, out := a.call("PUT", base+"/employees/"+str(e, "data", "id")+"/absence", map[string]any{
						"from": "2026-05-12", "to": "2026-05-13", "absence_type": "sick"}); status != 200 {
						t.Errorf("absence %d: %d %v", i, status, out)
					}
				}
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	run := base + "/salary-runs/" + str(a.must("POST", base+"/salary-runs", map[string]any{"period_year": 2026,
		"period_month": 5}, 201), "data", "id")
	fmt.Printf("\nPayroll bench: %d employees registered in %.1f s\n", n, time.Since(start).Seconds())

	timed := func(what string) float64 {
		start := time.Now()
		a.must("POST", run+"/"+what, nil, 200)
		return time.Since(start).Seconds()
	}
	profile := statementProfile(t, "calculate and book")
	calc := timed("calculate")
	approve := timed("approve")
	book := timed("book")
	if profile != nil {
		profile()
	}

	// The baseline: ledger.Post of a three-line verifikat, n times, each
	// in a transaction of its own, as a request would.
	audits := audit.NewStore(d)
	accounts := chart.NewStore(d, audits)
	companies := company.NewStore(d, audits, company.Books{})
	journal := ledger.NewStore(d, audits, accounts, fiscal.NewStore(d, audits), companies.Ledger)
	company := uuid.MustParse(id)
	start = time.Now()
	for i := range n {
		err := d.InTx(context.Background(), func(ctx context.Context) error {
			_, err := journal.Post(ctx, company, ledger.Input{Date: time.Date(2026, 5, 1+i%28, 0, 0, 0, 0, time.UTC),
				Description: "Kontantförsäljning", Lines: []ledger.Line{{Account: "1930", Debit: money.Kr(1250)},
					{Account: "3001", Credit: money.Kr(1000)}, {Account: "2611", Credit: money.Kr(250)}}})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	posts := time.Since(start).Seconds()

	var slips, entries int
	if err := d.Get(&slips, `SELECT count(*) FROM salary_run_employees WHERE company_id = $1 AND calculated_at IS NOT NULL`, id); err != nil {
		t.Fatal(err)
	}
	if err := d.Get(&entries, `SELECT count(*) FROM journal_entries WHERE company_id = $1 AND source_type = 'salary_payment'`, id); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("  calculate %d payslips      %7.3f s\n", slips, calc)
	fmt.Printf("  approve                   %7.3f s\n", approve)
	fmt.Printf("  book (%d verifikat)        %7.3f s\n", entries, book)
	fmt.Printf("  %d × ledger.Post (3 lines) %7.3f s\n", n, posts)
	fmt.Printf("  ratio (calculate + book) / posts: %.2f (goal ≤ 1)\n", (calc+book)/posts)
	if slips != n || entries != 3 {
		t.Errorf("%d payslips calculated, %d verifikat booked", slips, entries)
	}
}

// personnummer is a valid personnummer of 1980–1999, one per n.
func personnummer(n int) string {
	p := fmt.Sprintf("%02d%02d%02d%03d", 80+n%20, 1+n/20%12, 1+n/240%28, n%1000)
	sum := 0
	for i, r := range p {
		v := int(r - '0')
		if i%2 == 0 {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
	}
	return "19" + p + fmt.Sprint((10-sum%10)%10)
}
