package tests

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// With a series per source type in the settings, each engine posts in
// its series, numbered from 1 in each, and what has none configured in
// the company's default: invoices B, their payments C, supplier invoices
// D, their payments E, the VAT settlement M, accrued revenue released P,
// expense claims and their payout U, a manual verifikat A.
func TestVoucherSeriesPerSource(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 4, 15, 9, 0, 0, 0, time.UTC) }))
	b.vatQuarterly()
	b.write("PATCH", "settings", map[string]any{"default_voucher_series_per_source_type": map[string]any{
		"invoice_created": "B", "invoice_paid": "C", "supplier_invoice_registered": "D", "supplier_invoice_paid": "E",
		"vat_settlement": "M", "accrual": "P", "expense_claim": "U", "expense_payout": "U"}}).status(t, 200)

	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	for range 2 {
		id := b.issued(customer, nil)
		b.markPaid(id, map[string]any{"payment_date": "2026-03-20"}).status(t, 200)
	}
	bill := b.supplierInvoice(b.supplier("Leverantör AB"), "F-1", 1000, nil)
	b.write("POST", "supplier-invoices/"+bill+"/approve", nil).status(t, 200)
	b.write("POST", "supplier-invoices/"+bill+"/mark-paid", map[string]any{"amount": 1000, "payment_date": "2026-03-20"}).
		status(t, 200)
	b.posted("2026-03-21", "Bankavgift", "D 6570 45", "C 1930 45")
	accrued := b.createInvoice(consulting(customer, map[string]any{"items": []any{map[string]any{"description": "Support, mars",
		"quantity": 1, "unit": "st", "unit_price": 3100, "accrual_period_start": "2026-03-01",
		"accrual_period_end": "2026-03-31"}}})).status(t, 201).str("data.id")
	b.markSent(accrued).status(t, 200)
	b.release()
	claim := b.write("POST", "expense-claims", map[string]any{"description": "Parkering", "expense_date": "2026-03-22",
		"amount": 80, "vat_amount": 16, "expense_account": "5611", "claimant_name": "Lisa Berg"}).status(t, 201)
	b.write("POST", "expense-claims/payouts", map[string]any{"claim_ids": []any{claim.str("data.expense_claim_id")},
		"payout_date": "2026-03-23", "cash_account": "1930"}).status(t, 201)
	q1 := b.get(b.path("reports/vat-declaration/settlement-proposal?period_type=quarterly&year=2026&period=1"), b.token).status(t, 200)
	b.write("POST", "vat/settlement", map[string]any{"period_type": "quarterly", "year": 2026, "period": 1,
		"expected_fingerprint": q1.str("data.fingerprint")}).status(t, 200)

	var rows []struct {
		Source string `db:"source_type"`
		Series string `db:"voucher_series"`
		Number int    `db:"voucher_number"`
	}
	if err := b.db.Select(&rows, `SELECT source_type, voucher_series, voucher_number FROM journal_entries
		WHERE company_id = $1 AND status = 'posted' ORDER BY voucher_series, voucher_number`, b.company); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%s%d %s", r.Series, r.Number, r.Source))
	}
	want := "A1 manual, B1 invoice_created, B2 invoice_created, B3 invoice_created, C1 invoice_paid, C2 invoice_paid, " +
		"D1 supplier_invoice_registered, E1 supplier_invoice_paid, M1 vat_settlement, P1 accrual, U1 expense_claim, " +
		"U2 expense_payout"
	if strings.Join(got, ", ") != want {
		t.Fatalf("the series:\n%s\nwant\n%s", strings.Join(got, ", "), want)
	}
}

// Payroll posts in its series too (salary settings' voucher_series is the
// salary_payment entry of the per-source map): May's run books its
// three verifikat (wages, employer contributions, the vacation
// liability) as L1-3.
func TestPayrollPostsInItsSeries(t *testing.T) {
	t.Parallel()
	m := newMay2026(t)
	m.write("PATCH", "salary/settings", map[string]any{"voucher_series": "L"}).status(t, 200)
	m.book(t)
	var got []string
	if err := m.db.Select(&got, `SELECT voucher_series || voucher_number || ' ' || source_type FROM journal_entries
		WHERE company_id = $1 AND status = 'posted' ORDER BY voucher_series, voucher_number`, m.company); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ", ") != "L1 salary_payment, L2 salary_payment, L3 salary_payment" {
		t.Fatalf("the series: %v", got)
	}
}
