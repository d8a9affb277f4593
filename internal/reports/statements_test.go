package reports

import (
	"testing"
	"time"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/bas"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

func m(s string) money.Amount { return money.MustParse(s) }

func TestFieldOf(t *testing.T) {
	for n, want := range map[string]string{
		"3001": "3.1", "3740": "3.1", "3800": "3.3", "3990": "3.4", "4010": "3.5", "4910": "3.5", "4200": "3.6",
		"4960": "3.6", "4900": "3.2", "4990": "3.2", "5010": "3.7", "6992": "3.7", "7010": "3.8", "7832": "3.9",
		"7740": "3.10", "7970": "3.11", "8012": "3.12", "8113": "3.14", "8123": "3.14", "8133": "3.14",
		"8112": "3.13", "8072": "3.17", "8311": "3.16", "8423": "3.18", "8830": "3.19", "8820": "3.20",
		"8850": "3.23", "8840": "3.24", "8910": "3.25", "8999": "", "1930": "", "2099": "",
	} {
		if got, _ := FieldOf(n, m("1")); got != want {
			t.Errorf("%s: field %q, want %q", n, got, want)
		}
	}
	// A periodiseringsfond by its sign: reversed (income) or allocated.
	if f, _ := FieldOf("8819", m("5000")); f != "3.21" {
		t.Errorf("reversal: %s", f)
	}
	if f, _ := FieldOf("8811", m("-5000")); f != "3.22" {
		t.Errorf("allocation: %s", f)
	}
	if _, ok := FieldOf("8600", m("1")); ok {
		t.Error("8600 lies in no field")
	}
}

// A year by hand: 121 000 of sales, 96 800 of external costs, 20 000 of
// salaries, 3 000 of depreciation, 500 of interest income, 1 200 of
// interest cost, 10 000 allocated to a periodiseringsfond, 2 000 of tax;
// last year 98 000 of sales and 90 000 of costs. 8999 and balance
// accounts are left out.
func TestLayIncome(t *testing.T) {
	now := map[string]money.Amount{"3001": m("120000"), "3740": m("1000"), "5010": m("-96000"), "6072": m("-800"),
		"7010": m("-20000"), "7832": m("-3000"), "8311": m("500"), "8410": m("-1200"), "8811": m("-10000"),
		"8910": m("-2000"), "8999": m("12345"), "1930": m("9")}
	prev := map[string]money.Amount{"3001": m("98000"), "5010": m("-90000")}
	s := LayIncome(now, prev)
	want := map[string]string{"nettoomsattning": "121000", "total_revenue": "121000", "rorelseresultat": "1200",
		"resultat_efter_finansiella_poster": "500", "resultat_fore_skatt": "-9500", "arets_resultat": "-11500"}
	for k, v := range want {
		if s.Totals[k].Amount.Cmp(m(v)) != 0 {
			t.Errorf("%s: %s, want %s", k, s.Totals[k].Amount, v)
		}
	}
	if s.Totals["arets_resultat"].Previous.Cmp(m("8000")) != 0 || s.Totals["rorelseresultat"].Previous.Cmp(m("8000")) != 0 {
		t.Errorf("last year: %+v", s.Totals)
	}
	var keys []string
	fields := 0
	for _, sec := range s.Sections {
		keys = append(keys, sec.Key)
		fields += len(sec.Rows)
		for _, r := range sec.Rows {
			if r.Field.Field == "3.7" && (len(r.Accounts) != 2 || r.Amount.Cmp(m("-96800")) != 0 || r.Previous.Cmp(m("-90000")) != 0) {
				t.Errorf("3.7: %+v", r)
			}
			if r.Field.Field == "3.22" && (len(r.Accounts) != 1 || r.Amount.Cmp(m("-10000")) != 0) {
				t.Errorf("3.22: %+v", r)
			}
		}
	}
	if fields != 25 || len(keys) != 5 || keys[4] != SectionTax {
		t.Errorf("%d rows in sections %v", fields, keys)
	}
	// An account outside every field has a section of its own before the
	// result before tax.
	s = LayIncome(map[string]money.Amount{"3001": m("100"), "8600": m("-40")}, nil)
	if s.Sections[4].Key != SectionOther || s.Totals["resultat_fore_skatt"].Amount.Cmp(m("60")) != 0 ||
		s.Sections[3].Subtotal != nil || s.Sections[4].Subtotal == nil {
		t.Errorf("other items: %+v", s.Sections)
	}
}

// An aktiebolag's balance sheet by hand: 50 000 of share capital paid in,
// a year's result of 19 200 not yet closed, 2 500 of VAT owed.
func TestLayBalance(t *testing.T) {
	opening := map[string]money.Amount{"1930": m("50000"), "2081": m("-50000")}
	change := map[string]money.Amount{"1930": m("21700"), "2611": m("-2500")}
	b := LayBalance("aktiebolag", nil, opening, change, m("19200"))
	if b.Assets.Cmp(m("71700")) != 0 || b.EquityAndLiabilities.Cmp(m("71700")) != 0 || !b.Difference.IsZero() || !b.Balanced() {
		t.Fatalf("totals %s / %s / %s", b.Assets, b.EquityAndLiabilities, b.Difference)
	}
	eq := b.Sides[1].Groups[0]
	if len(eq.Rows) != 3 || eq.Rows[0].Closing.Cmp(m("50000")) != 0 || eq.Rows[2].Key != "arets_resultat" ||
		eq.Rows[2].Closing.Cmp(m("19200")) != 0 || eq.Total.Closing.Cmp(m("69200")) != 0 {
		t.Errorf("equity: %+v", eq)
	}
	kort := b.Sides[1].Groups[4]
	var oms BalanceGroup
	if kort.Key != "kortfristiga_skulder" || len(kort.Rows) != 6 || kort.Rows[2].Key != "26" || kort.Rows[2].Closing.Cmp(m("2500")) != 0 {
		t.Errorf("current liabilities: %+v", kort)
	}
	if len(b.Sides[0].Groups[0].Rows) != 4 || b.Sides[0].Groups[1].Rows[5].Label != "Kassa och bank" {
		t.Errorf("assets: %+v", b.Sides[0].Groups)
	}
	// A sole trader has one line of equity; an unbalanced book shows.
	b = LayBalance("enskild_firma", nil, map[string]money.Amount{"2010": m("-100")}, map[string]money.Amount{"1930": m("150")}, m("0"))
	if len(b.Sides[1].Groups[0].Rows) != 2 || b.Difference.Cmp(m("50")) != 0 || b.Balanced() {
		t.Errorf("sole trader: %+v", b)
	}
	if LayBalance("aktiebolag", nil, nil, map[string]money.Amount{"1930": m("0.99")}, m("0")).Balanced() != true {
		t.Error("less than a krona apart is balanced")
	}
	// An SIE file declared 3950 an asset and 4990 a liability: each gets
	// a row of its own on its side. By hand: assets 1930 1 000 + 3950
	// 700 = 1 700; equity 2081 1 000, liability 4990 700.
	sheet := ledger.Sheet{"3950": bas.Asset, "4990": bas.Liability}
	b = LayBalance("aktiebolag", sheet, map[string]money.Amount{"1930": m("1000"), "2081": m("-1000"), "3950": m("500"),
		"4990": m("-500")}, map[string]money.Amount{"3950": m("200"), "4990": m("-200")}, m("0"))
	oms, kort = b.Sides[0].Groups[1], b.Sides[1].Groups[4]
	last, lastDebt := oms.Rows[len(oms.Rows)-1], kort.Rows[len(kort.Rows)-1]
	if !b.Balanced() || b.Assets.Cmp(m("1700")) != 0 || last.Key != "ovriga_tillgangar" || last.Closing.Cmp(m("700")) != 0 ||
		last.Accounts[0].Account != "3950" || lastDebt.Key != "ovriga_skulder" || lastDebt.Closing.Cmp(m("700")) != 0 {
		t.Errorf("accounts a file declared: %+v / %+v", last, lastDebt)
	}
	// Without them the rows are absent.
	if b := LayBalance("aktiebolag", sheet, opening, change, m("19200")); len(b.Sides[0].Groups[1].Rows) != 6 {
		t.Errorf("a file's row without accounts: %+v", b.Sides[0].Groups[1].Rows)
	}
}

func TestLastYear(t *testing.T) {
	for in, want := range map[string]string{"2026-03-15": "2025-03-15", "2028-02-29": "2027-02-28",
		"2027-02-28": "2026-02-28", "2026-12-31": "2025-12-31", "2025-02-28": "2024-02-29", "2026-01-01": "2025-01-01"} {
		d, _ := time.Parse(time.DateOnly, in)
		if got := lastYear(d).Format(time.DateOnly); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

// A year's cash flow by hand: 47 800 after financial items, 3 000 of
// depreciation, 10 000 to a periodiseringsfond, 2 000 of tax of which
// 1 500 paid through 2518, 30 000 more VAT owed, equipment of 15 000
// bought, a loan of 20 000 taken: 19xx grows 47 800 + 3 000 - 1 500 +
// 30 000 - 15 000 + 20 000 = 84 300.
func TestCash(t *testing.T) {
	change := map[string]money.Amount{"3001": m("-120000"), "5010": m("48000"), "7010": m("20000"), "7832": m("3000"),
		"8410": m("1200"), "8811": m("10000"), "2125": m("-10000"), "8910": m("2000"), "2512": m("-2000"),
		"2518": m("1500"), "2611": m("-30000"), "1220": m("15000"), "1229": m("-3000"), "2350": m("-20000"),
		"1930": m("84300"), "2099": m("6000"), "2091": m("-6000")}
	c, err := Cash(nil, map[string]money.Amount{"1930": m("58500")}, change)
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string][2]money.Amount{"result": {c.ResultAfterFinancial, m("47800")},
		"tax paid": {c.TaxPaid, m("-1500")}, "operating": {c.Operating, m("79300")},
		"fixed assets": {c.FixedAssets, m("-15000")}, "financing": {c.Financing, m("20000")},
		"total": {c.Total, m("84300")}, "closing": {c.ClosingCash, m("142800")}} {
		if got[0].Cmp(got[1]) != 0 {
			t.Errorf("%s: %s, want %s", name, got[0], got[1])
		}
	}
	if !c.Mismatch.IsZero() {
		t.Errorf("mismatch %s", c.Mismatch)
	}
	// Income tax through 2510, the catch-all: it cannot be told apart.
	change["2510"], change["2512"] = m("-2000"), m("0")
	if _, err := Cash(nil, nil, change); !apierr.Is(err, apierr.CashFlowTaxAllocationRequired) {
		t.Errorf("2510: %v", err)
	}
	// A file's asset 3950 grew by 500 and its liability 4990 by 200, paid
	// from and into 1930: receivables -500, current liabilities +200, the
	// result untouched. By hand: cash moves -300.
	c, err = Cash(ledger.Sheet{"3950": bas.Asset, "4990": bas.Liability}, map[string]money.Amount{"1930": m("1000")},
		map[string]money.Amount{"3950": m("500"), "4990": m("-200"), "1930": m("-300")})
	if err != nil || c.Receivables.Cmp(m("-500")) != 0 || c.CurrentLiabilities.Cmp(m("200")) != 0 ||
		!c.ResultAfterFinancial.IsZero() || c.Total.Cmp(m("-300")) != 0 || !c.Mismatch.IsZero() {
		t.Errorf("a file's balance accounts: %+v %v", c, err)
	}
}

func TestMonthsSumToTheYear(t *testing.T) {
	rows := []ledger.MonthTotal{{Account: "3001", Month: day("2026-01-01"), Credit: m("1000")},
		{Account: "5010", Month: day("2026-01-01"), Debit: m("400")}, {Account: "8410", Month: day("2026-03-01"), Debit: m("50")},
		{Account: "8999", Month: day("2026-03-01"), Debit: m("550")}}
	ms := Months(rows, day("2026-01-01"), day("2026-03-31"))
	if len(ms) != 3 || ms[0].Net.Cmp(m("600")) != 0 || ms[0].Expenses.Cmp(m("400")) != 0 || ms[1].Net.Sign() != 0 ||
		ms[2].Net.Cmp(m("-50")) != 0 || ms[2].OperatingResult.Sign() != 0 {
		t.Errorf("months %+v", ms)
	}
}
