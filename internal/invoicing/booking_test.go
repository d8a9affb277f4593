package invoicing

import (
	"strings"
	"testing"

	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// show writes lines as "D 1510 12500.00", one per line, in order.
func show(lines []ledger.Line) string {
	var b strings.Builder
	for _, l := range lines {
		side, a := "D", l.Debit
		if !l.Credit.IsZero() {
			side, a = "C", l.Credit
		}
		b.WriteString(side + " " + l.Account + " " + a.String())
		if l.Currency != nil {
			b.WriteString(" (" + l.AmountInCurrency.String() + " " + *l.Currency + " @ " + l.ExchangeRate.String() + ")")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func balanced(t *testing.T, lines []ledger.Line) {
	t.Helper()
	var d, c money.Amount
	for _, l := range lines {
		d, c = d.Add(l.Debit), c.Add(l.Credit)
	}
	if d.Cmp(c) != 0 {
		t.Fatalf("unbalanced: debit %s, credit %s\n%s", d, c, show(lines))
	}
}

func sale(t *testing.T, items []Item, o Options) Sale {
	return Sale{Items: items, Totals: mustCompute(t, items, o)}
}

func want(t *testing.T, what string, lines []ledger.Line, w ...string) {
	t.Helper()
	balanced(t, lines)
	if got := show(lines); got != strings.Join(w, "\n")+"\n" {
		t.Errorf("%s:\n%s\nwant:\n%s", what, got, strings.Join(w, "\n"))
	}
}

func issue(t *testing.T, s Sale) []ledger.Line {
	t.Helper()
	lines, err := IssueLines(s)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

func pay(t *testing.T, s Sale, p Receipt, cash bool) []ledger.Line {
	t.Helper()
	lines, err := PaymentLines(s, p, cash)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// 10 000 + 25 %, paid 5 000 then 7 500; under kontantmetoden each payment
// books its share of revenue and VAT (4 000 + 1 000, 6 000 + 1 500).
func TestBookSaleAndPayments(t *testing.T) {
	s := sale(t, []Item{item("1", "10000", 25)}, Options{})
	want(t, "issue", issue(t, s), "D 1510 12500.00", "C 3001 10000.00", "C 2611 2500.00")
	first := Receipt{Amount: money.MustParse("5000")}
	second := Receipt{Amount: money.MustParse("7500"), Before: first.Amount}
	want(t, "first payment", pay(t, s, first, false), "D 1930 5000.00", "C 1510 5000.00")
	want(t, "second payment", pay(t, s, second, false), "D 1930 7500.00", "C 1510 7500.00")
	want(t, "first payment, cash", pay(t, s, first, true), "D 1930 5000.00", "C 3001 4000.00", "C 2611 1000.00")
	want(t, "second payment, cash", pay(t, s, second, true), "D 1930 7500.00", "C 3001 6000.00", "C 2611 1500.00")
	want(t, "credit", CreditLines(issue(t, s)), "C 1510 12500.00", "D 3001 10000.00", "D 2611 2500.00")
}

// Three rates book three revenue accounts and three VAT accounts.
func TestBookThreeRates(t *testing.T) {
	s := sale(t, []Item{item("1", "1000", 25), item("1", "500", 12), item("1", "200", 6)}, Options{})
	want(t, "issue", issue(t, s), "D 1510 2022.00", "C 3001 1000.00", "C 3002 500.00", "C 3003 200.00",
		"C 2611 250.00", "C 2621 60.00", "C 2631 12.00")
}

// 987.68 + 246.92 = 1 234.60 rounded to 1 235.00: 0.40 on 3740; a total
// rounded down debits it.
func TestBookRounding(t *testing.T) {
	s := sale(t, []Item{item("1", "987.68", 25)}, Options{OreRounding: true})
	want(t, "up", issue(t, s), "D 1510 1235.00", "C 3001 987.68", "C 2611 246.92", "C 3740 0.40")
	s = sale(t, []Item{item("1", "985.84", 25)}, Options{OreRounding: true})
	want(t, "down", issue(t, s), "D 1510 1232.00", "C 3001 985.84", "C 2611 246.46", "D 3740 0.30")
	// Kontantmetoden: one payment of the whole books the parts as issued.
	want(t, "cash", pay(t, s, Receipt{Amount: money.MustParse("1232")}, true),
		"D 1930 1232.00", "C 3001 985.84", "C 2611 246.46", "D 3740 0.30")
}

// 1 000 EUR of services to an EU business at 11.50: 11 500 on 1510 and
// 3308. Paid at 11.30 the 200.00 short is an exchange loss; at 11.80 the
// 300.00 over is a gain.
func TestBookForeign(t *testing.T) {
	rate := func(s string) *money.Rate {
		r, err := money.ParseRate(s)
		if err != nil {
			t.Fatal(err)
		}
		return &r
	}
	s := sale(t, []Item{item("1", "1000", 0)}, Options{})
	s.Revenue, s.Currency, s.Rate = EUServicesRevenue, "EUR", rate("11.50")
	want(t, "issue", issue(t, s), "D 1510 11500.00 (1000.00 EUR @ 11.5)", "C 3308 11500.00")
	eur := money.MustParse("1000")
	want(t, "paid at 11.30", pay(t, s, Receipt{Amount: eur, SEK: rate("11.30").Convert(eur)}, false),
		"D 1930 11300.00", "C 1510 11500.00 (-1000.00 EUR @ 11.5)", "D 7960 200.00")
	want(t, "paid at 11.80", pay(t, s, Receipt{Amount: eur, SEK: rate("11.80").Convert(eur)}, false),
		"D 1930 11800.00", "C 1510 11500.00 (-1000.00 EUR @ 11.5)", "C 3960 300.00")
	if _, err := IssueLines(Sale{Items: s.Items, Totals: s.Totals, Currency: "EUR"}); err == nil {
		t.Error("a foreign sale without a rate booked")
	}
}

// ROT: labour 10 000 and material 4 000 at 25 %: the customer owes
// 13 750, Skatteverket 3 750; its payout clears 1513.
func TestBookROT(t *testing.T) {
	labour := item("1", "10000", 25)
	labour.Deduction = ROT
	s := sale(t, []Item{labour, item("1", "4000", 25)}, Options{})
	want(t, "issue", issue(t, s), "D 1510 13750.00", "D 1513 3750.00", "C 3001 14000.00", "C 2611 3500.00")
	want(t, "the customer pays", pay(t, s, Receipt{Amount: money.MustParse("13750")}, false), "D 1930 13750.00", "C 1510 13750.00")
	want(t, "payout", PayoutLines("", money.MustParse("3750")), "D 1930 3750.00", "C 1513 3750.00")
	want(t, "credit", CreditLines(issue(t, s)), "C 1510 13750.00", "C 1513 3750.00", "D 3001 14000.00", "D 2611 3500.00")
}

// A line's own revenue account wins over the rate's.
func TestBookRevenueAccount(t *testing.T) {
	s := sale(t, []Item{item("1", "100", 25), item("1", "100", 25)}, Options{})
	s.Accounts = []string{"3041", ""}
	want(t, "issue", issue(t, s), "D 1510 250.00", "C 3041 100.00", "C 3001 100.00", "C 2611 50.00")
}

// Shares reckoned on the running sum add up to the whole: 100.00 paid in
// thirds of 33.33, 33.33 and 33.34 of a 100.00 invoice, and 0.01 of VAT
// shared the same way.
func TestShare(t *testing.T) {
	total := money.MustParse("100")
	for _, whole := range []string{"80", "20", "0.01", "-0.30", "99999999999999.99"} {
		var got money.Amount
		var before money.Amount
		for _, now := range []string{"33.33", "33.33", "33.34"} {
			n := money.MustParse(now)
			sh, err := Share(money.MustParse(whole), total, before, n)
			if err != nil {
				t.Fatal(err)
			}
			got, before = got.Add(sh), before.Add(n)
		}
		if got.String() != money.MustParse(whole).String() {
			t.Errorf("shares of %s add up to %s", whole, got)
		}
	}
	for _, c := range [][3]string{{"100", "0", "0"}, {"100", "90", "20"}, {"0", "0", "1"}, {"100", "-1", "1"}} {
		if _, err := Share(money.MustParse("10"), money.MustParse(c[0]), money.MustParse(c[1]), money.MustParse(c[2])); err == nil {
			t.Errorf("share %v taken", c)
		}
	}
}

// The receivable a payment settles is what the sale came to in kronor
// less Skatteverket's part: 17 500 with ROT of 3 750 leaves 13 750 on 1510.
func TestReceivable(t *testing.T) {
	sek := money.MustParse("17500")
	inv := Invoice{Currency: "SEK", TotalSEK: &sek, DeductionTotal: money.MustParse("3750")}
	if r := receivable(inv); r == nil || r.String() != "13750.00" {
		t.Fatalf("receivable: %v", r)
	}
	if r := receivable(Invoice{Currency: "SEK"}); r != nil {
		t.Fatalf("without kronor: %v", r)
	}
	labour := item("1", "10000", 25)
	labour.Deduction = ROT
	issued := issue(t, sale(t, []Item{labour, item("1", "4000", 25)}, Options{}))
	if got := kronorOf(issued); got.String() != "17500.00" {
		t.Fatalf("the sale in kronor: %s", got)
	}
}
