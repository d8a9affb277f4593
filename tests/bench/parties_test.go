package bench

import (
	"fmt"
	"os"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/pgtest"
)

// customer is the body of one customer, numbered n.
func customer(n int) map[string]any {
	p := fmt.Sprintf("5569%05d", n%100000)
	sum := 0
	for i := len(p) - 1; i >= 0; i-- {
		d := int(p[i] - '0')
		if (len(p)-1-i)%2 == 0 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	org := fmt.Sprintf("%s-%s%d", p[:6], p[6:], (10-sum%10)%10)
	if n >= 100000 {
		return map[string]any{"name": fmt.Sprintf("Privatkund %06d", n), "customer_type": "individual",
			"personal_number": "811218-9876", "email": fmt.Sprintf("kund%06d@example.se", n)}
	}
	return map[string]any{"name": fmt.Sprintf("Kund %06d %s AB", n, []string{"Norr", "Syd", "Väst", "Öst"}[n%4]),
		"customer_type": "swedish_business", "org_number": org, "email": fmt.Sprintf("faktura%06d@example.se", n)}
}

// TestBenchParties measures customer registration (one per request, and
// 50 per bulk request) beside PostgreSQL's raw single-row INSERT rate, and
// the list and its searches on a register of KONTERA_BENCH_CUSTOMERS
// (default 20,000) customers beside GET /api/v1/api-key, in the same run.
func TestBenchParties(t *testing.T) {
	if os.Getenv("KONTERA_BENCH") == "" {
		t.Skip("run with make bench")
	}
	total := envInt("KONTERA_BENCH_CUSTOMERS", 20_000)
	d, owner := pgtest.NewPair(t)
	a := benchServer(t, d)
	big, small := newCompany(a, "Kundrik AB"), newCompany(a, "Bench AB")
	if _, err := owner.Exec(`CREATE TABLE bench_raw (id bigserial PRIMARY KEY, company_id uuid NOT NULL, note text NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	raw := func(client, i int) bool {
		_, err := d.Exec(`INSERT INTO bench_raw (company_id, note) VALUES ($1, 'x')`, small.id)
		return err == nil
	}
	var next atomic.Int64 // individuals from 100000 on: no org number to collide
	next.Store(100000)
	single := func(client, i int) bool {
		status, out := a.call("POST", "/api/v1/companies/"+small.id+"/customers", customer(int(next.Add(1))))
		if status != 201 {
			t.Errorf("create: %d %v", status, out)
		}
		return status == 201
	}
	fmt.Printf("\nCustomers registered over HTTP, %v per run, median of %d rounds\n", duration, rounds)
	fmt.Printf("%8s %14s %12s %16s %10s\n", "clients", "customers/s", "p50", "raw INSERT/s", "vs raw")
	for _, clients := range []int{1, 8} {
		var rs, rr []float64
		var ps []time.Duration
		for range rounds {
			r, p50, _ := rate(clients, single)
			rs, ps = append(rs, r), append(ps, p50)
			r, _, _ = rate(clients, raw)
			rr = append(rr, r)
		}
		slices.Sort(rs)
		slices.Sort(rr)
		slices.Sort(ps)
		fmt.Printf("%8d %14.0f %12v %16.0f %10.3f\n", clients, rs[len(rs)/2], ps[len(ps)/2].Round(time.Microsecond),
			rr[len(rr)/2], rs[len(rs)/2]/rr[len(rr)/2])
	}

	start := time.Now()
	for n := 0; n < total; n += 50 {
		items := make([]any, 0, 50)
		for i := n; i < min(n+50, total); i++ {
			items = append(items, customer(i))
		}
		out := a.must("POST", "/api/v1/companies/"+big.id+"/customers/bulk-create", map[string]any{"customers": items}, 200)
		if s := out["data"].(map[string]any)["summary"].(map[string]any); s["failed"].(float64) != 0 {
			t.Fatalf("bulk: %v", out["data"])
		}
	}
	took := time.Since(start)
	fmt.Printf("bulk-create: %d customers in %v, %.0f customers/s (50 a request, 1 client)\n", total, took.Round(time.Millisecond),
		float64(total)/took.Seconds())
	if _, err := owner.Exec(`VACUUM ANALYZE customers`); err != nil {
		t.Fatal(err)
	}
	const n = 30
	base, _ := a.latency("/api/v1/api-key", n)
	c := "/api/v1/companies/" + big.id + "/customers"
	fmt.Printf("%-40s %10s %10s %12s\n", fmt.Sprintf("on %d customers", total), "p50", "max", "p50/api-key")
	fmt.Printf("%-40s %10v %10s %12s\n", "GET /api/v1/api-key (baseline)", base.Round(time.Microsecond), "", "1.0")
	for _, r := range [][2]string{
		{"list, first page of 50", c},
		{"list, 100 a page", c + "?limit=100"},
		{"search name 'öst' (1 in 4 match)", c + "?search=%C3%B6st"},
		{"search name, one match", c + "?search=" + fmt.Sprintf("Kund%%20%06d", total/2)},
		{"search name, no match", c + "?search=finnsinte"},
		{"search org prefix 556901", c + "?search=556901"},
		{"detail with expand=party", ""},
	} {
		path := r[1]
		if path == "" {
			out := a.must("GET", c+"?limit=1", nil, 200)
			path = c + "/" + out["data"].([]any)[0].(map[string]any)["id"].(string) + "?expand=party"
		}
		p50, worst := a.latency(path, n)
		fmt.Printf("%-40s %10v %10v %12.1f\n", r[0], p50.Round(time.Microsecond), worst.Round(time.Microsecond), float64(p50)/float64(base))
	}
}
