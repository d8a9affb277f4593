package invoicing

import (
	"testing"
	"time"

	"github.com/kontera/kontera/internal/money"
)

func item(qty, price string, rate int) Item {
	q, err := money.ParseQuantity(qty)
	if err != nil {
		panic(err)
	}
	return Item{Quantity: q, UnitPrice: money.MustParse(price), VATRate: rate}
}

var day = time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)

func mustCompute(t *testing.T, items []Item, o Options) Totals {
	t.Helper()
	if o.Date.IsZero() {
		o.Date = day
	}
	tt, err := Compute(items, o)
	if err != nil {
		t.Fatal(err)
	}
	return tt
}

func eq(t *testing.T, what string, got money.Amount, want string) {
	t.Helper()
	if got.String() != want {
		t.Errorf("%s = %s, want %s", what, got, want)
	}
}

// 10 000 + 25 % = 12 500.
func TestComputeOneRate(t *testing.T) {
	tt := mustCompute(t, []Item{item("1", "10000", 25)}, Options{})
	eq(t, "subtotal", tt.Subtotal, "10000.00")
	eq(t, "vat", tt.VAT, "2500.00")
	eq(t, "total", tt.Total, "12500.00")
	eq(t, "customer", tt.Customer, "12500.00")
}

// 1 000 @ 25 %, 500 @ 12 %, 200 @ 6 %: VAT 250 + 60 + 12, total 2 022.00.
func TestComputeThreeRates(t *testing.T) {
	tt := mustCompute(t, []Item{item("1", "1000", 25), item("1", "500", 12), item("1", "200", 6)}, Options{})
	eq(t, "vat", tt.VAT, "322.00")
	eq(t, "total", tt.Total, "2022.00")
	want := []RateTotal{{25, money.MustParse("1000"), money.MustParse("250")},
		{12, money.MustParse("500"), money.MustParse("60")}, {6, money.MustParse("200"), money.MustParse("12")}}
	if len(tt.ByRate) != 3 {
		t.Fatalf("by rate: %+v", tt.ByRate)
	}
	for i, w := range want {
		g := tt.ByRate[i]
		if g.Rate != w.Rate || g.Net.Cmp(w.Net) != 0 || g.VAT.Cmp(w.VAT) != 0 {
			t.Errorf("rate %d: %+v, want %+v", w.Rate, g, w)
		}
	}
}

// 987.68 + 246.92 = 1 234.60, rounded to 1 235.00: 0.40 of rounding. A
// half krona rounds up; below it, down.
func TestComputeOreRounding(t *testing.T) {
	for _, c := range []struct{ net, vat, rounding, total string }{
		{"987.68", "246.92", "0.40", "1235.00"},
		{"987.60", "246.90", "0.50", "1235.00"},  // 1 234.50
		{"987.20", "246.80", "0.00", "1234.00"},  // whole already
		{"987.00", "246.75", "0.25", "1234.00"},  // 1 233.75
		{"985.84", "246.46", "-0.30", "1232.00"}, // 1 232.30
	} {
		tt := mustCompute(t, []Item{item("1", c.net, 25)}, Options{OreRounding: true})
		eq(t, c.net+": vat", tt.VAT, c.vat)
		eq(t, c.net+": rounding", tt.Rounding, c.rounding)
		eq(t, c.net+": total", tt.Total, c.total)
	}
	eq(t, "without rounding", mustCompute(t, []Item{item("1", "987.68", 25)}, Options{}).Total, "1234.60")
}

// Quantity, discount and rounding of a line: 2.5 h × 850 less 12.5 % is
// 1 859.375, 1 859.38 to the öre.
func TestComputeLine(t *testing.T) {
	it := item("2.5", "850", 25)
	it.Discount = money.MustParse("12.5")
	tt := mustCompute(t, []Item{it, {Text: true}}, Options{})
	eq(t, "net", tt.Lines[0].Net, "1859.38")
	eq(t, "text line", tt.Lines[1].Net, "0.00")
	eq(t, "vat", tt.VAT, "464.85") // 464.845 rounded half up
	free := item("3", "100", 25)
	free.Discount = money.MustParse("100")
	eq(t, "100 % off", mustCompute(t, []Item{free}, Options{}).Total, "0.00")
}

// VAT is reckoned on the rate's sum and shared among its lines in whole
// öre: three lines of 0.10 at 25 % are 0.30, VAT 0.075 → 0.08, shared
// 0.03 + 0.03 + 0.02 (the first lines take the öre left over).
func TestComputeSharesVAT(t *testing.T) {
	tt := mustCompute(t, []Item{item("1", "0.10", 25), item("1", "0.10", 25), item("1", "0.10", 25)}, Options{})
	eq(t, "vat", tt.VAT, "0.08")
	var sum money.Amount
	for _, l := range tt.Lines {
		sum = sum.Add(l.VAT)
	}
	eq(t, "lines' vat", sum, "0.08")
	eq(t, "first line", tt.Lines[0].VAT, "0.03")
	eq(t, "last line", tt.Lines[2].VAT, "0.02")
}

// ROT: labour 10 000 and material 4 000, both at 25 %: total 17 500, the
// deduction 30 % of the labour's 12 500 = 3 750, the customer pays 13 750.
func TestComputeROT(t *testing.T) {
	labour := item("1", "10000", 25)
	labour.Deduction = ROT
	tt := mustCompute(t, []Item{labour, item("1", "4000", 25)}, Options{})
	eq(t, "total", tt.Total, "17500.00")
	eq(t, "deduction", tt.Deduction, "3750.00")
	eq(t, "customer", tt.Customer, "13750.00")
	// 50 % for work in the raised window; RUT is 50 %.
	raised := mustCompute(t, []Item{labour}, Options{Date: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)})
	eq(t, "rot in 2025's window", raised.Deduction, "6250.00")
	rut := item("3", "333.33", 25) // 999.99 + 250.00 = 1 249.99; half is 624.995 → 624 whole kronor
	rut.Deduction = RUT
	eq(t, "rut", mustCompute(t, []Item{rut}, Options{}).Deduction, "624.00")
}

func TestComputeRefuses(t *testing.T) {
	if _, err := Compute([]Item{item("1", "100", 20)}, Options{}); err == nil {
		t.Error("20 % taken")
	}
	if _, err := Compute([]Item{item("1000000", "999999999999", 25)}, Options{}); err == nil {
		t.Error("a total past Max taken")
	}
}
