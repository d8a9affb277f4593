package bench

import (
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/pgtest"
)

// seller is a company of the invoice bench with its customer.
type seller struct {
	books
	customer string
}

func newSeller(a *api, name string, series bool) seller {
	b := newCompany(a, name)
	if series {
		// Kundfakturor on B and inbetalningar on C, as Swedish books
		// usually keep them: a sale and a payment no longer wait for one
		// voucher series.
		a.must("PATCH", "/api/v1/companies/"+b.id+"/settings", map[string]any{"default_voucher_series_per_source_type": map[string]any{
			"invoice_created": "B", "invoice_paid": "C"}}, 200)
	}
	// A full invoice names both parties' addresses (mervärdesskattelagen
	// 17 kap. 24 §), or it cannot be issued.
	a.must("PATCH", "/api/v1/companies/"+b.id+"/settings", map[string]any{"address_line1": "Sveavägen 1",
		"postal_code": "111 57", "city": "Stockholm"}, 200)
	c := a.must("POST", "/api/v1/companies/"+b.id+"/customers", map[string]any{"name": "Kund i " + name,
		"customer_type": "swedish_business", "address_line1": "Kungsgatan 2", "postal_code": "411 19", "city": "Göteborg"}, 201)
	return seller{books: b, customer: str(c, "data", "id")}
}

// flow sells once to s's customer through the API: the draft (10 000 +
// 25 %), issued (its verifikat), then paid in full (another).
func (a *api) flow(s seller) bool {
	base := "/api/v1/companies/" + s.id + "/invoices"
	status, out := a.call("POST", base, map[string]any{"customer_id": s.customer, "invoice_date": s.year + "-03-01",
		"items": []any{map[string]any{"description": "Konsulttimmar", "quantity": 10, "unit": "tim", "unit_price": 1000}}})
	if status != 201 {
		a.t.Errorf("create: %d %v", status, out)
		return false
	}
	id := str(out, "data", "id")
	if status, out = a.call("POST", base+"/"+id+"/mark-sent", nil); status != 200 {
		a.t.Errorf("mark-sent: %d %v", status, out)
		return false
	}
	if status, out = a.call("POST", base+"/"+id+"/mark-paid", map[string]any{"payment_date": s.year + "-03-20"}); status != 200 {
		a.t.Errorf("mark-paid: %d %v", status, out)
		return false
	}
	return true
}

// TestBenchInvoices measures invoice flows per second through the API
// (create, mark-sent, mark-paid: three requests, two verifikat) with 1 and
// 8 clients on one company and 8 clients over 8 companies, beside
// journal entries created and committed (two requests, one verifikat) in
// the same run with as many clients, and again in companies that keep
// invoices and payments on voucher series of their own (B, C). The goal
// is half the journal rate.
// Then every company's invoice numbers are gapless, 1510 stands at 0 and
// each paid invoice was announced once.
func TestBenchInvoices(t *testing.T) {
	if os.Getenv("KONTERA_BENCH") == "" {
		t.Skip("run with make bench")
	}
	d, owner := pgtest.NewPair(t)
	a := benchServer(t, d)
	const spread = 8
	sellers, series, journals := make([]seller, spread), make([]seller, spread), make([]books, spread)
	for i := range sellers {
		sellers[i] = newSeller(a, fmt.Sprintf("Fakturera %d AB", i), false)
		series[i] = newSeller(a, fmt.Sprintf("Serier %d AB", i), true)
		journals[i] = newCompany(a, fmt.Sprintf("Bokför %d AB", i))
	}
	settle(t, owner)
	type setup struct{ clients, companies int }
	setups := []setup{{1, 1}, {8, 1}, {8, spread}}
	flows, posts, split := map[setup][]float64{}, map[setup][]float64{}, map[setup][]float64{}
	p99 := map[setup][]float64{}
	for range rounds {
		for _, s := range setups {
			pick := func(client, i int) int {
				if s.companies == 1 {
					return 0
				}
				return (client + i) % s.companies
			}
			r, _, _ := rate(s.clients, func(client, i int) bool { return a.post(journals[pick(client, i)], i) })
			posts[s] = append(posts[s], r)
			r, _, q := rate(s.clients, func(client, i int) bool { return a.flow(sellers[pick(client, i)]) })
			flows[s] = append(flows[s], r)
			p99[s] = append(p99[s], float64(q))
			r, _, _ = rate(s.clients, func(client, i int) bool { return a.flow(series[pick(client, i)]) })
			split[s] = append(split[s], r)
		}
	}
	med := func(xs []float64) float64 { xs = slices.Clone(xs); slices.Sort(xs); return xs[len(xs)/2] }
	fmt.Printf("\nInvoice flows over HTTP (create + mark-sent + mark-paid: 3 requests, 2 verifikat) beside journal entries\n"+
		"created + committed (2 requests, 1 verifikat); fsync on; %v per run, median of %d rounds\n", duration, rounds)
	fmt.Printf("%8s %10s %9s %10s %11s %8s %13s %12s\n", "clients", "companies", "flows/s", "flow p99", "entries/s", "ratio",
		"B/C flows/s", "B/C ratio")
	for _, s := range setups {
		f, j, b := med(flows[s]), med(posts[s]), med(split[s])
		fmt.Printf("%8d %10d %9.0f %10s %11.0f %8.2f %13.0f %12.2f\n", s.clients, s.companies, f,
			time.Duration(med(p99[s])).Round(100*time.Microsecond), j, f/j, b, b/j)
	}
	fmt.Println("B/C: the same flows with invoices on voucher series B and payments on C (default_voucher_series_per_source_type).")

	var bad int
	if err := d.Get(&bad, `SELECT count(*) FROM (SELECT company_id FROM invoices WHERE status <> 'draft'
		GROUP BY company_id HAVING max(invoice_number::int) <> count(*) OR min(invoice_number::int) <> 1) g`); err != nil || bad != 0 {
		t.Fatalf("invoice numbers with gaps in %d companies (%v)", bad, err)
	}
	if err := d.Get(&bad, `SELECT count(*) FROM (SELECT l.company_id FROM journal_lines l
		JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.journal_entry_id
		WHERE l.account_number = '1510' AND e.status = 'posted' GROUP BY l.company_id
		HAVING sum(l.debit_amount - l.credit_amount) <> 0) g`); err != nil || bad != 0 {
		t.Fatalf("1510 not at 0 in %d companies (%v)", bad, err)
	}
	if err := d.Get(&bad, `SELECT abs((SELECT count(*) FROM invoices WHERE status = 'paid')
		- (SELECT count(*) FROM events WHERE type = 'invoice.paid'))`); err != nil || bad != 0 {
		t.Fatalf("paid invoices and invoice.paid events differ by %d (%v)", bad, err)
	}
}
