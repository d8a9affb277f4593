package tests

import (
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/documents/samples"
	"github.com/kontera/kontera/internal/httpapi"
	"github.com/kontera/kontera/internal/pgtest"
)

// Statement budgets: how many statements (round trips to PostgreSQL) an
// operation may take, counted by a driver that wraps lib/pq. A count is
// deterministic: this is no timed test. When an operation needs more,
// raise its budget here on purpose, with the reason in the commit.
// `make bench` prints the table; KONTERA_STATEMENTS=1 with -v lists each
// operation's statements.
var budgets = map[string]int64{
	"createJournalEntry":        7,
	"replay":                    4,
	"commitJournalEntry":        7,
	"reverseJournalEntry":       13, // +1: the bank unbooks what the verifikat booked (one UPDATE … RETURNING)
	"createCustomer":            9,
	"createInvoice":             8,
	"markInvoiceSent":           11,
	"markInvoicePaid":           10, // +1: a payment short of what is left reads the company's write-off limit
	"creditInvoice":             13,
	"updateInvoice":             9,
	"getTrialBalance":           4,
	"getKpi":                    8,  // the year, the chart (names and balance-sheet exceptions at once), months, cash and VAT on the day, receivables, payment days, suppliers
	"getBokslutsbilagor":        10, // the year, the chart, balances, both registers, the company twice (heading, declarant), VAT periods, bank balances, sign-offs
	"getComplianceCheck":        21, // year_end_readiness: every check's own read (gaps, notes, drafts, trial, accruals, assets, adjustments, prior year, VAT, registers)
	"getGeneralLedger":          5,
	"listJournalEntries":        2,
	"getApiKey":                 2,
	"uploadDocument":            8, // +2 since it waits in the inbox: the item and its audit row
	"createSupplierInvoice":     11,
	"markSupplierInvoicePaid":   12,
	"getDocumentFile":           1,
	"createWebhook":             6,
	"testWebhook":               5,
	"listEvents":                2,
	"createReconciliationLinks": 18, // reads both sides of the account (rows, verifikat, links, proposals, balances, the sign-off) and holds the rows before it writes
}

func TestStatementBudgets(t *testing.T) {
	t.Parallel()
	d, counter := pgtest.NewCounted(t)
	// The workers look for work once, at start, and not while we count.
	b := newLedgerOn(t, d, idleWorkers(), primaryOnly(), func(c *httpapi.Config) { c.Webhooks.Client.Guard.AllowLoopback = true })
	b.get("/api/v1/api-key", b.token).status(t, 200)
	time.Sleep(50 * time.Millisecond)
	measure := func(name string, do func()) int64 {
		t.Helper()
		before := counter.N()
		do()
		n := counter.N() - before
		t.Logf("%-22s %3d statements (budget %d)", name, n, budgets[name])
		sent := ""
		for i, q := range counter.Sent(before) {
			sent += fmt.Sprintf("\n  %2d %s", i+1, strings.Join(strings.Fields(q), " "))
		}
		if n > budgets[name] {
			t.Errorf("%s took %d statements, its budget is %d:%s", name, n, budgets[name], sent)
		} else if os.Getenv("KONTERA_STATEMENTS") != "" {
			t.Log(sent)
		}
		return n
	}
	var id string
	key := ik()
	measure("createJournalEntry", func() {
		id = b.post(b.base+"/journal-entries", b.token, b.sale("03-15"), "Idempotency-Key", key).status(t, 201).str("data.id")
	})
	measure("replay", func() {
		b.post(b.base+"/journal-entries", b.token, b.sale("03-15"), "Idempotency-Key", key).status(t, 201)
	})
	measure("commitJournalEntry", func() { b.action(id, "commit", nil).status(t, 200) })
	measure("reverseJournalEntry", func() {
		b.action(id, "reverse", map[string]any{"reversal_date": b.day("03-20")}).status(t, 200)
	})
	var customer string
	measure("createCustomer", func() {
		customer = b.post(b.base+"/customers", b.token, addressed(map[string]any{"name": "Byggbolaget i Norrland AB",
			"customer_type": "swedish_business", "org_number": "556334-3689"}), "Idempotency-Key", ik()).status(t, 201).str("data.id")
	})
	var invoice string
	measure("createInvoice", func() {
		invoice = b.post(b.base+"/invoices", b.token, map[string]any{"customer_id": customer, "invoice_date": b.day("03-01"),
			"items": []any{map[string]any{"description": "Konsulttimmar", "quantity": 10, "unit": "tim", "unit_price": 1000}}},
			"Idempotency-Key", ik()).status(t, 201).str("data.id")
	})
	measure("markInvoiceSent", func() {
		b.post(b.base+"/invoices/"+invoice+"/mark-sent", b.token, nil, "Idempotency-Key", ik()).status(t, 200)
	})
	measure("markInvoicePaid", func() {
		b.post(b.base+"/invoices/"+invoice+"/mark-paid", b.token, map[string]any{"amount": 5000, "payment_date": b.day("03-20")},
			"Idempotency-Key", ik()).status(t, 200)
	})
	measure("creditInvoice", func() {
		b.post(b.base+"/invoices/"+invoice+"/credit", b.token, map[string]any{}, "Idempotency-Key", ik()).status(t, 200)
	})
	draft := b.post(b.base+"/invoices", b.token, map[string]any{"customer_id": customer, "invoice_date": b.day("03-01"),
		"items": []any{map[string]any{"description": "Konsulttimmar", "quantity": 10, "unit": "tim", "unit_price": 1000}}},
		"Idempotency-Key", ik()).status(t, 201).str("data.id")
	measure("updateInvoice", func() {
		b.do(req{Method: "PATCH", Path: b.base + "/invoices/" + draft, Token: b.token, Body: map[string]any{"notes": "Ändrad"},
			Header: map[string]string{"Idempotency-Key": ik()}}).status(t, 200)
	})
	supplier := b.post(b.base+"/suppliers", b.token, map[string]any{"name": "Kontorsgrossisten AB", "supplier_type": "swedish_business",
		"default_expense_account": "5410"}, "Idempotency-Key", ik()).status(t, 201).str("data.id")
	var bought string
	measure("createSupplierInvoice", func() {
		bought = b.post(b.base+"/supplier-invoices", b.token, map[string]any{"supplier_id": supplier, "supplier_invoice_number": "F-1",
			"invoice_date": b.day("03-02"), "due_date": b.day("04-01"), "items": []any{
				map[string]any{"description": "Papper", "amount": 1000}, map[string]any{"description": "Pennor", "amount": 200, "account_number": "5460"}}},
			"Idempotency-Key", ik()).status(t, 201).str("data.id")
	})
	measure("markSupplierInvoicePaid", func() {
		b.post(b.base+"/supplier-invoices/"+bought+"/mark-paid", b.token, map[string]any{"payment_date": b.day("03-20")},
			"Idempotency-Key", ik()).status(t, 200)
	})
	q := url.Values{"period_id": {b.period}}.Encode()
	measure("getTrialBalance", func() { b.get(b.base+"/reports/trial-balance?"+q, b.token).status(t, 200) })
	measure("getKpi", func() { b.get(b.base+"/reports/kpi?"+q, b.token).status(t, 200) })
	measure("getBokslutsbilagor", func() { b.get(b.base+"/reports/bokslutsbilagor?"+q, b.token).status(t, 200) })
	measure("getComplianceCheck", func() {
		b.get(b.base+"/compliance/check?type=year_end_readiness&fiscal_period_id="+b.period, b.token).status(t, 200)
	})
	measure("getGeneralLedger", func() { b.get(b.base+"/reports/general-ledger?"+q, b.token).status(t, 200) })
	measure("listJournalEntries", func() { b.get(b.base+"/journal-entries", b.token).status(t, 200) })
	measure("getApiKey", func() { b.get("/api/v1/api-key", b.token).status(t, 200) })
	var doc string
	measure("uploadDocument", func() {
		doc = b.upload(form{name: "kvitto.pdf", data: samples.PDF()}, "").status(t, 201).str("data.id")
	})
	link := b.get(b.base+"/documents/"+doc+"/download", b.token).status(t, 200).str("data.download_url")
	measure("getDocumentFile", func() { b.get(strings.TrimPrefix(link, base), "").status(t, 200) })
	var hook string
	measure("createWebhook", func() {
		hook = b.post(b.base+"/webhooks", b.token, map[string]any{"event_type": "invoice.paid",
			"webhook_url": "https://127.0.0.1:9/kontera", "name": "Betalningar"}, "Idempotency-Key", ik()).status(t, 201).str("data.id")
	})
	measure("testWebhook", func() { b.post(b.base+"/webhooks/"+hook+"/test", b.token, nil).status(t, 202) })
	measure("listEvents", func() { b.get(b.base+"/events?limit=20", b.token).status(t, 200) })
	cash := b.post(b.base+"/cash-accounts", b.token, map[string]any{"name": "Företagskonto", "currency": "SEK"},
		"Idempotency-Key", ik()).status(t, 201).str("data.cash_account_id")
	row := b.post(b.base+"/transactions/ingest", b.token, map[string]any{"transactions": []any{map[string]any{"external_id": "R1",
		"date": b.day("03-25"), "amount": -8000, "currency": "SEK", "description": "HYRA"}}}, "Idempotency-Key", ik()).
		status(t, 200).str("data.transaction_ids.0")
	rent := b.post(b.base+"/journal-entries", b.token, map[string]any{"fiscal_period_id": b.period, "entry_date": b.day("03-25"),
		"description": "Hyra", "lines": []any{map[string]any{"account_number": "5010", "debit_amount": 8000},
			map[string]any{"account_number": "1930", "credit_amount": 8000}}}, "Idempotency-Key", ik()).status(t, 201).str("data.id")
	b.action(rent, "commit", nil).status(t, 200)
	measure("createReconciliationLinks", func() {
		b.post(b.base+"/reconciliation/accounts/bank:"+cash+"/links", b.token, map[string]any{"pairs": []any{
			map[string]any{"external_ids": []any{row}, "journal_entry_ids": []any{rent}}}}, "Idempotency-Key", ik()).status(t, 200)
	})
}

// Payroll's writes read and write a run's payslips in a statement each,
// whatever the roster's size: calculating and booking a run of two
// employees and of six take the same number of statements.
func TestPayrollStatementBudgets(t *testing.T) {
	t.Parallel()
	d, counter := pgtest.NewCounted(t)
	m := &may2026{now: payrollNow()}
	e := envOn(t, d, idleWorkers(), primaryOnly(), clock(func() time.Time { return m.now }))
	token := e.key("lon@example.se", keySpec{})
	company := e.post("/api/v1/companies", token, map[string]any{"name": "Sundsvalls Bygg AB", "entity_type": "aktiebolag",
		"org_number": "5566778899", "vat_registered": false, "f_skatt": true}).status(t, 201).str("data.id")
	m.partiesBooks = &partiesBooks{env: e, token: token, company: uuid.MustParse(company)}
	loadTaxTables(t, m.env)
	time.Sleep(50 * time.Millisecond)
	counts := map[string][]int64{}
	for i, size := range []int{2, 6} {
		for n := 0; n < size; n++ {
			p := fmt.Sprintf("19%02d%02d%02d", 70+n, 1+i, 10+n) + "123"
			m.write("POST", "employees", map[string]any{"personnummer": p + luhnDigit(p[2:]), "first_name": "Anställd",
				"last_name": fmt.Sprint(i, n), "employment_type": "employee", "employment_start": "2025-01-01",
				"salary_type": "monthly", "monthly_salary": 30000 + 1000*n, "tax_table_number": 30, "tax_column": 1,
				"clearing_number": "8327", "bank_account_number": "9145678"}).status(t, 201)
		}
		run := "salary-runs/" + m.write("POST", "salary-runs", map[string]any{"period_year": 2026, "period_month": 3 + i}).
			status(t, 201).str("data.id")
		for _, op := range []string{"calculate", "approve", "book"} {
			before := counter.N()
			m.write("POST", run+"/"+op, nil).status(t, 200)
			counts[op] = append(counts[op], counter.N()-before)
			if os.Getenv("KONTERA_STATEMENTS") != "" {
				for j, q := range counter.Sent(before) {
					t.Logf("%s %2d %.160s", op, j+1, strings.Join(strings.Fields(q), " "))
				}
			}
		}
	}
	// Book posts three verifikat (salaries, avgifter, the liability) at three statements each.
	budget := map[string]int64{"calculate": 20, "approve": 10, "book": 25}
	for op, c := range counts {
		t.Logf("%-10s %v statements for 2 and 6 employees (budget %d)", op, c, budget[op])
		if c[1] > c[0] {
			t.Errorf("%s grows with the roster: %v", op, c)
		}
		if max(c[0], c[1]) > budget[op] {
			t.Errorf("%s took %v statements, its budget is %d", op, c, budget[op])
		}
	}
}

// With a read replica the budgets hold: a read the replica answers takes
// its statements there and only its key's look-up on the primary, and a
// write takes one more, the position of its commit for its answer's
// consistency token.
func TestStatementBudgetsWithAReadReplica(t *testing.T) {
	t.Parallel()
	d, onPrimary := pgtest.NewCounted(t)
	onReplica := &pgtest.Counter{}
	// Looked at once, at start: its watch's statements are not counted.
	startStandby(t, d, pgtest.ReadOnly(t, d, onReplica), time.Hour)
	b := newLedgerOn(t, d, idleWorkers())
	b.get("/api/v1/api-key", b.token).status(t, 200)
	time.Sleep(50 * time.Millisecond)
	measure := func(name string, write bool, do func()) {
		t.Helper()
		p, r := onPrimary.N(), onReplica.N()
		do()
		p, r = onPrimary.N()-p, onReplica.N()-r
		budget := budgets[name]
		switch {
		case write && (r != 0 || p > budget+1):
			t.Errorf("%s: %d statements on the primary and %d on the replica; a write's budget is %d+1 on the primary",
				name, p, r, budget)
		case !write && (p != 1 || p+r > budget):
			t.Errorf("%s: %d statements on the primary and %d on the replica; a read's budget is %d, one (the key) on the primary",
				name, p, r, budget)
		}
		t.Logf("%-20s %d on the primary, %d on the replica (budget %d)", name, p, r, budget)
	}
	var id string
	measure("createJournalEntry", true, func() {
		id = b.post(b.base+"/journal-entries", b.token, b.sale("03-15"), "Idempotency-Key", ik()).status(t, 201).str("data.id")
	})
	measure("commitJournalEntry", true, func() { b.action(id, "commit", nil).status(t, 200) })
	q := url.Values{"period_id": {b.period}}.Encode()
	measure("getTrialBalance", false, func() { b.get(b.base+"/reports/trial-balance?"+q, b.token).status(t, 200) })
	measure("getKpi", false, func() { b.get(b.base+"/reports/kpi?"+q, b.token).status(t, 200) })
	measure("getGeneralLedger", false, func() { b.get(b.base+"/reports/general-ledger?"+q, b.token).status(t, 200) })
	measure("listJournalEntries", false, func() { b.get(b.base+"/journal-entries", b.token).status(t, 200) })
	measure("listEvents", false, func() { b.get(b.base+"/events?limit=20", b.token).status(t, 200) })

	// The SIE file is read in one snapshot transaction on the replica,
	// its statements prepared on the replica's connection.
	p, r := onPrimary.N(), onReplica.N()
	file := b.get(b.base+"/reports/sie-export?period_id="+b.period, b.token).status(t, 200)
	if !strings.Contains(string(file.Body), "#VER") || onPrimary.N()-p != 1 || onReplica.N()-r < 3 {
		t.Fatalf("the SIE file: %d statements on the primary, %d on the replica", onPrimary.N()-p, onReplica.N()-r)
	}
}
