package tests

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/documents/samples"
	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/store"
)

// emitted are the event types the operations below emit, each reaching
// a subscribed receiver (operation.completed: the proposals' recompute
// after an ingest). invoice.overdue and invoice.email_failed are made by
// the clock and the mail server (TestInvoiceOverdueEvent,
// TestInvoiceSendRetries), accrual.release_refused by a locked period
// (TestAccrualsListAndRelease), the api_key.* events by the keys' own
// tests; internal/outbox's TestCatalogue holds every type to the
// document.
var emitted = []string{"agi.generated", "asset.created", "asset.depreciated", "asset.disposed", "credit_note.created", "customer.created", "document.uploaded", "invoice.created",
	"invoice.paid", "invoice.sent", "journal_entry.committed", "journal_entry.corrected", "journal_entry.reversed",
	"operation.completed", "period.locked", "period.unlocked", "period.year_closed", "reconciliation.matched",
	"reconciliation.reopened",
	"reconciliation.signed_off", "reconciliation.unmatched", "salary_run.approved", "salary_run.booked",
	"salary_run.created", "supplier.created", "supplier_invoice.approved",
	"supplier_invoice.credited", "supplier_invoice.paid", "supplier_invoice.registered", "supplier_invoice.uncredited",
	"transaction.categorized", "transaction.reconciled", "transaction.synced"}

// Every event type internal/ emits, each made by the operation that
// emits it through the API: every event reaches the webhook subscribed to
// its type exactly once, signed, its body valid against the document's
// webhooks entry for the type.
func TestEveryEventTypeIsDelivered(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	db, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	b := newLedgerOn(t, db, withHooks(url, testCA(t), 0))
	b.env.deliver()
	path := func(p string) string { return b.base + "/" + p }
	write := func(method, p string, body any) *response {
		t.Helper()
		return b.do(req{Method: method, Path: path(p), Token: b.token, Body: body,
			Header: map[string]string{"Idempotency-Key": ik()}})
	}
	rc := newReceiver(t, nil)
	secrets := map[string]string{}
	for _, typ := range emitted {
		r := write("POST", "webhooks", map[string]any{"event_type": typ, "webhook_url": rc.URL + "/" + typ,
			"name": typ}).status(t, 201)
		secrets[typ] = r.str("data.secret")
	}

	// Customers and invoices.
	customer := write("POST", "customers", addressed(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"})).
		status(t, 201).str("data.id")
	issue := func() (string, float64) {
		inv := write("POST", "invoices", consulting(customer, nil)).status(t, 201).str("data.id")
		write("POST", "invoices/"+inv+"/mark-sent", nil).status(t, 200)
		return inv, b.get(path("invoices/"+inv), b.token).status(t, 200).at("data.total").(float64)
	}
	paid, total := issue()
	write("POST", "invoices/"+paid+"/mark-paid", map[string]any{"amount": total}).status(t, 200)
	credited, _ := issue()
	write("POST", "invoices/"+credited+"/credit", nil).status(t, 200)

	// Suppliers and their invoices.
	supplier := write("POST", "suppliers", map[string]any{"name": "Kontorsgrossisten AB", "supplier_type": "swedish_business",
		"default_expense_account": "5410"}).status(t, 201).str("data.id")
	register := func(number string) string {
		return write("POST", "supplier-invoices", map[string]any{"supplier_id": supplier, "supplier_invoice_number": number,
			"invoice_date": b.day("03-02"), "due_date": b.day("04-01"), "items": []any{
				map[string]any{"description": "Papper", "amount": 300}, map[string]any{"description": "Pennor", "amount": 100}}}).
			status(t, 201).str("data.id")
	}
	si1 := register("F-1")
	write("POST", "supplier-invoices/"+si1+"/approve", nil).status(t, 200)
	write("POST", "supplier-invoices/"+si1+"/mark-paid", map[string]any{"amount": 400, "payment_date": b.day("03-04")}).
		status(t, 200)
	si2 := register("F-2")
	write("POST", "supplier-invoices/"+si2+"/credit", map[string]any{"credit_date": b.day("03-05")}).status(t, 200)
	write("POST", "supplier-invoices/"+si2+"/uncredit", nil).status(t, 200)
	si3 := register("F-3")
	pens := b.get(path("supplier-invoices/"+si3+"?expand=items"), b.token).status(t, 200).str("data.items.1.id")
	write("PATCH", "supplier-invoices/"+si3+"/items/"+pens, map[string]any{"account_number": "6110"}).status(t, 200)

	// A fixed asset: added, two months depreciated, sold.
	asset := write("POST", "assets", map[string]any{"name": "Dator", "asset_class": "datorer", "acquisition_date": b.day("01-15"),
		"acquisition_value": 12000, "useful_life_months": 36}).status(t, 201).str("data.id")
	write("POST", "assets/depreciation", map[string]any{"through_month": b.year + "-02"}).status(t, 200)
	write("POST", "assets/"+asset+"/dispose", map[string]any{"disposal_date": b.day("03-20"), "price": 5000}).status(t, 200)

	// Bank transactions: one categorized, one linked to the verifikat
	// that booked it by hand.
	write("POST", "cash-accounts", map[string]any{"name": "Företagskonto", "currency": "SEK"}).status(t, 201)
	txs := write("POST", "transactions/ingest", map[string]any{"transactions": []any{
		map[string]any{"external_id": "B1", "date": b.day("03-10"), "amount": -45, "currency": "SEK", "description": "AVGIFT"},
		map[string]any{"external_id": "B2", "date": b.day("03-11"), "amount": -8000, "currency": "SEK", "description": "HYRA"}}}).
		status(t, 200).list("data.transaction_ids")
	write("POST", "transactions/"+txs[0].(string)+"/categorize", map[string]any{"is_business": true, "template_id": "bank_fee"}).
		status(t, 200)
	rent := write("POST", "journal-entries", map[string]any{"fiscal_period_id": b.period, "entry_date": b.day("03-11"),
		"description": "Hyra", "lines": []any{map[string]any{"account_number": "5010", "debit_amount": 8000},
			map[string]any{"account_number": "1930", "credit_amount": 8000}}}).status(t, 201).str("data.id")
	write("POST", "journal-entries/"+rent+"/commit", nil).status(t, 200)
	write("POST", "transactions/"+txs[1].(string)+"/link-journal-entry", map[string]any{"journal_entry_id": rent}).status(t, 200)

	// Periods and documents.
	b.periodAction(b.period, "lock", nil).status(t, 200)
	b.periodAction(b.period, "unlock", nil).status(t, 200)
	y0, _ := b.pastYear(t)
	b.periodAction(y0, "close-external", nil).status(t, 200)
	b.upload(form{name: "kvitto.pdf", partType: "application/pdf", data: samples.PDF()}, "").status(t, 201)

	// Reconciliation: a row linked, unlinked and linked again, the account
	// signed off through its last row and reopened.
	row := write("POST", "transactions/ingest", map[string]any{"transactions": []any{map[string]any{"external_id": "B3",
		"date": b.day("03-12"), "amount": -2000, "currency": "SEK", "description": "KONTOR"}}}).status(t, 200).
		str("data.transaction_ids.0")
	office := write("POST", "journal-entries", map[string]any{"fiscal_period_id": b.period, "entry_date": b.day("03-12"),
		"description": "Kontorsmaterial", "lines": []any{map[string]any{"account_number": "5410", "debit_amount": 2000},
			map[string]any{"account_number": "1930", "credit_amount": 2000}}}).status(t, 201).str("data.id")
	write("POST", "journal-entries/"+office+"/commit", nil).status(t, 200)
	accounts := b.get(path("reconciliation/accounts"), b.token).status(t, 200)
	key := accounts.str("data.accounts.0.account_key")
	link := map[string]any{"pairs": []any{map[string]any{"external_ids": []any{row}, "journal_entry_ids": []any{office}}}}
	write("POST", "reconciliation/accounts/"+key+"/links", link).status(t, 200)
	write("DELETE", "reconciliation/accounts/"+key+"/links/"+row, nil).status(t, 200)
	write("POST", "reconciliation/accounts/"+key+"/links", link).status(t, 200)
	signed := write("POST", "reconciliation/accounts/"+key+"/signoff", map[string]any{"through_date": b.day("03-12")}).status(t, 200)
	write("POST", "reconciliation/accounts/"+key+"/signoff/"+signed.str("data.signoff.id")+"/reopen",
		map[string]any{"reason": "Ett kvitto saknades"}).status(t, 200)

	// Payroll: an F-skatt contractor paid in the books' year, whose run
	// needs neither tax tables nor avgift rates, created, approved, its
	// AGI generated and booked.
	if _, err := db.Exec(`UPDATE companies SET org_number = '5566778899' WHERE id = $1`, b.company); err != nil {
		t.Fatal(err)
	}
	year, _ := strconv.Atoi(b.year)
	contractor := write("POST", "employees", map[string]any{"personnummer": "19850312-2387", "first_name": "Frida",
		"last_name": "Konsult", "employment_type": "employee", "employment_start": b.day("01-01"), "salary_type": "hourly",
		"hourly_rate": 900, "f_skatt_status": "f_skatt", "vacation_rule": "none", "clearing_number": "8327",
		"bank_account_number": "9145678"}).status(t, 201).str("data.id")
	write("PATCH", "salary/settings", map[string]any{"agi_contact_name": "Karin Ek", "agi_contact_phone": "060-12 34 56",
		"agi_contact_email": "lon@example.se"}).status(t, 200)
	run := "salary-runs/" + write("POST", "salary-runs", map[string]any{"period_year": year, "period_month": 3,
		"payment_date": b.day("03-25")}).status(t, 201).str("data.id")
	write("POST", run+"/employees/"+contractor+"/lines", map[string]any{"item_type": "hours", "quantity": 10, "unit_price": 900}).
		status(t, 201)
	write("POST", run+"/calculate", nil).status(t, 200)
	write("POST", run+"/approve", nil).status(t, 200)
	write("POST", run+"/generate-agi", nil).status(t, 200)
	write("POST", run+"/book", nil).status(t, 200)

	// Every event of every type, each to its webhook once.
	var events []struct {
		ID   string `db:"id"`
		Type string `db:"type"`
	}
	if err := db.Select(&events, `SELECT id, type FROM events WHERE company_id = $1`, b.company); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for _, e := range events {
		want[e.Type]++
	}
	var types []string
	for typ := range want {
		types = append(types, typ)
	}
	sort.Strings(types)
	if strings.Join(types, " ") != strings.Join(emitted, " ") {
		t.Fatalf("the operations emitted %v, want %v", types, emitted)
	}
	hits := rc.wait(t, len(events), 20*time.Second)
	time.Sleep(time.Second) // a sweep and more: nothing comes twice
	hits = rc.all()
	if len(hits) != len(events) {
		t.Fatalf("%d deliveries for %d events", len(hits), len(events))
	}
	seen := map[string]bool{}
	got := map[string]int{}
	for _, h := range hits {
		typ := h.Header.Get("X-Kontera-Event")
		id := h.Header.Get("X-Kontera-Delivery")
		if seen[id] {
			t.Fatalf("delivery %s came twice", id)
		}
		seen[id] = true
		got[typ]++
		b.verify(h, secrets[typ], typ)
	}
	for typ, n := range want {
		if got[typ] != n {
			t.Errorf("%s: %d delivered, %d emitted", typ, got[typ], n)
		}
	}
}
