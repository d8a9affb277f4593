package bench

import (
	"fmt"
	"os"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/kontera/kontera/internal/pgtest"
)

// buyer is a company of the supplier-invoice bench with its supplier.
type buyer struct {
	books
	supplier string
}

func newBuyer(a *api, name string) buyer {
	b := newCompany(a, name)
	s := a.must("POST", "/api/v1/companies/"+b.id+"/suppliers", map[string]any{"name": "Leverantör till " + name,
		"supplier_type": "swedish_business", "default_expense_account": "5410"}, 201)
	return buyer{books: b, supplier: str(s, "data", "id")}
}

// numbers makes the suppliers' invoice numbers of the bench unique.
var numbers atomic.Int64

// register registers one supplier invoice of two lines (10 000 on 5410
// and 2 000 on 5460) through the API: one request, its verifikat posted.
func (a *api) register(b buyer) bool {
	status, out := a.call("POST", "/api/v1/companies/"+b.id+"/supplier-invoices", map[string]any{"supplier_id": b.supplier,
		"supplier_invoice_number": fmt.Sprintf("F-%d", numbers.Add(1)), "invoice_date": b.year + "-03-02",
		"due_date": b.year + "-04-01", "items": []any{
			map[string]any{"description": "Kontorsmaterial", "amount": 10000, "vat_rate": 0.25},
			map[string]any{"description": "Datorutrustning", "amount": 2000, "account_number": "5460", "vat_rate": 0.25}}})
	if status != 201 {
		a.t.Errorf("register: %d %v", status, out)
		return false
	}
	return true
}

// TestBenchSupplierInvoices measures supplier invoices registered per
// second through the API (one POST of two lines and VAT, its verifikat
// posted) with 1 and 8 clients on one company, beside journal entries
// created and committed (two requests, one verifikat) in the same run
// with as many clients. The goal is 0.8 of the journal rate. Then every
// company's arrival numbers are gapless and 2440 holds what was
// registered.
func TestBenchSupplierInvoices(t *testing.T) {
	if os.Getenv("KONTERA_BENCH") == "" {
		t.Skip("run with make bench")
	}
	d, owner := pgtest.NewPair(t)
	a := benchServer(t, d)
	// VAT-registered buyers: the registration books 2641 too.
	b := newBuyer(a, "Inköp AB")
	j := newCompany(a, "Bokför AB")
	if _, err := owner.Exec(`UPDATE company_settings SET vat_registered = true, moms_period = 'quarterly' WHERE company_id = $1`, b.id); err != nil {
		t.Fatal(err)
	}
	settle(t, owner)
	clients := []int{1, 8}
	registered, posts := map[int][]float64{}, map[int][]float64{}
	for range rounds {
		for _, c := range clients {
			r, _, _ := rate(c, func(_, i int) bool { return a.post(j, i) })
			posts[c] = append(posts[c], r)
			r, _, _ = rate(c, func(_, _ int) bool { return a.register(b) })
			registered[c] = append(registered[c], r)
		}
	}
	med := func(xs []float64) float64 { xs = slices.Clone(xs); slices.Sort(xs); return xs[len(xs)/2] }
	fmt.Printf("\nSupplier invoices registered over HTTP (1 request: 2 lines + VAT, 1 verifikat) beside journal entries\n"+
		"created + committed (2 requests, 1 verifikat); fsync on; %v per run, median of %d rounds\n", duration, rounds)
	fmt.Printf("%8s %14s %11s %8s\n", "clients", "registered/s", "entries/s", "ratio")
	for _, c := range clients {
		r, p := med(registered[c]), med(posts[c])
		fmt.Printf("%8d %14.0f %11.0f %8.2f\n", c, r, p, r/p)
	}

	var bad int
	if err := d.Get(&bad, `SELECT count(*) FROM (SELECT company_id FROM supplier_invoices
		GROUP BY company_id HAVING max(arrival_number) <> count(*) OR min(arrival_number) <> 1) g`); err != nil || bad != 0 {
		t.Fatalf("arrival numbers with gaps in %d companies (%v)", bad, err)
	}
	if err := d.Get(&bad, `SELECT abs((SELECT coalesce(sum(total_sek), 0) FROM supplier_invoices)
		+ (SELECT coalesce(sum(l.debit_amount - l.credit_amount), 0) FROM journal_lines l
			JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.journal_entry_id
			WHERE l.account_number = '2440' AND e.status = 'posted'))::int`); err != nil || bad != 0 {
		t.Fatalf("2440 differs from what was registered by %d (%v)", bad, err)
	}
}
