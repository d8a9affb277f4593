package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"testing"

	"github.com/kontera/kontera/internal/documents"
	"github.com/kontera/kontera/internal/httpapi"
	"github.com/kontera/kontera/internal/pgtest"
)

// fetch GETs path and reads the whole answer, as a client saving a PDF
// does; false unless it is 200.
func (a *api) fetch(path string) bool {
	req, _ := http.NewRequest("GET", a.url+path, nil)
	req.Header.Set("Authorization", "Bearer "+a.token)
	res, err := a.client.Do(req)
	if err != nil {
		a.t.Error(err)
		return false
	}
	defer res.Body.Close()
	if _, err := io.Copy(io.Discard, res.Body); err != nil || res.StatusCode != 200 {
		a.t.Errorf("GET %s: %d %v", path, res.StatusCode, err)
		return false
	}
	return true
}

// TestBenchPDF measures invoice PDFs per second through the API with 1
// and 8 clients: a 20-line draft rendered on every request, and an issued
// invoice served from the archive, beside the same invoice's JSON GET in
// the same run. The goal is a quarter of the JSON rate for the rendered
// PDF.
func TestBenchPDF(t *testing.T) {
	if os.Getenv("KONTERA_BENCH") == "" {
		t.Skip("run with make bench")
	}
	d, owner := pgtest.NewPair(t)
	a := benchServer(t, d, func(c *httpapi.Config) { c.Blobs = documents.FS{Dir: t.TempDir()} })
	s := newSeller(a, "Utskrift AB", false)
	a.must("PATCH", "/api/v1/companies/"+s.id+"/settings", map[string]any{"bankgiro": "5050-1055", "invoice_show_ocr": true,
		"address_line1": "Sveavägen 1", "postal_code": "111 57", "city": "Stockholm"}, 200)
	items := make([]any, 20)
	for i := range items {
		items[i] = map[string]any{"description": fmt.Sprintf("Konsulttimmar vecka %d, projekt Åkesson", i+1), "quantity": 8,
			"unit": "tim", "unit_price": 1150}
	}
	base := "/api/v1/companies/" + s.id + "/invoices"
	body := map[string]any{"customer_id": s.customer, "invoice_date": s.year + "-03-01", "your_reference": "Anna", "items": items}
	draft := str(a.must("POST", base, body, 201), "data", "id")
	issued := str(a.must("POST", base, body, 201), "data", "id")
	a.must("POST", base+"/"+issued+"/mark-sent", nil, 200)
	if n, failed, err := a.server.ArchiveInvoices(context.Background()); err != nil || len(failed) > 0 || n != 1 {
		t.Fatalf("archiving: %d %v %v", n, failed, err)
	}
	settle(t, owner)
	kinds := []string{"json", "rendered", "archived"}
	paths := map[string]string{"json": base + "/" + draft, "rendered": base + "/" + draft + "/pdf",
		"archived": base + "/" + issued + "/pdf"}
	got := map[string][]float64{}
	for range rounds {
		for _, clients := range []int{1, 8} {
			for _, k := range kinds {
				r, _, _ := rate(clients, func(int, int) bool { return a.fetch(paths[k]) })
				got[fmt.Sprint(k, clients)] = append(got[fmt.Sprint(k, clients)], r)
			}
		}
	}
	fmt.Printf("\nInvoice PDFs over HTTP beside the same invoice's JSON GET; %v per run, median of %d rounds\n", duration, rounds)
	fmt.Printf("%8s %10s %12s %8s %12s %8s\n", "clients", "JSON/s", "rendered/s", "ratio", "archived/s", "ratio")
	for _, clients := range []int{1, 8} {
		j, r, ar := med(got[fmt.Sprint("json", clients)]), med(got[fmt.Sprint("rendered", clients)]), med(got[fmt.Sprint("archived", clients)])
		fmt.Printf("%8d %10.0f %12.0f %8.2f %12.0f %8.2f\n", clients, j, r, r/j, ar, ar/j)
	}
	fmt.Println("rendered: a 20-line draft laid out on every request; archived: an issued invoice's stored bytes. Goal: rendered ≥ 0.25.")
}
