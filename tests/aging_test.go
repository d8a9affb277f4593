package tests

import (
	"testing"
	"time"
)

// agingTotals reads a ledger's totals: not_due, 0-30, 31-60, 61-90, 90+,
// total.
func agingTotals(r *response) [6]float64 {
	var out [6]float64
	for i, k := range []string{"not_due", "days_0_30", "days_31_60", "days_61_90", "days_90_plus", "total"} {
		out[i] = r.at("data.totals." + k).(float64)
	}
	return out
}

// Receivables and payables on three days, aged by hand: payments, a
// credit note and not-yet-due invoices counted on the day they happened,
// the totals reconciled to 1510 + 1513 and 2440.
func TestLedgersAgeOnADay(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 6, 15, 9, 0, 0, 0, time.UTC) }))
	a := b.createCustomer(map[string]any{"name": "Alfa AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	c := b.createCustomer(map[string]any{"name": "Beta AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	inv1 := b.issued(a, map[string]any{"invoice_date": "2026-03-01", "due_date": "2026-03-31"})
	b.markPaid(inv1, map[string]any{"amount": 2500, "payment_date": "2026-04-10"}).status(t, 200)
	b.issued(a, map[string]any{"invoice_date": "2026-05-01", "due_date": "2026-05-31"})
	inv3 := b.issued(c, map[string]any{"invoice_date": "2026-01-10", "due_date": "2026-02-09"})
	b.credit(inv3, map[string]any{}).status(t, 200)
	b.issued(c, map[string]any{"invoice_date": "2026-06-10", "due_date": "2026-07-10"})

	ar := func(day string) *response {
		path := "reports/ar-ledger"
		if day != "" {
			path += "?as_of_date=" + day
		}
		return b.get(b.path(path), b.token).status(t, 200)
	}
	// 31 March: invoice 1 due that day (not yet due), invoice 3 50 days
	// past due.
	r := ar("2026-03-31")
	if got := agingTotals(r); got != [6]float64{12500, 12500, 12500, 0, 0, 25000} || len(r.list("data.customers")) != 2 ||
		r.at("data.reconciliation.ledger_balance") != 25000.0 || r.at("data.reconciliation.difference") != 0.0 {
		t.Fatalf("31 March: %v %s", got, r.Body)
	}
	// 14 June: 10 000 left of invoice 1, 75 days past due; invoice 2 14
	// days; invoice 3 125 days, credited only tomorrow; invoice 4 not due.
	r = ar("2026-06-14")
	if got := agingTotals(r); got != [6]float64{12500, 25000, 0, 10000, 12500, 47500} {
		t.Fatalf("14 June: %v %s", got, r.Body)
	}
	if r.str("data.customers.0.customer_name") != "Alfa AB" || r.at("data.customers.0.invoices.0.remaining_amount") != 10000.0 ||
		r.str("data.customers.0.invoices.0.status") != "overdue" || r.at("data.customers.0.invoices.0.days_overdue") != 75.0 ||
		r.str("data.customers.0.invoices.0.bucket") != "61-90" || r.at("data.customers.0.invoices.0.paid_amount") != 2500.0 ||
		r.str("data.customers.1.invoices.1.status") != "sent" || r.str("data.customers.1.invoices.0.bucket") != "90+" {
		t.Fatalf("14 June rows: %s", r.Body)
	}
	// Today: the credit note settled invoice 3.
	r = ar("")
	if got := agingTotals(r); got != [6]float64{12500, 25000, 0, 10000, 0, 35000} || r.str("data.as_of_date") != "2026-06-15" ||
		r.at("data.reconciliation.ledger_balance") != 35000.0 || r.at("data.reconciliation.difference") != 0.0 ||
		r.str("data.register_coverage.covers_from") != "2026-01-10" || r.at("data.register_coverage.has_pre_register_invoices") != false {
		t.Fatalf("today: %v %s", got, r.Body)
	}
	b.get(b.path("reports/ar-ledger?as_of_date=1999-12-31"), b.token).errorCode(t, 400, "VALIDATION_ERROR")
	b.get(b.path("reports/ar-ledger?as_of_date=2028-01-01"), b.token).errorCode(t, 400, "VALIDATION_ERROR")
	b.get(b.path("reports/ar-ledger?as_of_date=2026-02-30"), b.token).errorCode(t, 400, "VALIDATION_ERROR")
	if r := b.get(b.path("reports/ar-ledger?as_of_date=2027-12-31&period_id=x"), b.token).status(t, 200); r.Header.Get("X-Ignored-Query-Params") != "period_id" {
		t.Fatalf("ignored: %v", r.Header)
	}

	// Payables: 1 000 due 1 April paid 2 May; 2 000 due 1 July.
	s := b.supplier("Leverantören AB")
	f1 := b.supplierInvoice(s, "F1", 1000, nil)
	b.write("POST", "supplier-invoices/"+f1+"/mark-paid", map[string]any{"amount": 1000, "payment_date": "2026-05-02"}).status(t, 200)
	b.supplierInvoice(s, "F2", 2000, map[string]any{"invoice_date": "2026-06-01", "due_date": "2026-07-01"})
	ap := func(day string) *response {
		return b.get(b.path("reports/supplier-ledger?as_of_date="+day), b.token).status(t, 200)
	}
	if r = ap("2026-04-15"); agingTotals(r) != [6]float64{0, 1000, 0, 0, 0, 1000} || r.str("data.suppliers.0.invoices.0.status") != "overdue" ||
		r.at("data.reconciliation.ledger_balance") != 1000.0 || r.at("data.reconciliation.difference") != 0.0 {
		t.Fatalf("payables 15 April: %s", r.Body)
	}
	if r = ap("2026-06-15"); agingTotals(r) != [6]float64{2000, 2000, 0, 0, 0, 2000} || r.str("data.suppliers.0.invoices.0.status") != "unpaid" ||
		r.at("data.reconciliation.ledger_balance") != 2000.0 {
		t.Fatalf("payables today: %s", r.Body)
	}
	// Under kontantmetoden the ledgers reconcile to nothing.
	if _, err := b.db.Exec(`UPDATE company_settings SET accounting_method = 'cash' WHERE company_id = $1`, b.company); err != nil {
		t.Fatal(err)
	}
	if r = ap("2026-06-15"); r.at("data.reconciliation") != nil || ar("").at("data.reconciliation") != nil {
		t.Fatalf("cash method: %s", r.Body)
	}
}
