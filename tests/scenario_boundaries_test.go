package tests

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Two years of an aktiebolag on faktureringsmetoden with quarterly VAT,
// every figure at a period or year boundary worked out by hand (issue
// 46), and a cash-method company's year-end beside it.
func TestScenarioTwoYearBoundaries(t *testing.T) {
	t.Parallel()
	c := &movingClock{}
	c.set(time.Date(2026, 2, 10, 0, 0, 0, 0, time.UTC))
	b := newBuyerBooksAt(t, c.now)
	vat := func(year, q int) *response {
		return b.get(b.path(fmt.Sprintf("reports/vat-declaration?period_type=quarterly&year=%d&period=%d", year, q)), b.token).
			status(t, 200)
	}

	// 1. A consultancy bought from Germany under reverse charge: 33.33
	// EUR at 11.2345 is 374.445885, 374.45 kronor, and its VAT 25 % of
	// that, 93.61 (the euro VAT 8.33 converted would be 93.58).
	b.register(b.eu, "DE-2026-7", map[string]any{"invoice_date": "2026-02-10", "due_date": "2026-03-12", "currency": "EUR",
		"exchange_rate": 11.2345, "reverse_charge": true}, map[string]any{"description": "Beratung", "amount": 33.33}).status(t, 201)
	if b.exact("4535") != "374.45" || b.exact("2645") != "93.61" || b.exact("2614") != "-93.61" || b.exact("2440") != "-374.45" {
		t.Fatalf("reverse charge: 4535 %s 2645 %s 2614 %s 2440 %s", b.exact("4535"), b.exact("2645"), b.exact("2614"), b.exact("2440"))
	}

	// 2. Two sales in March: 10 hours (12 500) and 4 hours (5 000).
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	c.set(time.Date(2026, 3, 20, 0, 0, 0, 0, time.UTC))
	first := b.issued(customer, map[string]any{"invoice_date": "2026-03-10", "due_date": "2026-04-09"})
	second := b.issued(customer, map[string]any{"invoice_date": "2026-03-20", "due_date": "2026-04-19", "items": []any{
		map[string]any{"description": "Konsulttimmar", "quantity": 4, "unit": "tim", "unit_price": 1000}}})

	// 3. In May the first is credited, dated 31 March: Q1 keeps 4 000
	// of sales (05), 1 000 VAT (10), 21 374.45, 30 and 48 93.61, 49
	// 1 000; the customer ledger moves on the credit's date.
	c.set(time.Date(2026, 5, 10, 0, 0, 0, 0, time.UTC))
	b.credit(first, map[string]any{"credit_date": "2026-03-31"}).status(t, 200)
	wantBoxes(t, "Q1", boxes(vat(2026, 1), "data.rutor"), allBoxes(map[string]float64{"05": 4000, "10": 1000, "21": 374.45,
		"30": 93.61, "48": 93.61, "49": 1000}))
	wantBoxes(t, "Q1 filed", boxes(vat(2026, 1), "data.rutor_filed"), allBoxes(map[string]float64{"05": 4000, "10": 1000,
		"21": 374, "30": 93, "48": 93, "49": 1000}))
	for day, want := range map[string]float64{"2026-03-09": 0, "2026-03-10": 12500, "2026-03-20": 17500, "2026-03-31": 5000} {
		ar := b.get(b.path("reports/ar-ledger?as_of_date="+day), b.token).status(t, 200)
		if ar.at("data.reconciliation.ledger_balance") != want || ar.at("data.reconciliation.difference") != 0.0 {
			t.Errorf("the customer ledger on %s (want %v): %s", day, want, ar.Body)
		}
	}

	// 4. One of the second's four hours credited today: Q2 loses 1 000
	// and its 250 VAT, 3 750 is left to pay.
	hours := b.get(b.path("invoices/"+second+"?expand=items"), b.token).status(t, 200).str("data.items.0.id")
	b.credit(second, map[string]any{"lines": []any{map[string]any{"item_id": hours, "quantity": 1}}}).status(t, 200)
	wantBoxes(t, "Q2", boxes(vat(2026, 2), "data.rutor"), allBoxes(map[string]float64{"05": -1000, "10": -250, "49": -250}))
	if g := b.get(b.path("invoices/"+second), b.token).status(t, 200); g.at("data.remaining_amount") != 3750.0 {
		t.Fatalf("after the partial credit: %s", g.Body)
	}

	// 5. A sale of 1 000 EUR + 25 % at 11.00 in December: 13 750 on 1510.
	c.set(time.Date(2026, 12, 15, 0, 0, 0, 0, time.UTC))
	euros := b.issued(customer, map[string]any{"invoice_date": "2026-12-01", "due_date": "2026-12-31", "currency": "EUR",
		"exchange_rate": 11, "items": []any{map[string]any{"description": "Rådgivning", "quantity": 1, "unit": "st",
			"unit_price": 1000}}})

	// 6. Insurance for July 2026 to June 2027, 12 000 + 3 000, dated 10
	// December: July to November (5 000) are booked at once.
	b.register(b.se, "F-2026-12", map[string]any{"invoice_date": "2026-12-10", "due_date": "2027-01-09"},
		map[string]any{"description": "Företagsförsäkring 2026/27", "amount": 12000, "account_number": "6310",
			"accrual_period_start": "2026-07-01", "accrual_period_end": "2027-06-30"}).status(t, 201)
	if b.exact("6310") != "5000.00" || b.exact("1730") != "7000.00" {
		t.Fatalf("at registration: 6310 %s 1730 %s", b.exact("6310"), b.exact("1730"))
	}

	// 7. The year cannot be closed before it has ended.
	l := yearOf(t, b.partiesBooks, c)
	l.periodAction(l.period, "year-end", nil).errorCode(t, 409, "FISCAL_YEAR_NOT_ENDED")
	l.periodAction(l.period, "close", nil).errorCode(t, 409, "FISCAL_YEAR_NOT_ENDED")

	// 8. January: December's month refuses the lock until it is
	// released; the euro stands at 11.50 on 30 December (the Riksbank's
	// last rate of the year), so the receivable is revalued by 625 (1 250
	// × 11.50 = 14 375 against 13 750), and the German debt, still
	// unpaid, by 8.85 (33.33 × 11.50 = 383.295, 383.30 against 374.45).
	c.set(time.Date(2027, 1, 20, 0, 0, 0, 0, time.UTC))
	if _, err := b.db.Exec(`INSERT INTO fx_rates (currency, day, rate, source) VALUES ('EUR', '2026-12-30', 11.5, 'file')`); err != nil {
		t.Fatal(err)
	}
	ready := b.get(b.path("compliance/check?type=year_end_readiness&fiscal_period_id="+l.period), b.token).status(t, 200)
	for _, code := range []string{"ACCRUALS_PENDING", "CURRENCY_REVALUATION_MISSING"} {
		if !strings.Contains(string(ready.Body), `"code":"`+code+`"`) {
			t.Errorf("readiness lacks %s: %s", code, ready.Body)
		}
	}
	l.periodAction(l.period, "lock", nil).errorCode(t, 409, "ACCRUALS_PENDING")
	l.periodAction(l.period, "year-end", nil).errorCode(t, 400, "PERIOD_NOT_LOCKED")
	l.periodAction(l.period, "lock", map[string]any{"release_accruals": true}).status(t, 200)
	op := l.operation(t, l.periodAction(l.period, "year-end", nil).status(t, 202).str("data.operation_id"))
	if op.str("data.status") != "succeeded" || op.str("data.result.revaluation_entry_id") == "" {
		t.Fatalf("year-end: %s", op.Body)
	}
	want := "C 2440 8.85, C 3960 625.00, D 1510 625.00, D 7960 8.85"
	if got := sortedLines(entryLines(t, b.partiesBooks, "currency_revaluation", "2026-12-31")); got != want {
		t.Fatalf("revaluation: got %s, want %s", got, want)
	}
	if got := sortedLines(entryLines(t, b.partiesBooks, "currency_revaluation", "2027-01-01")); got != "C 1510 625.00, C 7960 8.85, D 2440 8.85, D 3960 625.00" {
		t.Fatalf("its reversal: %s", got)
	}
	// 2027 opens with 1730 holding January to June (6 000), and the
	// receivables: 3 750 and the revalued 14 375.
	ib := func(account string) string {
		var s string
		if err := b.db.QueryRow(`SELECT coalesce(sum(l.debit_amount - l.credit_amount), 0)::text FROM journal_lines l
			JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.journal_entry_id
			WHERE l.company_id = $1 AND e.source_type = 'opening_balance' AND l.account_number = $2`, b.company, account).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if ib("1730") != "6000.00" || ib("1510") != "18125.00" {
		t.Fatalf("2027 opens with 1730 %s, 1510 %s", ib("1730"), ib("1510"))
	}
	// The euros arrive at 11.40: 14 250 against the 13 750 booked, 500
	// gain, as if never revalued; 1510 keeps only the 3 750.
	pay := b.markPaid(euros, map[string]any{"amount": 1250, "payment_date": "2027-01-20", "amount_sek": 14250}).status(t, 200)
	if got := lines(pay, "data.verifikat_lines"); got != "D 1930 14250.00, C 1510 13750.00, C 3960 500.00" {
		t.Fatalf("the euro payment: %s", got)
	}
	if n := in2027(b.partiesBooks, "1510"); n != 3750 {
		t.Fatalf("1510 in 2027: %d", n)
	}
	// 2027's statements compare with 2026, every heading in its own room.
	next := ""
	for _, p := range b.get(b.path("fiscal-periods"), b.token).status(t, 200).list("data.fiscal_periods") {
		if p := p.(map[string]any); p["period_start"] == "2027-01-01" {
			next = p["id"].(string)
		}
	}
	income := b.get(b.path("reports/income-statement/pdf?period_id="+next), b.token).status(t, 200)
	if text := pdfText(t, income.Body); !strings.Contains(text, "Föregående år") {
		t.Errorf("2027's income statement does not compare with 2026:\n%s", text)
	}
	laidOut(t, "income statement 2027", income.Body)
	laidOut(t, "balance sheet 2027", b.get(b.path("reports/balance-sheet/pdf?period_id="+next), b.token).status(t, 200).Body)

	// 9. A cash-method company beside it: 12 500 unpaid at the end of
	// 2026 is booked on 1510 with its VAT on 2618, reversed on 1 January,
	// and the payment in January is Q1 2027's sale alone.
	cc := &movingClock{}
	cc.set(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	k := newBuyerBooksAt(t, cc.now)
	k.cash()
	kc := k.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	open := k.issued(kc, map[string]any{"invoice_date": "2026-12-01", "due_date": "2026-12-31"})
	cc.set(time.Date(2027, 1, 20, 0, 0, 0, 0, time.UTC))
	kl := yearOf(t, k.partiesBooks, cc)
	kl.periodAction(kl.period, "lock", nil).status(t, 200)
	if op := kl.operation(t, kl.periodAction(kl.period, "year-end", nil).status(t, 202).str("data.operation_id")); op.str("data.status") != "succeeded" {
		t.Fatalf("cash year-end: %s", op.Body)
	}
	if got := sortedLines(entryLines(t, k.partiesBooks, "cash_method_cutoff", "2026-12-31")); got != "C 2618 2500.00, C 3001 10000.00, D 1510 12500.00" {
		t.Fatalf("cut-off: %s", got)
	}
	if got := sortedLines(entryLines(t, k.partiesBooks, "cash_method_cutoff", "2027-01-01")); got != "C 1510 12500.00, D 2618 2500.00, D 3001 10000.00" {
		t.Fatalf("its reversal: %s", got)
	}
	k.markPaid(open, map[string]any{"amount": 12500, "payment_date": "2027-01-20"}).status(t, 200)
	kvat := func(year, q int) map[string]float64 {
		return boxes(k.get(k.path(fmt.Sprintf("reports/vat-declaration?period_type=quarterly&year=%d&period=%d", year, q)),
			k.token).status(t, 200), "data.rutor")
	}
	wantBoxes(t, "cash Q4 2026", kvat(2026, 4), allBoxes(nil))
	wantBoxes(t, "cash Q1 2027", kvat(2027, 1), allBoxes(map[string]float64{"05": 10000, "10": 2500, "49": 2500}))
}
