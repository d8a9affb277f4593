package tests

import (
	"strings"
	"testing"
	"time"
)

// bokslutAccount finds an account of the bokslutsbilagor.
func bokslutAccount(t *testing.T, r *response, n string) map[string]any {
	t.Helper()
	for _, x := range r.list("data.accounts") {
		a := x.(map[string]any)
		if a["account_number"] == n {
			return a
		}
	}
	t.Fatalf("no account %s in %s", n, r.Body)
	return nil
}

// A half year of a VAT-registered company, and the reports that close
// it: the balance accounts with what specifies them, the processing
// history, and the compliance check's findings.
func TestClosingReports(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 6, 15, 9, 0, 0, 0, time.UTC) }))
	b.vatQuarterly()
	period := b.get(b.path("fiscal-periods"), b.token).status(t, 200).str("data.fiscal_periods.0.id")
	customer := b.createCustomer(map[string]any{"name": "Alfa AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	b.issued(customer, map[string]any{"invoice_date": "2026-02-01", "due_date": "2026-03-03"})
	b.supplierInvoice(b.supplier("Leverantören AB"), "F1", 1000, nil)
	// Q1 settled: 2 500 out, 200 in.
	q1 := b.get(b.path("reports/vat-declaration/settlement-proposal?period_type=quarterly&year=2026&period=1"), b.token).status(t, 200)
	b.write("POST", "vat/settlement", map[string]any{"period_type": "quarterly", "year": 2026, "period": 1,
		"expected_fingerprint": q1.str("data.fingerprint")}).status(t, 200)
	// Q2: a cash sale not yet settled.
	sale := b.write("POST", "journal-entries", map[string]any{"fiscal_period_id": period, "entry_date": "2026-04-10",
		"description": "Kontantförsäljning", "lines": []map[string]any{{"account_number": "1930", "debit_amount": 1250},
			{"account_number": "3001", "credit_amount": 1000}, {"account_number": "2611", "credit_amount": 250}}}).status(t, 201).str("data.id")
	b.write("POST", "journal-entries/"+sale+"/commit", nil).status(t, 200)
	// The bank says 1 750 on 5 January next year, 500 paid out on the
	// 2nd: 2 250 on the balance date.
	cash := b.write("POST", "cash-accounts", map[string]any{"name": "Företagskonto", "currency": "SEK"}).status(t, 201).str("data.cash_account_id")
	b.ingested(bankRow("tx-1", "2027-01-02", -500, "Hyra"))
	if _, err := b.db.Exec(`UPDATE cash_accounts SET balance = 1750, balance_updated_at = '2027-01-05T08:00:00Z'
		WHERE company_id = $1 AND id = $2`, b.company, cash); err != nil {
		t.Fatal(err)
	}

	r := b.get(b.path("reports/bokslutsbilagor?period_id="+period), b.token).status(t, 200)
	for n, want := range map[string][3]any{
		"1510": {12500.0, 12500.0, 0.0}, "2440": {-1250.0, -1250.0, 0.0}, "2611": {-250.0, -250.0, 0.0},
		"2641": {0.0, 0.0, 0.0}, "1930": {1250.0, 2250.0, -1000.0},
	} {
		a := bokslutAccount(t, r, n)
		if a["closing_balance"] != want[0] || a["external_balance"] != want[1] || a["difference"] != want[2] {
			t.Errorf("%s: %v / %v / %v, want %v", n, a["closing_balance"], a["external_balance"], a["difference"], want)
		}
	}
	vatSpec := bokslutAccount(t, r, "2611")["specification"].(map[string]any)
	if vatSpec["source"] != "vat_periods" || len(vatSpec["items"].([]any)) != 2 || bokslutAccount(t, r, "2650")["specification"] != nil ||
		bokslutAccount(t, r, "2650")["signoff"] != nil {
		t.Fatalf("VAT specification: %s", r.Body)
	}

	// The processing history: the invoice, the settlement, the chart.
	h := b.get(b.path("reports/behandlingshistorik?period_id="+period+"&limit=3"), b.token).status(t, 200)
	total := h.at("data.total_events").(float64)
	if h.str("data.mode") != "fiscal_year" || total < 6 || len(h.list("data.events")) != 3 || h.at("meta.next_cursor") == nil ||
		h.at("data.by_category.verifikation").(float64) < 3 {
		t.Fatalf("history: %s", h.Body)
	}
	seen := len(h.list("data.events"))
	for next := h.str("meta.next_cursor"); next != ""; {
		p := b.get(b.path("reports/behandlingshistorik?period_id="+period+"&limit=3&cursor="+next), b.token).status(t, 200)
		seen += len(p.list("data.events"))
		next, _ = p.at("meta.next_cursor").(string)
	}
	if float64(seen) != total {
		t.Fatalf("paged %d of %v events", seen, total)
	}
	v := b.get(b.path("reports/behandlingshistorik?period_id="+period+"&category=verifikation"), b.token).status(t, 200)
	if v.at("data.total_events") != h.at("data.by_category.verifikation") || v.str("data.events.0.category") != "verifikation" {
		t.Fatalf("verifikation: %s", v.Body)
	}
	b.get(b.path("reports/behandlingshistorik?period_id="+period+"&from_date=2026-05-01&to_date=2026-04-01"), b.token).
		errorCode(t, 400, "VALIDATION_ERROR")
	if d := b.get(b.path("reports/behandlingshistorik?period_id="+period+"&from_date=2025-01-01&to_date=2025-12-31"), b.token).status(t, 200); d.str("data.mode") != "date_range" ||
		d.at("data.total_events") != 0.0 {
		t.Fatalf("date range: %s", d.Body)
	}

	// The compliance check: Q1 not filed, Q2 not over; no gaps, no drafts.
	c := b.get(b.path("compliance/check?type=year_end_readiness&fiscal_period_id="+period), b.token).status(t, 200)
	codes := map[string]string{}
	for _, f := range c.list("data.findings") {
		m := f.(map[string]any)
		codes[m["code"].(string)] = m["severity"].(string)
	}
	if codes["VAT_PERIOD_NOT_FILED"] != "warning" || codes["VAT_PERIOD_NOT_SETTLED"] != "" || codes["VOUCHER_GAP"] != "" ||
		c.at("data.ready") != true || codes["AR_LEDGER_MISMATCH"] != "" {
		t.Fatalf("check: %s", c.Body)
	}
	// Verifikat on 1510 and 2440 that no invoice stands behind: both
	// registers differ from the books by exactly what they moved, read in
	// one look at the ledger.
	for _, lines := range [][]map[string]any{
		{{"account_number": "1510", "debit_amount": 1250}, {"account_number": "3001", "credit_amount": 1000},
			{"account_number": "2611", "credit_amount": 250}},
		{{"account_number": "6110", "debit_amount": 800}, {"account_number": "2440", "credit_amount": 800}},
	} {
		id := b.write("POST", "journal-entries", map[string]any{"fiscal_period_id": period, "entry_date": "2026-05-11",
			"description": "Utan reskontra", "lines": lines}).status(t, 201).str("data.id")
		b.write("POST", "journal-entries/"+id+"/commit", nil).status(t, 200)
	}
	c = b.get(b.path("compliance/check?type=year_end_readiness&fiscal_period_id="+period), b.token).status(t, 200)
	mismatch := map[string]map[string]any{}
	for _, f := range c.list("data.findings") {
		if m := f.(map[string]any); strings.HasSuffix(m["code"].(string), "_LEDGER_MISMATCH") {
			mismatch[m["code"].(string)] = m["details"].(map[string]any)
		}
	}
	for code, want := range map[string]float64{"AR_LEDGER_MISMATCH": 1250, "AP_LEDGER_MISMATCH": 800} {
		d := mismatch[code]
		if d == nil || d["difference"] != want || d["ledger_balance"].(float64)-d["register_total"].(float64) != want {
			t.Fatalf("%s: %s", code, c.Body)
		}
	}
	if ar := mismatch["AR_LEDGER_MISMATCH"]["accounts"].([]any); len(ar) != 2 || ar[0] != "1510" || ar[1] != "1513" {
		t.Fatalf("AR accounts: %v", ar)
	}
	// A draft blocks the year-end; a gap in a series too.
	b.write("POST", "journal-entries", map[string]any{"fiscal_period_id": period, "entry_date": "2026-05-11",
		"description": "Utkast", "lines": []map[string]any{{"account_number": "1930", "debit_amount": 10},
			{"account_number": "3001", "credit_amount": 10}}}).status(t, 201)
	if c = b.get(b.path("compliance/check?type=year_end_readiness&fiscal_period_id="+period), b.token).status(t, 200); c.at("data.ready") != false ||
		c.str("data.findings.0.code") != "YEAR_END_DRAFTS_PRESENT" || c.at("data.findings.0.details.draft_count") != 1.0 {
		t.Fatalf("drafts: %s", c.Body)
	}
	forge(t, &ledgerBooks{env: b.env, company: b.company}, `UPDATE journal_entries SET voucher_number = voucher_number + 10
		WHERE company_id = '`+b.company.String()+`' AND voucher_number = (SELECT max(voucher_number) FROM journal_entries
		WHERE company_id = '`+b.company.String()+`' AND status = 'posted' AND voucher_series = 'A') AND voucher_series = 'A'`)
	g := b.get(b.path("compliance/check?type=voucher_gaps&fiscal_period_id="+period), b.token).status(t, 200)
	if g.at("data.ready") != false || g.str("data.findings.0.code") != "VOUCHER_GAP" || len(g.list("data.findings.0.details.missing_numbers")) != 10 {
		t.Fatalf("gaps: %s", g.Body)
	}
	b.get(b.path("compliance/check?type=vat_close&fiscal_period_id="+period), b.token).errorCode(t, 400, "VALIDATION_ERROR")
	b.get(b.path("compliance/check?type=voucher_gaps"), b.token).errorCode(t, 400, "VALIDATION_ERROR")
}
