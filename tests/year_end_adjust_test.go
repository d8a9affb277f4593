package tests

import (
	"strings"
	"testing"
	"time"
)

// yearOf makes ledgerBooks of b's company and first year (2026) on
// clock c, for the period actions.
func yearOf(t *testing.T, b *partiesBooks, c *movingClock) *ledgerBooks {
	t.Helper()
	period := b.get(b.path("fiscal-periods"), b.token).status(t, 200).str("data.fiscal_periods.0.id")
	return &ledgerBooks{env: b.env, token: b.token, base: b.path("")[:len(b.path(""))-1], company: b.company,
		period: period, year: "2026", clock: c}
}

// entryLines is the lines of the company's entry of source dated day, as
// "D 1510 15500.00", sorted.
func entryLines(t *testing.T, b *partiesBooks, source, day string) string {
	t.Helper()
	var id string
	if err := b.db.QueryRow(`SELECT id::text FROM journal_entries WHERE company_id = $1 AND source_type = $2 AND entry_date = $3`,
		b.company, source, day).Scan(&id); err != nil {
		t.Fatalf("%s on %s: %v", source, day, err)
	}
	return lines(b.get(b.path("journal-entries/"+id), b.token).status(t, 200), "data.lines")
}

// A cash-method aktiebolag ends 2026 with two sales and a purchase open:
// 12 500 unpaid (10 000 + 2 500 VAT), 5 000 of which 2 000 was paid in
// December (the payment booked 1 600 revenue and 400 VAT), and a supplier
// invoice of 10 000 + 2 500. The year-end books what is open on 31
// December: D 1510 15 500 (12 500 + 3 000), C 3001 12 400 (10 000 +
// 2 400), C 2618 3 100 (2 500 + 600), D 5410 10 000, D 2648 2 500, C 2440
// 12 500; and reverses it on 1 January 2027. Q4's return holds only the
// payment (05 = 1 600, 10 = 400), and Q1 2027's the payment of the first
// invoice in January (05 = 10 000, 10 = 2 500): the cut-off is in neither.
func TestCashMethodYearEnd(t *testing.T) {
	t.Parallel()
	c := &movingClock{}
	c.set(time.Date(2026, 12, 15, 0, 0, 0, 0, time.UTC))
	b := newBuyerBooksAt(t, c.now)
	b.cash()
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	first := b.issued(customer, map[string]any{"invoice_date": "2026-12-01", "due_date": "2026-12-31"})
	second := b.issued(customer, map[string]any{"invoice_date": "2026-11-20", "due_date": "2026-12-20", "items": []any{
		map[string]any{"description": "Konsulttimmar", "quantity": 4, "unit": "tim", "unit_price": 1000}}})
	paid := b.markPaid(second, map[string]any{"amount": 2000, "payment_date": "2026-12-10"}).status(t, 200)
	if got := lines(paid, "data.verifikat_lines"); got != "D 1930 2000.00, C 3001 1600.00, C 2611 400.00" {
		t.Fatalf("the December payment: %s", got)
	}
	b.register(b.se, "F-77", map[string]any{"invoice_date": "2026-12-05", "due_date": "2027-01-04"},
		map[string]any{"description": "Kontorsmaterial", "amount": 10000}).status(t, 201)
	if b.balance("1510") != 0 || b.balance("2440") != 0 {
		t.Fatalf("kontantmetoden booked an invoice before it was paid: 1510 %s 2440 %s", b.exact("1510"), b.exact("2440"))
	}

	c.set(time.Date(2027, 1, 20, 0, 0, 0, 0, time.UTC))
	l := yearOf(t, b.partiesBooks, c)
	ready := b.get(b.path("compliance/check?type=year_end_readiness&fiscal_period_id="+l.period), b.token).status(t, 200)
	if severityOf(ready, "CASH_METHOD_OPEN_INVOICES") != "info" || !strings.Contains(string(ready.Body), `"count":3`) {
		t.Fatalf("readiness: %s", ready.Body)
	}
	l.periodAction(l.period, "lock", nil).status(t, 200)
	op := l.operation(t, l.periodAction(l.period, "year-end", nil).status(t, 202).str("data.operation_id"))
	if op.str("data.status") != "succeeded" || len(op.list("data.result.cash_method_cutoff")) != 3 ||
		op.str("data.result.cash_method_cutoff_entry_id") == "" {
		t.Fatalf("year-end: %s", op.Body)
	}
	want := "D 1510 15500.00, D 2648 2500.00, D 5410 10000.00, C 2440 12500.00, C 2618 3100.00, C 3001 12400.00"
	if got := sortedLines(entryLines(t, b.partiesBooks, "cash_method_cutoff", "2026-12-31")); got != sortedLines(want) {
		t.Fatalf("the cut-off:\n got %s\nwant %s", got, want)
	}
	back := "D 2440 12500.00, D 2618 3100.00, D 3001 12400.00, C 1510 15500.00, C 2648 2500.00, C 5410 10000.00"
	if got := sortedLines(entryLines(t, b.partiesBooks, "cash_method_cutoff", "2027-01-01")); got != sortedLines(back) {
		t.Fatalf("the reversal:\n got %s\nwant %s", got, back)
	}
	// 2026 closes with the open invoices on the balance sheet: 1510,
	// 2440 and the vilande VAT in the opening balance of 2027.
	ib := func(account string) int {
		return b.count(`SELECT coalesce(sum(l.debit_amount - l.credit_amount), 0)::int FROM journal_lines l
			JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.journal_entry_id
			WHERE l.company_id = $1 AND e.source_type = 'opening_balance' AND l.account_number = $2`, b.company, account)
	}
	if ib("1510") != 15500 || ib("2440") != -12500 || ib("2618") != -3100 || ib("2648") != 2500 {
		t.Fatalf("2027 opens with 1510 %d, 2440 %d, 2618 %d, 2648 %d", ib("1510"), ib("2440"), ib("2618"), ib("2648"))
	}
	// The next year books the payment as before.
	pay := b.markPaid(first, map[string]any{"amount": 12500, "payment_date": "2027-01-20"}).status(t, 200)
	if got := lines(pay, "data.verifikat_lines"); got != "D 1930 12500.00, C 3001 10000.00, C 2611 2500.00" {
		t.Fatalf("the January payment: %s", got)
	}
	vat := func(year string, q int) map[string]float64 {
		return boxes(b.get(b.path("reports/vat-declaration?period_type=quarterly&year="+year+"&period="+string(rune('0'+q))),
			b.token).status(t, 200), "data.rutor")
	}
	wantBoxes(t, "Q4 2026", vat("2026", 4), allBoxes(map[string]float64{"05": 1600, "10": 400, "49": 400}))
	wantBoxes(t, "Q1 2027", vat("2027", 1), allBoxes(map[string]float64{"05": 10000, "10": 2500, "49": 2500}))
	in2027 := func(account string) int { return in2027(b.partiesBooks, account) }
	for _, a := range []string{"1510", "2440", "2618", "2648"} {
		if in2027(a) != 0 {
			t.Errorf("%s stands at %d in 2027 after the reversal", a, in2027(a))
		}
	}
	// 2027's revenue so far: the reversal's 12 400 less the 10 000 paid.
	if in2027("3001") != 2400 {
		t.Errorf("3001 in 2027: %d", in2027("3001"))
	}
}

// severityOf is the severity of the compliance finding code, "" when
// there is none.
func severityOf(r *response, code string) string {
	for _, f := range r.list("data.findings") {
		if m, _ := f.(map[string]any); m["code"] == code {
			s, _ := m["severity"].(string)
			return s
		}
	}
	return ""
}

// in2027 is what account stands at in 2027 (its opening balance and
// after), in whole kronor.
func in2027(b *partiesBooks, account string) int {
	return b.count(`SELECT coalesce(sum(l.debit_amount - l.credit_amount), 0)::int FROM journal_lines l
		JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.journal_entry_id
		WHERE l.company_id = $1 AND e.entry_date >= '2027-01-01' AND e.status = 'posted' AND l.account_number = $2`,
		b.company, account)
}

// sortedLines sorts a "D 1510 1.00, C 3001 1.00" list.
func sortedLines(s string) string {
	parts := strings.Split(s, ", ")
	for i := 1; i < len(parts); i++ {
		for j := i; j > 0 && parts[j] < parts[j-1]; j-- {
			parts[j], parts[j-1] = parts[j-1], parts[j]
		}
	}
	return strings.Join(parts, ", ")
}

// A sale of 1 250 EUR booked at 11.00 (13 750 kronor on 1510) and a
// purchase of 500 EUR at 11.20 (5 600 on 2440) are open on 31 December,
// when the euro stands at 11.50: the receivable is worth 14 375 (gain
// 625 on 3960), the debt 5 750 (loss 150 on 7960), a euro account of
// 1 000 EUR booked at 11 000 is 11 500 (gain 500 on 8330). The revaluation is
// refused while the rate is unknown, previewed, booked, booked again
// as nothing, and reversed by the year-end on 1 January 2027; the
// payment in January books its difference against 11.00 as before.
func TestCurrencyRevaluation(t *testing.T) {
	t.Parallel()
	c := &movingClock{}
	c.set(time.Date(2026, 12, 15, 0, 0, 0, 0, time.UTC))
	b := newBuyerBooksAt(t, c.now)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	sale := b.issued(customer, map[string]any{"invoice_date": "2026-12-01", "due_date": "2026-12-31", "currency": "EUR",
		"exchange_rate": 11, "items": []any{map[string]any{"description": "Konsulttimmar", "quantity": 1, "unit": "st",
			"unit_price": 1000}}})
	b.register(b.eu, "RE-2026-12", map[string]any{"invoice_date": "2026-12-03", "due_date": "2027-01-02", "currency": "EUR",
		"exchange_rate": 11.2, "reverse_charge": true}, map[string]any{"description": "Beratung", "amount": 500}).status(t, 201)
	if b.exact("1510") != "13750.00" || b.exact("2440") != "-5600.00" {
		t.Fatalf("booked: 1510 %s 2440 %s", b.exact("1510"), b.exact("2440"))
	}
	// A euro account holding 1 000 EUR, paid in at 11.00 (11 000 kronor);
	// the bank says so on 5 January. A second euro account no bank has
	// stated a balance of is not revalued: its kronor may be booked by hand.
	eur := b.write("POST", "cash-accounts", map[string]any{"name": "Euro", "currency": "EUR"}).status(t, 201)
	b.write("POST", "cash-accounts", map[string]any{"name": "Euro 2", "currency": "EUR"}).status(t, 201)
	euroAccount := eur.str("data.ledger_account")
	c.set(time.Date(2027, 1, 20, 0, 0, 0, 0, time.UTC))
	l := yearOf(t, b.partiesBooks, c)
	l.entry(t, l.period, "2026-12-10", [3]any{euroAccount, 11000, 0}, [3]any{"2081", 0, 11000})
	if _, err := b.db.Exec(`UPDATE cash_accounts SET balance = 1000, balance_updated_at = '2027-01-05T08:00:00Z'
		WHERE company_id = $1 AND id = $2`, b.company, eur.str("data.cash_account_id")); err != nil {
		t.Fatal(err)
	}
	revalue := func(dry bool) *response {
		path := l.base + "/fiscal-periods/" + l.period + "/currency-revaluation"
		if dry {
			path += "?dry_run=true"
		}
		return b.post(path, b.token, map[string]any{"as_of_date": "2026-12-31"}, "Idempotency-Key", ik())
	}
	if r := revalue(true).errorCode(t, 502, "FX_CLOSING_RATE_UNAVAILABLE"); r.str("error.details.missingRates.0") != "EUR" {
		t.Fatalf("no rate: %s", r.Body)
	}
	// No rate source here: nothing can fetch the rate, so it blocks.
	ready := b.get(b.path("compliance/check?type=year_end_readiness&fiscal_period_id="+l.period), b.token).status(t, 200)
	if severityOf(ready, "FX_CLOSING_RATE_UNAVAILABLE") != "blocker" || ready.at("data.ready") != false {
		t.Fatalf("readiness without a rate: %s", ready.Body)
	}
	if _, err := b.db.Exec(`INSERT INTO fx_rates (currency, day, rate, source) VALUES ('EUR', '2026-12-30', 11.5, 'file')`); err != nil {
		t.Fatal(err)
	}
	ready = b.get(b.path("compliance/check?type=year_end_readiness&fiscal_period_id="+l.period), b.token).status(t, 200)
	if severityOf(ready, "CURRENCY_REVALUATION_MISSING") != "warning" || severityOf(ready, "FX_CLOSING_RATE_UNAVAILABLE") != "" {
		t.Fatalf("readiness before the revaluation: %s", ready.Body)
	}
	dry := revalue(true).status(t, 200)
	// 1 000 EUR at 11.50 is 11 500 against 11 000: 500 gained on 8330.
	want := "D 1510 625.00, C 3960 625.00, D 7960 150.00, C 2440 150.00, D " + euroAccount + " 500.00, C 8330 500.00"
	if got := sortedLines(lines(dry, "data.preview.verifikat_lines")); got != sortedLines(want) || dry.at("data.preview.items.1.difference") != 625.0 ||
		dry.at("data.preview.items.1.booked_sek") != 13750.0 || dry.at("data.preview.items.2.revalued_sek") != 5750.0 ||
		dry.str("data.preview.items.0.kind") != "cash_account" || dry.at("data.preview.items.0.booked_sek") != 11000.0 ||
		dry.at("data.preview.items.0.remaining") != 1000.0 || len(dry.list("data.preview.items")) != 3 {
		t.Fatalf("preview (want %s): %s\n%s", want, lines(dry, "data.preview.verifikat_lines"), dry.Body[len(dry.Body)-400:])
	}
	if b.balance("3960") != 0 {
		t.Fatal("a dry run booked")
	}
	op := l.operation(t, revalue(false).status(t, 202).str("data.operation_id"))
	if op.str("data.status") != "succeeded" || op.str("data.result.revaluation_entry_id") == "" ||
		op.at("data.result.reversal_entry_id") != nil {
		t.Fatalf("revaluation: %s", op.Body)
	}
	if b.exact("1510") != "14375.00" || b.exact("2440") != "-5750.00" || b.exact("3960") != "-625.00" || b.exact("7960") != "150.00" {
		t.Fatalf("revalued: 1510 %s 2440 %s 3960 %s 7960 %s", b.exact("1510"), b.exact("2440"), b.exact("3960"), b.exact("7960"))
	}
	again := l.operation(t, revalue(false).status(t, 202).str("data.operation_id"))
	if again.at("data.result.revaluation_entry_id") != nil {
		t.Fatalf("a second revaluation booked again: %s", again.Body)
	}
	ready = b.get(b.path("compliance/check?type=year_end_readiness&fiscal_period_id="+l.period), b.token).status(t, 200)
	if strings.Contains(string(ready.Body), `"code":"CURRENCY_REVALUATION_MISSING"`) {
		t.Fatalf("readiness after the revaluation: %s", ready.Body)
	}
	l.periodAction(l.period, "lock", nil).status(t, 200)
	ye := l.operation(t, l.periodAction(l.period, "year-end", nil).status(t, 202).str("data.operation_id"))
	if ye.str("data.status") != "succeeded" || ye.at("data.result.revaluation_entry_id") != nil {
		t.Fatalf("year-end: %s", ye.Body)
	}
	back := "D 3960 625.00, D 2440 150.00, C 1510 625.00, C 7960 150.00, D 8330 500.00, C " + euroAccount + " 500.00"
	if got := sortedLines(entryLines(t, b.partiesBooks, "currency_revaluation", "2027-01-01")); got != sortedLines(back) {
		t.Fatalf("the reversal:\n got %s\nwant %s", got, back)
	}
	// 1 250 EUR arrive in January at 11.40: 14 250 kronor against the
	// 13 750 booked, 500 gain, as without the revaluation.
	pay := b.markPaid(sale, map[string]any{"amount": 1250, "payment_date": "2027-01-20", "amount_sek": 14250}).status(t, 200)
	if got := lines(pay, "data.verifikat_lines"); got != "D 1930 14250.00, C 1510 13750.00, C 3960 500.00" {
		t.Fatalf("the January payment: %s", got)
	}
	if n := in2027(b.partiesBooks, "1510"); n != 0 {
		t.Fatalf("1510 in 2027 after the payment: %d", n)
	}
}
