package tests

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
)

// The overview of a bureau's companies on 20 May 2026. The busy company
// has a bank row unbooked, a receipt in the inbox, a draft verifikat, a
// draft invoice and two invoices overdue: 12 500 due 31 March, and one of
// 12 500 due the same day paid 5 000, so 20 000 left; its first quarter's
// VAT return, due 12 May, is not filed; its bank account has no
// sign-off. The quiet company has nothing; a key allowed only the quiet
// one sees only it, and a key without companies:read is refused.
func TestPortfolioOverview(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 5, 20, 9, 0, 0, 0, time.UTC) }))
	b.vatQuarterly()
	// Set in SQL, the deadlines follow the profile once it changes.
	b.write("PATCH", "settings/tax-profile", map[string]any{"moms_period": "monthly"}).status(t, 200)
	if r := b.write("PATCH", "settings/tax-profile", map[string]any{"moms_period": "quarterly"}).status(t, 200); r.at("data.deadlines_regenerated") != true {
		t.Fatalf("tax profile: %s", r.Body)
	}
	quiet := b.env.company(b.token, "Lugna Bolaget AB")

	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	b.issued(customer, nil)
	part := b.issued(customer, nil)
	b.markPaid(part, map[string]any{"amount": 5000, "payment_date": "2026-04-10"}).status(t, 200)
	b.createInvoice(consulting(customer, nil)).status(t, 201)
	period := b.get(b.path("fiscal-periods"), b.token).status(t, 200).str("data.fiscal_periods.0.id")
	b.write("POST", "journal-entries", map[string]any{"fiscal_period_id": period, "entry_date": "2026-05-04", "description": "Utkast",
		"lines": []map[string]any{{"account_number": "1930", "debit_amount": 100}, {"account_number": "3001", "credit_amount": 100}}}).
		status(t, 201)
	b.write("POST", "cash-accounts", map[string]any{"name": "Företagskonto", "currency": "SEK"}).status(t, 201)
	b.write("POST", "transactions/ingest", map[string]any{"transactions": []map[string]any{
		{"date": "2026-05-07", "description": "KORTKÖP", "amount": -250, "currency": "SEK", "external_id": "P1"}}}).status(t, 200)
	lb := &ledgerBooks{env: b.env, token: b.token, base: b.path("")[:len(b.path(""))-1]}
	lb.upload(form{name: "kvitto.pdf", partType: "application/pdf", data: invoicePDF(t, "K-1")}, "").status(t, 201)

	r := b.get("/api/v1/portfolio/overview", b.token).status(t, 200)
	if r.str("data.as_of") != "2026-05-20" || len(r.list("data.companies")) != 2 {
		t.Fatalf("overview: %s", r.Body)
	}
	busy, calm := companyIn(t, r, b.company), companyIn(t, r, quiet)
	want := map[string]any{"unbooked_bank_transactions": 1.0, "inbox_items_waiting": 1.0, "draft_journal_entries": 1.0,
		"draft_invoices": 1.0, "role": "owner"}
	for k, v := range want {
		if busy[k] != v {
			t.Errorf("%s = %v, want %v", k, busy[k], v)
		}
	}
	if o := busy["overdue_invoices"].(map[string]any); o["count"] != 2.0 || o["amount_sek"] != 20000.0 {
		t.Errorf("overdue: %v", o)
	}
	if d, _ := busy["next_deadline"].(map[string]any); d == nil || d["deadline_type"] != "vat_return" || d["tax_period"] != "2026-Q1" ||
		d["due_date"] != "2026-05-12" || d["status"] != "overdue" {
		t.Errorf("next deadline: %v", busy["next_deadline"])
	}
	if rc := busy["reconciliation"].(map[string]any); rc["status"] != "unsigned" || rc["bank_accounts"] != 1.0 || rc["signed_off"] != 0.0 ||
		rc["signed_off_through"] != nil {
		t.Errorf("reconciliation: %v", rc)
	}
	for k := range want {
		if k != "role" && calm[k] != 0.0 {
			t.Errorf("the quiet company's %s = %v", k, calm[k])
		}
	}
	// Its next return is the income tax return, then the annual report.
	if d, _ := calm["next_deadline"].(map[string]any); d == nil || d["deadline_type"] != "income_tax_return" || d["status"] != "upcoming" {
		t.Errorf("the quiet company's next deadline: %v", calm["next_deadline"])
	}
	if rc := calm["reconciliation"].(map[string]any); rc["status"] != "none" {
		t.Errorf("the quiet company's reconciliation: %v", rc)
	}
	// A page at a time, in the order the companies list.
	page := b.get("/api/v1/portfolio/overview?limit=1", b.token).status(t, 200)
	if len(page.list("data.companies")) != 1 || page.str("data.companies.0.company_id") != b.company.String() {
		t.Fatalf("first page: %s", page.Body)
	}
	next := b.get("/api/v1/portfolio/overview?limit=1&cursor="+page.str("meta.next_cursor"), b.token).status(t, 200)
	if len(next.list("data.companies")) != 1 || next.str("data.companies.0.company_id") != quiet.String() || next.at("meta.next_cursor") != nil {
		t.Fatalf("second page: %s", next.Body)
	}

	only := b.key("kund@example.se", keySpec{allowlist: []uuid.UUID{quiet}})
	if o := b.get("/api/v1/portfolio/overview", only).status(t, 200); len(o.list("data.companies")) != 1 ||
		o.str("data.companies.0.company_id") != quiet.String() {
		t.Fatalf("an allowlisted key: %s", o.Body)
	}
	b.get("/api/v1/portfolio/overview", b.key("kund@example.se", keySpec{scopes: []string{"invoices:read"}})).
		errorCode(t, 403, "INSUFFICIENT_SCOPE")
}

// A company whose deadlines were made before the annual report was one
// gets it when the server catches up, once: due 31 July 2027, a
// Saturday, so 2 August.
func TestAnnualReportDeadlineCaughtUp(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	annual := `SELECT count(*) FROM tax_deadlines WHERE company_id = $1 AND deadline_type = 'annual_report'
		AND form = 'arsredovisning' AND due_date = '2027-08-02'`
	if n := b.count(annual, b.company); n != 1 {
		t.Fatalf("%d annual report deadlines at the start", n)
	}
	if _, err := b.db.Exec(`DELETE FROM tax_deadlines WHERE company_id = $1 AND deadline_type = 'annual_report'`, b.company); err != nil {
		t.Fatal(err)
	}
	if n, err := b.server.CatchUpDeadlines(context.Background()); err != nil || n < 1 {
		t.Fatalf("caught up %d (%v)", n, err)
	}
	if n := b.count(annual, b.company); n != 1 {
		t.Fatalf("%d annual report deadlines after the catch-up", n)
	}
	l := b.get(b.path("deadlines?type=annual_report"), b.token).status(t, 200).list("data.deadlines")
	if len(l) != 1 || l[0].(map[string]any)["status"] != "upcoming" {
		t.Fatalf("listed: %v", l)
	}
}

// companyIn is company's row of an overview.
func companyIn(t *testing.T, r *response, company uuid.UUID) map[string]any {
	t.Helper()
	for _, c := range r.list("data.companies") {
		if m := c.(map[string]any); m["company_id"] == company.String() {
			return m
		}
	}
	t.Fatalf("%s is not in the overview: %s", company, r.Body)
	return nil
}
