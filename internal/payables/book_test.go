package payables

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

func amt(s string) money.Amount { return money.MustParse(s) }

func ptr[T any](v T) *T { return &v }

var day = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)

// registered plans d for a VAT-registered aktiebolag under
// faktureringsmetoden, failing the test on a refusal.
func registered(t *testing.T, d Draft, s Supplier, f Facts) Invoice {
	t.Helper()
	inv, err := Plan(d, s, f)
	if err != nil {
		t.Fatal(err)
	}
	inv.EntryID = ptr(uuid.New())
	return inv
}

var accrualAB = Facts{ArrivalNumber: 1, VATRegistered: true, EntityType: "aktiebolag"}

func draft(items ...ItemDraft) Draft {
	return Draft{Number: "F-1", InvoiceDate: day, DueDate: day.AddDate(0, 0, 30), Items: items}
}

// shape writes lines as "D 5410 10000.00" and "C 2440 12500.00", sorted,
// so a test states a verifikat as a bookkeeper reads it.
func shape(lines []ledger.Line) string {
	var out []string
	for _, l := range lines {
		if l.Debit.Sign() > 0 {
			out = append(out, fmt.Sprintf("D %s %s", l.Account, l.Debit))
		}
		if l.Credit.Sign() > 0 {
			out = append(out, fmt.Sprintf("C %s %s", l.Account, l.Credit))
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func expect(t *testing.T, what string, lines []ledger.Line, want ...string) {
	t.Helper()
	sort.Strings(want)
	if got := shape(lines); got != strings.Join(want, ", ") {
		t.Errorf("%s:\n got %s\nwant %s", what, got, strings.Join(want, ", "))
	}
	if err := ledger.CheckBalance(lines); err != nil {
		t.Errorf("%s: %v", what, err)
	}
}

func TestRegistrationByHand(t *testing.T) {
	se := Supplier{Type: "swedish_business", Currency: "SEK"}
	inv := registered(t, draft(ItemDraft{Description: "Kontorsmaterial", Amount: amt("10000"), Account: ptr("5410")}), se, accrualAB)
	if inv.VAT.String() != "2500.00" || inv.Total.String() != "12500.00" {
		t.Fatalf("totals %s %s", inv.VAT, inv.Total)
	}
	expect(t, "25 % on 5410", Registration(inv), "D 5410 10000.00", "D 2641 2500.00", "C 2440 12500.00")

	eu := Supplier{Type: "eu_business", Currency: "SEK"}
	d := draft(ItemDraft{Description: "Konsulttjänst", Amount: amt("10000")})
	d.ReverseCharge = ptr(true)
	inv = registered(t, d, eu, accrualAB)
	if !inv.VAT.IsZero() || inv.Total.String() != "10000.00" || inv.Items[0].Account != "4535" {
		t.Fatalf("reverse charge: vat %s total %s account %s", inv.VAT, inv.Total, inv.Items[0].Account)
	}
	expect(t, "EU service, reverse charge", Registration(inv),
		"D 4535 10000.00", "D 2645 2500.00", "C 2614 2500.00", "C 2440 10000.00")

	d = draft(ItemDraft{Description: "Import", Amount: amt("1000"), VATRate: ptr(amt("0.12")), Account: ptr("4546")})
	d.Treatment = ReverseCharge
	inv = registered(t, d, Supplier{Type: "non_eu_business"}, accrualAB)
	expect(t, "import of goods at 12 %", Registration(inv), "D 4546 1000.00", "D 2645 120.00", "C 2625 120.00", "C 2440 1000.00")

	d = draft(ItemDraft{Description: "Pensionsförsäkring", Amount: amt("5000"), VATRate: ptr(amt("0")), Account: ptr("7412"), SLP: true})
	inv = registered(t, d, se, accrualAB)
	expect(t, "SLP on 7412", Registration(inv), "D 7412 5000.00", "D 7533 1213.00", "C 2514 1213.00", "C 2440 5000.00")

	d = draft(ItemDraft{Description: "Varor", Amount: amt("987.68"), Account: ptr("4010")})
	d.OreRounding = ptr(true)
	inv = registered(t, d, se, accrualAB)
	if inv.Total.String() != "1235.00" || inv.Rounding.String() != "0.40" {
		t.Fatalf("öresavrundning: total %s rounding %s", inv.Total, inv.Rounding)
	}
	expect(t, "1 234.60 rounded", Registration(inv), "D 4010 987.68", "D 2641 246.92", "D 3740 0.40", "C 2440 1235.00")
}

// Reverse charge in another currency: the kronor base first, then its VAT,
// rounded once. 33.33 EUR at 11.2345 is 374.445885, so 374.45 kronor,
// and 25 % of it 93.6125, so 93.61; the currency's VAT 8.33 EUR
// converted would be 93.583385, 93.58, three öre short. Two lines at the
// rate are summed before the VAT: 374.45 + 112.35 (10.00 EUR) = 486.80,
// 25 % 121.70; 2440 carries the total at the rate, 43.33 × 11.2345 =
// 486.790885, 486.79, and the öre between goes to 3740.
func TestForeignReverseChargeByHand(t *testing.T) {
	eu := Supplier{Type: "eu_business"}
	d := draft(ItemDraft{Description: "Konsulttjänst", Amount: amt("33.33")})
	d.Currency, d.ExchangeRate, d.ReverseCharge = "EUR", ptr(money.MustParseRate("11.2345")), ptr(true)
	expect(t, "33.33 EUR at 11.2345", Registration(registered(t, d, eu, accrualAB)),
		"D 4535 374.45", "D 2645 93.61", "C 2614 93.61", "C 2440 374.45")
	d.Items = append(d.Items, ItemDraft{Description: "Resa", Amount: amt("10.00")})
	expect(t, "two lines", Registration(registered(t, d, eu, accrualAB)),
		"D 4535 486.80", "D 2645 121.70", "C 2614 121.70", "C 2440 486.79", "C 3740 0.01")
	// Under kontantmetoden the payment books the same VAT.
	cash := accrualAB
	cash.Cash = true
	d.Items = d.Items[:1]
	inv := registered(t, d, eu, cash)
	if got := shape(CashLines(inv, money.Amount{}, inv.Total)); got != "C 2614 93.61, D 2645 93.61, D 4535 374.45" {
		t.Errorf("paid whole, kontantmetoden: %s", got)
	}
}

func TestForeignPaymentByHand(t *testing.T) {
	d := draft(ItemDraft{Description: "Licens", Amount: amt("1000"), Account: ptr("5420"), VATRate: ptr(amt("0"))})
	d.Currency, d.ExchangeRate = "EUR", ptr(money.MustParseRate("11.50"))
	inv := registered(t, d, Supplier{Type: "eu_business"}, accrualAB)
	reg := Registration(inv)
	expect(t, "1 000 EUR at 11.50", reg, "D 5420 11500.00", "C 2440 11500.00")
	if l := reg[len(reg)-1]; l.Currency == nil || *l.Currency != "EUR" || l.AmountInCurrency.String() != "1000.00" {
		t.Errorf("2440 carries the currency: %+v", l)
	}
	expect(t, "paid 11 300 SEK", Settle(inv, amt("1000"), amt("11300"), "1930").Lines,
		"D 2440 11500.00", "C 1930 11300.00", "C 3960 200.00")
	expect(t, "paid 11 800 SEK", Settle(inv, amt("1000"), amt("11800"), "1930").Lines,
		"D 2440 11500.00", "C 1930 11800.00", "D 7960 300.00")
}

func TestCashMethodByHand(t *testing.T) {
	f := accrualAB
	f.Cash = true
	inv, err := Plan(draft(ItemDraft{Description: "Hyra", Amount: amt("10000"), Account: ptr("5010")}),
		Supplier{Type: "swedish_business"}, f)
	if err != nil {
		t.Fatal(err)
	}
	first := Settle(inv, amt("5000"), amt("5000"), "1930")
	expect(t, "5 000 of 12 500", first.Lines, "D 5010 4000.00", "D 2641 1000.00", "C 1930 5000.00")
	inv.PaidAmount, inv.PaidSEK = amt("5000"), first.Booked
	expect(t, "the last 7 500", Settle(inv, amt("7500"), amt("7500"), "1930").Lines,
		"D 5010 6000.00", "D 2641 1500.00", "C 1930 7500.00")
}

// TestCashSharesAddUp pays an awkward invoice in awkward parts: each
// payment's lines balance against what was paid, and together they book
// its costs exactly.
func TestCashSharesAddUp(t *testing.T) {
	f := accrualAB
	f.Cash = true
	inv, err := Plan(draft(
		ItemDraft{Description: "a", Amount: amt("333.33"), Account: ptr("5410")},
		ItemDraft{Description: "b", Amount: amt("77.77"), Account: ptr("5460"), VATRate: ptr(amt("0.12"))},
		ItemDraft{Description: "c", Amount: amt("-10.01"), Account: ptr("5410"), VATRate: ptr(amt("0.06"))}),
		Supplier{Type: "swedish_business"}, f)
	if err != nil {
		t.Fatal(err)
	}
	totals := map[string]money.Amount{}
	for _, part := range []string{"100.01", "0.01", "200", "33.33"} {
		s := Settle(inv, amt(part), amt(part), "1930")
		if err := ledger.CheckBalance(s.Lines); err != nil {
			t.Fatal(part, err, shape(s.Lines))
		}
		if s.Booked.Cmp(amt(part)) != 0 {
			t.Fatalf("payment %s booked %s", part, s.Booked)
		}
		for _, l := range s.Lines {
			totals[l.Account] = totals[l.Account].Add(l.Debit).Sub(l.Credit)
		}
		inv.PaidAmount, inv.PaidSEK = inv.PaidAmount.Add(amt(part)), inv.PaidSEK.Add(s.Booked)
	}
	rest := inv.Remaining()
	s := Settle(inv, rest, rest, "1930")
	for _, l := range s.Lines {
		totals[l.Account] = totals[l.Account].Add(l.Debit).Sub(l.Credit)
	}
	for _, l := range costs(inv, nil).Lines {
		if got := totals[l.Account]; got.Cmp(l.Debit.Sub(l.Credit)) != 0 && l.Account != "5410" {
			t.Errorf("%s booked %s, cost %s", l.Account, got, l.Debit.Sub(l.Credit))
		}
	}
	if totals["5410"].String() != "323.32" || totals["1930"].Neg().Cmp(inv.Total) != 0 {
		t.Errorf("5410 %s (333.33 - 10.01), 1930 %s of %s", totals["5410"], totals["1930"], inv.Total)
	}
}

func code(err error) apierr.Code {
	if e, ok := apierr.As(err); ok {
		return e.Code
	}
	return ""
}

func TestPlanRefusals(t *testing.T) {
	se := Supplier{Type: "swedish_business"}
	line := func(mod func(*ItemDraft)) Draft {
		it := ItemDraft{Description: "x", Amount: amt("100"), Account: ptr("5410")}
		mod(&it)
		return draft(it)
	}
	small := Facts{ArrivalNumber: 1, EntityType: "enskild_firma"}
	cases := []struct {
		name string
		d    Draft
		f    Facts
		want apierr.Code
	}{
		{"SLP off 741x", line(func(i *ItemDraft) { i.SLP = true }), accrualAB, apierr.SICreateSLPInvalidAccount},
		{"input VAT outside the register", line(func(i *ItemDraft) { i.VATRate = ptr(amt("0.25")) }), small, apierr.SICreateInvalidInput},
		{"VAT amount outside the register", line(func(i *ItemDraft) { i.VATAmount = ptr(amt("1")) }), small, apierr.SICreateInvalidInput},
		{"reverse charge on 5410", func() Draft { d := line(func(*ItemDraft) {}); d.Treatment = ReverseCharge; return d }(), accrualAB, apierr.SICreateInvalidInput},
		{"foreign without a rate", func() Draft { d := line(func(*ItemDraft) {}); d.Currency = "EUR"; return d }(), accrualAB, apierr.SIFXRateMissing},
		{"accrual under kontantmetoden", line(func(i *ItemDraft) { i.AccrualStart, i.AccrualEnd = &day, &day }),
			Facts{VATRegistered: true, Cash: true}, apierr.SICreateInvalidInput},
		{"private with reverse charge", func() Draft {
			d := line(func(i *ItemDraft) { i.Account = ptr("4535") })
			d.Treatment, d.PrivatelyPaid = ReverseCharge, true
			return d
		}(), accrualAB, apierr.SICreateInvalidInput},
		{"a total of nothing", line(func(i *ItemDraft) { i.Amount = amt("-100") }), accrualAB, apierr.SICreateInvalidInput},
		{"due before issued", func() Draft { d := line(func(*ItemDraft) {}); d.DueDate = day.AddDate(0, 0, -1); return d }(), accrualAB, apierr.ValidationError},
	}
	for _, c := range cases {
		if _, err := Plan(c.d, se, c.f); code(err) != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
	// Outside the register a line without a rate has none.
	inv, err := Plan(line(func(*ItemDraft) {}), se, small)
	if err != nil || !inv.VAT.IsZero() || inv.Treatment != Exempt {
		t.Errorf("not VAT-registered: %v %s %s", err, inv.VAT, inv.Treatment)
	}
}
