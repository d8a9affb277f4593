package tests

import (
	"fmt"
	"net/url"
	"testing"
)

// reportBooks posts a small year: an opening balance, a sale, a purchase,
// a cost on 6110 and the storno of a mistaken sale.
func reportBooks(t *testing.T) (*ledgerBooks, string) {
	b := newLedger(t)
	b.periodAction(b.period, "opening-balances/manual", map[string]any{"lines": []map[string]any{
		{"account_number": "1930", "debit_amount": 25000}, {"account_number": "2081", "credit_amount": 25000}}}).status(t, 201)
	b.entry(t, b.period, b.day("03-15"), [3]any{"1930", 1250, 0}, [3]any{"3001", 0, 1000}, [3]any{"2611", 0, 250})
	b.entry(t, b.period, b.day("05-10"), [3]any{"5410", 400, 0}, [3]any{"2641", 100, 0}, [3]any{"1930", 0, 500})
	b.entry(t, b.period, b.day("06-30"), [3]any{"6110", 150.5, 0}, [3]any{"1930", 0, 150.5})
	wrong := b.entry(t, b.period, b.day("07-01"), [3]any{"1930", 99, 0}, [3]any{"3001", 0, 99})
	b.action(wrong, "reverse", map[string]any{"reversal_date": b.day("07-02")}).status(t, 200)
	return b, wrong
}

func (b *ledgerBooks) report(t *testing.T, name string, q url.Values) *response {
	t.Helper()
	if q == nil {
		q = url.Values{}
	}
	if !q.Has("period_id") {
		q.Set("period_id", b.period)
	}
	return b.get(b.base+"/reports/"+name+"?"+q.Encode(), b.token).status(t, 200)
}

func TestTrialBalance(t *testing.T) {
	t.Parallel()
	b, _ := reportBooks(t)
	r := b.report(t, "trial-balance", nil)
	// Figures by hand: 1930 opens 25000, takes 1250 + 99 and pays 500 +
	// 150.50 + 99; 3001 has 1000 + 99 credited and 99 debited (storno).
	want := map[string][4]float64{
		"1930": {25000, 1349, 749.5, 25599.5},
		"2081": {-25000, 0, 0, -25000},
		"2611": {0, 0, 250, -250},
		"2641": {0, 100, 0, 100},
		"3001": {0, 99, 1099, -1000},
		"5410": {0, 400, 0, 400},
		"6110": {0, 150.5, 0, 150.5},
	}
	rows := r.list("data.rows")
	if len(rows) != len(want) {
		t.Fatalf("rows: %s", r.Body)
	}
	for _, row := range rows {
		m := row.(map[string]any)
		w, ok := want[m["account"].(string)]
		got := [4]float64{m["opening_balance"].(float64), m["period_debit"].(float64), m["period_credit"].(float64), m["closing_balance"].(float64)}
		if !ok || got != w {
			t.Fatalf("%s: got %v, want %v", m["account"], got, w)
		}
	}
	if r.str("data.rows.0.account_name") != "Företagskonto/checkkonto/affärskonto" {
		t.Fatalf("names: %s", r.Body)
	}
	if r.at("data.totalDebit") != 2098.5 || r.at("data.totalCredit") != 2098.5 || r.at("data.isBalanced") != true ||
		r.at("data.totals.closing_balance") != float64(0) || r.str("data.period.id") != b.period {
		t.Fatalf("totals: %s", r.Body)
	}
	// Unknown period; a key without reports:read.
	b.get(b.base+"/reports/trial-balance?period_id="+ik(), b.token).errorCode(t, 404, "PERIOD_NOT_FOUND")
	b.get(b.base+"/reports/trial-balance", b.token).errorCode(t, 400, "VALIDATION_ERROR")
	writer := b.key("owner@example.se", keySpec{scopes: []string{"bookkeeping:write"}})
	b.get(b.base+"/reports/trial-balance?period_id="+b.period, writer).errorCode(t, 403, "INSUFFICIENT_SCOPE")
}

type glLine struct {
	account, voucher string
	balance          float64
}

// ledgerLines walks every page of the general ledger with q, returning
// its lines in order and the accounts seen (repeated when continued).
func (b *ledgerBooks) ledgerLines(t *testing.T, q url.Values) ([]glLine, []string) {
	t.Helper()
	var lines []glLine
	var accounts []string
	for page := 0; ; page++ {
		r := b.report(t, "general-ledger", q)
		for _, a := range r.list("data.accounts") {
			m := a.(map[string]any)
			accounts = append(accounts, m["account"].(string))
			for _, l := range m["lines"].([]any) {
				lm := l.(map[string]any)
				lines = append(lines, glLine{m["account"].(string), lm["voucher"].(string), lm["balance"].(float64)})
			}
		}
		next, _ := r.at("meta.next_cursor").(string)
		if next == "" {
			return lines, accounts
		}
		if page > 50 {
			t.Fatal("general ledger pages never end")
		}
		q.Set("cursor", next)
	}
}

func TestGeneralLedger(t *testing.T) {
	t.Parallel()
	b, _ := reportBooks(t)
	r := b.report(t, "general-ledger", url.Values{"account_from": {"1930"}, "account_to": {"1930"}})
	acc := r.list("data.accounts")
	if len(acc) != 1 || r.at("meta.next_cursor") != nil {
		t.Fatalf("one account: %s", r.Body)
	}
	a := acc[0].(map[string]any)
	if a["opening_balance"] != float64(25000) || a["closing_balance"] != 25599.5 || a["continued"] != false {
		t.Fatalf("1930: %v", a)
	}
	// The opening balance (IB1) is not a line; running balance by hand.
	want := []glLine{{"1930", "A1", 26250}, {"1930", "A2", 25750}, {"1930", "A3", 25599.5}, {"1930", "A4", 25698.5}, {"1930", "A5", 25599.5}}
	all, _ := b.ledgerLines(t, url.Values{"account_from": {"1930"}, "account_to": {"1930"}})
	if fmt.Sprint(all) != fmt.Sprint(want) {
		t.Fatalf("1930 lines %v, want %v", all, want)
	}
	line := a["lines"].([]any)[0].(map[string]any)
	if line["description"] != "Test" || line["debit_amount"] != float64(1250) || line["entry_date"] != b.day("03-15") {
		t.Fatalf("line: %v", line)
	}

	// Page by page, one line at a time, the running balances carry on.
	whole, _ := b.ledgerLines(t, url.Values{})
	paged, accounts := b.ledgerLines(t, url.Values{"limit": {"1"}})
	if fmt.Sprint(whole) != fmt.Sprint(paged) || len(whole) != 12 {
		t.Fatalf("paged %v\nwhole %v", paged, whole)
	}
	// 2081 has an opening balance only: listed, without lines.
	found := false
	for _, a := range accounts {
		found = found || a == "2081"
	}
	if !found {
		t.Fatalf("2081 missing: %v", accounts)
	}
	// A short bound covers the accounts it starts.
	_, accounts = b.ledgerLines(t, url.Values{"account_from": {"200"}, "account_to": {"269"}})
	if fmt.Sprint(accounts) != "[2081 2611 2641]" {
		t.Fatalf("range: %v", accounts)
	}
	b.get(b.base+"/reports/general-ledger?period_id="+b.period+"&account_from=3000&account_to=2000", b.token).
		errorCode(t, 400, "VALIDATION_ERROR")
	b.get(b.base+"/reports/general-ledger?period_id="+b.period+"&account_from=19x", b.token).
		errorCode(t, 400, "VALIDATION_ERROR")
}

func TestJournalRegister(t *testing.T) {
	t.Parallel()
	b, wrong := reportBooks(t)
	r := b.report(t, "journal-register", nil)
	entries := r.list("data.entries")
	if len(entries) != 6 {
		t.Fatalf("entries: %s", r.Body)
	}
	// Series A from A1, then the opening balance in its own series IB.
	for i, e := range entries {
		want := fmt.Sprintf("A%d", i+1)
		if i == 5 {
			want = "IB1"
		}
		if v := e.(map[string]any)["voucher"]; v != want {
			t.Fatalf("entry %d is %v", i, v)
		}
	}
	ob := entries[5].(map[string]any)
	if ob["source_type"] != "opening_balance" || len(ob["lines"].([]any)) != 2 {
		t.Fatalf("opening balance: %v", ob)
	}
	mistaken, storno := entries[3].(map[string]any), entries[4].(map[string]any)
	if mistaken["id"] != wrong || mistaken["status"] != "reversed" || mistaken["reversed_by_id"] != storno["id"] {
		t.Fatalf("reversed: %v", mistaken)
	}
	if storno["is_storno"] != true || storno["reverses_id"] != wrong || storno["total_debit"] != float64(99) {
		t.Fatalf("storno: %v", storno)
	}
	sale := entries[0].(map[string]any)
	l0 := sale["lines"].([]any)[0].(map[string]any)
	if l0["account_number"] != "1930" || l0["account_name"] != "Företagskonto/checkkonto/affärskonto" {
		t.Fatalf("lines: %v", sale)
	}
	// Drafts are not in it; pages of two keep voucher order.
	b.create(b.sale("08-01")).status(t, 201)
	var vouchers []string
	q := url.Values{"limit": {"2"}}
	for {
		p := b.report(t, "journal-register", q)
		for _, e := range p.list("data.entries") {
			vouchers = append(vouchers, e.(map[string]any)["voucher"].(string))
		}
		next, _ := p.at("meta.next_cursor").(string)
		if next == "" {
			break
		}
		q.Set("cursor", next)
	}
	if fmt.Sprint(vouchers) != "[A1 A2 A3 A4 A5 IB1]" {
		t.Fatalf("paged: %v", vouchers)
	}
}
