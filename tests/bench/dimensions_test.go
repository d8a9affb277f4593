package bench

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/kontera/kontera/internal/pgtest"
)

// TestBenchDimensions measures verifikationer created and committed with
// every line checked against a register of 5,000 projects, beside the
// same postings untagged on the same company, in the same run.
func TestBenchDimensions(t *testing.T) {
	if os.Getenv("KONTERA_BENCH") == "" {
		t.Skip("run with make bench")
	}
	d := pgtest.New(t)
	a := benchServer(t, d)
	b := newCompany(a, "Projektbolaget AB")
	const projects = 5000
	if _, err := d.Exec(`INSERT INTO dimension_values (company_id, dimension_id, code, name)
		SELECT $1, d.id, 'P' || g, 'Projekt ' || g FROM dimensions d, generate_series(1, $2) g
		WHERE d.company_id = $1 AND d.sie_dim_no = 6`, b.id, projects); err != nil {
		t.Fatal(err)
	}
	a.must("PATCH", "/api/v1/companies/"+b.id+"/settings", map[string]any{"dimensions_enabled": true}, 200)
	post := func(tags map[string]string) func(client, i int) bool {
		return func(client, i int) bool {
			body := map[string]any{"fiscal_period_id": b.period, "entry_date": fmt.Sprintf("%s-%02d-%02d", b.year, 1+i%12, 1+i%28),
				"description": "Projektkostnad", "lines": []map[string]any{
					{"account_number": "5460", "debit_amount": 800, "dimensions": tags},
					{"account_number": "2641", "debit_amount": 200},
					{"account_number": "1930", "credit_amount": 1000}}}
			status, out := a.call("POST", "/api/v1/companies/"+b.id+"/journal-entries", body)
			if status != 201 {
				t.Errorf("create: %d %v", status, out)
				return false
			}
			status, out = a.call("POST", "/api/v1/companies/"+b.id+"/journal-entries/"+str(out, "data", "id")+"/commit", nil)
			return status == 200
		}
	}
	fmt.Printf("\nVerifikationer created + committed, dimensions enabled, %d projects; %v per run, median of %d rounds\n", projects, duration, rounds)
	fmt.Printf("%8s %14s %14s %10s\n", "clients", "untagged/s", "tagged/s", "ratio")
	for _, clients := range []int{1, 8} {
		var plain, tagged []float64
		for range rounds {
			r, _, _ := rate(clients, post(map[string]string{}))
			plain = append(plain, r)
			r, _, _ = rate(clients, post(map[string]string{"6": "P4711"}))
			tagged = append(tagged, r)
		}
		slices.Sort(plain)
		slices.Sort(tagged)
		p, g := plain[len(plain)/2], tagged[len(tagged)/2]
		fmt.Printf("%8d %14.0f %14.0f %10.3f\n", clients, p, g, g/p)
	}
}
