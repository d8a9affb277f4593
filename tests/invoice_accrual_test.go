package tests

import (
	"context"
	"testing"
	"time"
)

// release runs the server's release of accrued revenue as the clock
// stands, answering how many verifikat it posted.
func (b *partiesBooks) release() int {
	b.t.Helper()
	n, refused, err := b.server.ReleaseAccruals(context.Background())
	if err != nil || len(refused) > 0 {
		b.t.Fatalf("releasing: %v %v", err, refused)
	}
	return n
}

// balance is what account stands at (debit − credit), in whole kronor.
func (b *partiesBooks) balance(account string) int {
	b.t.Helper()
	return b.count(`SELECT coalesce(sum(l.debit_amount - l.credit_amount), 0)::int FROM journal_lines l
		JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.journal_entry_id
		WHERE l.company_id = $1 AND l.account_number = $2 AND e.status = 'posted' AND l.struck_by_rattelse_id IS NULL`, b.company, account)
}

// A service of 9 100 + 25 % for April to June (91 days, 100 a day):
// issued, its revenue waits on 2970 (D 1510 11 375 / C 2970 9 100,
// C 2611 2 275); each month's share by its days (3 000, 3 100, 3 000) is
// moved to 3001 once the month has ended, dated its last day. Credited
// in May, April's release is taken back and May and June are cancelled.
func TestInvoiceAccrual(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC)
	b := newPartiesBooks(t, clock(func() time.Time { return now }))
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	id := b.createInvoice(consulting(customer, map[string]any{"items": []any{map[string]any{"description": "Support, Q2",
		"quantity": 1, "unit": "st", "unit_price": 9100, "accrual_period_start": "2026-04-01",
		"accrual_period_end": "2026-06-30"}}})).status(t, 201).str("data.id")
	s := b.markSent(id).status(t, 200)
	if got := lines(s, "data.verifikat_lines"); got != "D 1510 11375.00, C 2970 9100.00, C 2611 2275.00" {
		t.Fatalf("issued: %s", got)
	}
	g := b.get(b.path("invoices/"+id+"?expand=items"), b.token).status(t, 200)
	if g.str("data.items.0.accrual_balance_account") != "2970" || g.str("data.items.0.accrual_period_end") != "2026-06-30" {
		t.Fatalf("the line: %s", g.Body)
	}
	if n := b.release(); n != 0 {
		t.Fatalf("released %d before April ended", n)
	}
	now = time.Date(2026, 5, 5, 9, 0, 0, 0, time.UTC)
	if n := b.release(); n != 1 {
		t.Fatalf("released %d verifikat for April", n)
	}
	if n := b.release(); n != 0 {
		t.Fatalf("April released twice")
	}
	if n := b.count(`SELECT count(*) FROM journal_entries e JOIN journal_lines l ON l.company_id = e.company_id
			AND l.journal_entry_id = e.id WHERE e.company_id = $1 AND e.source_type = 'accrual' AND e.entry_date = '2026-04-30'
			AND e.source_id = $2 AND ((l.account_number = '2970' AND l.debit_amount = 3000)
			OR (l.account_number = '3001' AND l.credit_amount = 3000))`, b.company, id); n != 2 {
		t.Fatalf("April's release: %d matching lines", n)
	}
	if b.balance("2970") != -6100 || b.balance("3001") != -3000 {
		t.Fatalf("2970 at %d, 3001 at %d", b.balance("2970"), b.balance("3001"))
	}

	r := b.credit(id, map[string]any{}).status(t, 200)
	if got := lines(r, "data.verifikat_lines"); got != "C 1510 11375.00, D 2970 9100.00, D 2611 2275.00, C 2970 3000.00, D 3001 3000.00" {
		t.Fatalf("credited: %s", got)
	}
	now = time.Date(2026, 7, 1, 9, 0, 0, 0, time.UTC)
	if n := b.release(); n != 0 {
		t.Fatalf("released %d after the credit", n)
	}
	if b.balance("2970") != 0 || b.balance("3001") != 0 || b.balance("1510") != 0 {
		t.Fatalf("2970 at %d, 3001 at %d, 1510 at %d", b.balance("2970"), b.balance("3001"), b.balance("1510"))
	}
}

// A bad period, a balance account without one, a text line or
// kontantmetoden: 400 INVOICE_CREATE_ACCRUAL_INVALID naming the field.
func TestInvoiceAccrualRefuses(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	line := func(more map[string]any) map[string]any {
		return consulting(customer, map[string]any{"items": []any{mergeMaps(map[string]any{"description": "Support",
			"quantity": 1, "unit": "st", "unit_price": 1000}, more)}})
	}
	for field, more := range map[string]map[string]any{
		"items.0.accrual_period_end":      {"accrual_period_start": "2026-04-01", "accrual_period_end": "2026-03-31"},
		"items.0.accrual_period_start":    {"accrual_period_end": "2026-04-30"},
		"items.0.accrual_balance_account": {"accrual_balance_account": "2990"},
	} {
		if e := b.createInvoice(line(more)).errorCode(t, 400, "INVOICE_CREATE_ACCRUAL_INVALID"); e.str("error.details.field") != field {
			t.Errorf("%s: %s", field, e.Body)
		}
	}
	b.createInvoice(line(map[string]any{"accrual_period_start": "2026-01-01", "accrual_period_end": "2031-01-01"})).
		errorCode(t, 400, "INVOICE_CREATE_ACCRUAL_INVALID")
	b.createInvoice(line(map[string]any{"accrual_balance_account": "1510", "accrual_period_start": "2026-04-01",
		"accrual_period_end": "2026-04-30"})).errorCode(t, 400, "VALIDATION_ERROR")

	c := newPartiesBooks(t)
	c.write("PATCH", "settings/tax-profile", map[string]any{"accounting_method": "cash"}).status(t, 200)
	cc := c.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	c.createInvoice(consulting(cc, map[string]any{"items": []any{map[string]any{"description": "Support", "quantity": 1,
		"unit": "st", "unit_price": 1000, "accrual_period_start": "2026-04-01", "accrual_period_end": "2026-04-30"}}})).
		errorCode(t, 400, "INVOICE_CREATE_ACCRUAL_INVALID")
}

// A service of 9 000 + 25 % for January to March (90 days, 100 a day)
// issued on 5 March: January's 3 100 and February's 2 800 ended before
// the invoice date and are moved to 3001 with the issue, on 5 March, in
// one verifikat; March's 3 100 waits on 2970 for its last day.
func TestInvoiceAccrualPastMonthsAtIssue(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC) }))
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	id := b.createInvoice(consulting(customer, map[string]any{"invoice_date": "2026-03-05", "items": []any{
		map[string]any{"description": "Support, Q1", "quantity": 1, "unit": "st", "unit_price": 9000,
			"accrual_period_start": "2026-01-01", "accrual_period_end": "2026-03-31"}}})).status(t, 201).str("data.id")
	b.markSent(id).status(t, 200)
	if b.balance("2970") != -3100 || b.balance("3001") != -5900 {
		t.Fatalf("after the issue: 2970 at %d, 3001 at %d", b.balance("2970"), b.balance("3001"))
	}
	if n := b.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1 AND source_type = 'accrual'
		AND entry_date = '2026-03-05' AND source_id = $2`, b.company, id); n != 1 {
		t.Fatalf("%d releases on the invoice date", n)
	}
	if n := b.release(); n != 0 {
		t.Fatalf("the job released %d more before March ended", n)
	}
}
