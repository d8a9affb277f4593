package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/documents"
	"github.com/kontera/kontera/internal/httpapi"
)

// A server process killed with SIGKILL while it books the accrued months
// that have come due releases no month twice and loses none: each
// company's months are marked and their verifikat posted in one
// transaction, so the killed one's company is rolled back whole; once
// the job's lease has run out (moved in the database, never slept)
// another process books the rest. Six companies each register, on 5
// January of last year, two supplier invoices of 12 000 insurance for
// that year (1 000 a month via 1730): 144 months, one verifikat each.
func TestAccrualReleaseSurvivesSIGKILL(t *testing.T) {
	t.Parallel() // each has its own database and processes; they wait on them side by side
	url, d := childDB(t)
	ctx := context.Background()
	year := time.Now().Year() - 1
	registered := time.Date(year, time.January, 5, 12, 0, 0, 0, time.UTC)
	srv, err := httpapi.New(httpapi.Config{DB: d, BaseURL: "http://kontera.test", Secret: []byte("a-test-secret-of-at-least-32-bytes!"),
		Log: zap.NewNop(), PIIKey: childPIIKey(), Blobs: documents.FS{Dir: t.TempDir()}, WorkerPoll: time.Hour,
		Now: func() time.Time { return registered }})
	if err != nil {
		t.Fatal(err)
	}
	api := httptest.NewServer(srv)
	defer api.Close()
	token, _, err := auth.NewStore(d, audit.NewStore(d)).CreateKey(ctx, auth.NewKey{Email: "dod@example.se", Mode: auth.Live,
		Scopes: auth.Scopes, CompanyAccess: auth.AllMemberships})
	if err != nil {
		t.Fatal(err)
	}
	post := func(path string, body any) map[string]any {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", api.URL+path, bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", uuid.NewString())
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != 201 {
			t.Fatalf("POST %s: %d %v", path, res.StatusCode, out)
		}
		return out["data"].(map[string]any)
	}
	const companies, invoices, months = 6, 2, 12
	for c := range companies {
		company := post("/api/v1/companies", map[string]any{"name": fmt.Sprintf("Bolag %d AB", c), "entity_type": "aktiebolag",
			"vat_registered": false, "f_skatt": true})["id"].(string)
		base := "/api/v1/companies/" + company
		supplier := post(base+"/suppliers", map[string]any{"name": "Försäkringsbolaget AB", "supplier_type": "swedish_business",
			"default_expense_account": "6310"})["id"].(string)
		for i := range invoices {
			post(base+"/supplier-invoices", map[string]any{"supplier_id": supplier, "supplier_invoice_number": fmt.Sprint("F-", i),
				"invoice_date": registered.Format(time.DateOnly), "due_date": registered.AddDate(0, 1, 0).Format(time.DateOnly),
				"items": []any{map[string]any{"description": "Försäkring", "amount": 12000, "account_number": "6310",
					"vat_rate": 0, "accrual_period_start": fmt.Sprint(year, "-01-01"), "accrual_period_end": fmt.Sprint(year, "-12-31")}}})
		}
	}
	const total = companies * invoices * months
	released := func() int {
		var n int
		if err := d.Get(&n, `SELECT count(*) FROM supplier_invoice_accruals WHERE journal_entry_id IS NOT NULL`); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := released(); n != 0 {
		t.Fatalf("%d months released at registration, none was due", n)
	}

	child := func() func() {
		cmd := serveChild(t, url, "KONTERA_ACCRUALS_EVERY=100ms")
		return func() { _ = cmd.Process.Kill(); _ = cmd.Wait() } // SIGKILL: no handing back
	}
	kill := child()
	deadline := time.Now().Add(3 * time.Minute) // a bound on a hang, not a timing
	for released() < invoices*months {          // a company's months booked
		if time.Now().After(deadline) {
			kill()
			t.Fatal("the first process released nothing")
		}
		time.Sleep(5 * time.Millisecond)
	}
	kill()
	first := released()
	if first%(invoices*months) != 0 || first >= total {
		t.Fatalf("after the kill %d of %d months released: not whole companies, or all of them", first, total)
	}
	t.Logf("killed after %d of %d months", first, total)
	if _, err := d.Exec(`UPDATE worker_leases SET until = now()`); err != nil {
		t.Fatal(err)
	}
	kill = child()
	defer kill()
	deadline = time.Now().Add(3 * time.Minute)
	for released() < total {
		if time.Now().After(deadline) {
			t.Fatalf("the second process left %d months", total-released())
		}
		time.Sleep(20 * time.Millisecond)
	}
	var entries, distinct, lines int
	var cost, prepaid string
	if err := d.QueryRow(`SELECT (SELECT count(*) FROM journal_entries WHERE source_type = 'accrual'),
			(SELECT count(DISTINCT journal_entry_id) FROM supplier_invoice_accruals),
			(SELECT count(*) FROM journal_lines l JOIN journal_entries e ON e.company_id = l.company_id
				AND e.id = l.journal_entry_id WHERE e.source_type = 'accrual'),
			(SELECT coalesce(sum(debit_amount - credit_amount), 0)::text FROM journal_lines WHERE account_number = '6310'),
			(SELECT coalesce(sum(debit_amount - credit_amount), 0)::text FROM journal_lines WHERE account_number = '1730')`).
		Scan(&entries, &distinct, &lines, &cost, &prepaid); err != nil {
		t.Fatal(err)
	}
	if entries != total || distinct != total || lines != 2*total || cost != "144000.00" || prepaid != "0.00" {
		t.Fatalf("%d accrual verifikat for %d months (%d distinct), %d lines; 6310 %s, 1730 %s", entries, total, distinct,
			lines, cost, prepaid)
	}
}
