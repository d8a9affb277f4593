package tests

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/fx"
	"github.com/kontera/kontera/internal/httpapi"
)

// A foreign invoice sent without a rate is registered at the Riksbank's
// rate of its invoice date (a fake Riksbank on loopback), and a payment
// sent without kronor at the rate of its payment date; a dry run shows
// the same. A day the Riksbank has no rate for is SI_FX_RATE_MISSING.
func TestSupplierInvoiceRiksbankRate(t *testing.T) {
	t.Parallel()
	bank := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rates := map[string]string{"2026-02-27": "11.40", "2026-03-20": "11.30"}
		var out []string
		if strings.HasPrefix(r.URL.Path, "/Observations/SEKEURPMI/") {
			parts := strings.Split(r.URL.Path, "/")
			from, _ := time.Parse(time.DateOnly, parts[3])
			to, _ := time.Parse(time.DateOnly, parts[4])
			for d := from; !d.After(to); d = d.AddDate(0, 0, 1) {
				if v, ok := rates[d.Format(time.DateOnly)]; ok {
					out = append(out, `{"date":"`+d.Format(time.DateOnly)+`","value":`+v+`}`)
				}
			}
		}
		if len(out) == 0 {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		_, _ = w.Write([]byte("[" + strings.Join(out, ",") + "]"))
	}))
	defer bank.Close()
	b := newBuyerBooks(t, func(c *httpapi.Config) { c.Rates = fx.NewRiksbank(bank.URL, time.Second) })
	line := map[string]any{"description": "Licens", "amount": 1000, "account_number": "5420"}
	// 2026-03-01 is a Sunday: Friday's 11.40.
	dry := b.do(req{Method: "POST", Path: b.path("supplier-invoices?dry_run=true"), Token: b.token,
		Header: map[string]string{"Idempotency-Key": newKey()}, Body: map[string]any{"supplier_id": b.eu,
			"supplier_invoice_number": "E-1", "invoice_date": "2026-03-01", "due_date": "2026-04-01", "vat_treatment": "exempt",
			"items": []any{line}}}).status(t, 200)
	if dry.at("data.preview.exchange_rate") != 11.4 {
		t.Fatalf("dry run: %s", dry.Body)
	}
	r := b.register(b.eu, "E-1", map[string]any{"invoice_date": "2026-03-01", "vat_treatment": "exempt"}, line).status(t, 201)
	if r.at("data.exchange_rate") != 11.4 || r.at("data.total_sek") != 11400.0 {
		t.Fatalf("registered: %s", r.Body)
	}
	wantLines(t, "at 11.40", r, "data.verifikat_lines", "D 5420 11400.00", "C 2440 11400.00")
	p := b.write("POST", si(r.str("data.id"), "mark-paid"), map[string]any{"payment_date": "2026-03-20"}).status(t, 200)
	wantLines(t, "paid at 11.30", p, "data.verifikat_lines", "D 2440 11400.00", "C 1930 11300.00", "C 3960 100.00")
	b.register(b.eu, "E-2", map[string]any{"invoice_date": "2026-01-15", "vat_treatment": "exempt"}, line).
		errorCode(t, 400, "SI_FX_RATE_MISSING")
	if n := b.count(`SELECT count(*) FROM fx_rates WHERE currency = 'EUR'`); n != 2 {
		t.Fatalf("%d rates kept", n)
	}
}
