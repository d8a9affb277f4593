package ledger_test

import (
	"testing"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/bas"
	"github.com/kontera/kontera/internal/chart"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

func bal(acct, amount string) ledger.Balance {
	return ledger.Balance{Account: acct, Amount: money.MustParse(amount)}
}

func signed(lines []ledger.Line) map[string]string {
	out := map[string]string{}
	for _, l := range lines {
		out[l.Account] = l.Debit.Sub(l.Credit).String()
	}
	return out
}

// The closing entry books the year's result on 8999 against equity; the
// opening balance carries classes 1-2; the appropriation moves the result
// to retained earnings. Figures by hand: revenue 1000 (credit), costs 400
// + 150.50 (debit), so the profit is 449.50, credited to equity.
func TestClosingAndOpeningLines(t *testing.T) {
	b := []ledger.Balance{bal("1930", "25599.50"), bal("2081", "-25000"), bal("2611", "-250"), bal("2641", "100"),
		bal("3001", "-1000"), bal("5410", "400"), bal("6110", "150.50")}
	closing := ledger.ClosingLines(b, nil, "2099")
	got := signed(closing)
	want := map[string]string{"8999": "449.50", "2099": "-449.50"}
	for k, v := range want {
		if money.MustParse(got[k]).Cmp(money.MustParse(v)) != 0 {
			t.Fatalf("closing %s = %s, want %s (%v)", k, got[k], v, got)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("closing %v", got)
	}
	if r := ledger.Result(b, nil); r.Cmp(money.MustParse("449.50")) != 0 {
		t.Fatalf("result %s", r)
	}
	after := ledger.After(b, closing)
	if r := ledger.Result(after, nil); !r.IsZero() {
		t.Fatalf("result after the closing entry %s, want 0", r)
	}
	if ledger.ClosingLines(after, nil, "2099") != nil {
		t.Fatal("a second closing entry for a result already in equity")
	}
	// A late cost of 49.50 after the year-end: the re-run books only it.
	late := ledger.After(after, []ledger.Line{{Account: "6110", Debit: money.MustParse("49.50")},
		{Account: "1930", Credit: money.MustParse("49.50")}})
	if d := signed(ledger.ClosingLines(late, nil, "2099")); d["8999"] != "-49.50" || d["2099"] != "49.50" {
		t.Fatalf("re-run closing %v", d)
	}
	// A loss goes to the debit side of equity.
	loss := signed(ledger.ClosingLines([]ledger.Balance{bal("3001", "-100"), bal("5010", "300")}, nil, "2019"))
	if loss["2019"] != "200.00" || loss["8999"] != "-200.00" {
		t.Fatalf("loss %v", loss)
	}
	if ledger.ClosingLines([]ledger.Balance{bal("1930", "5"), bal("2081", "-5")}, nil, "2099") != nil {
		t.Fatal("a closing entry without income-statement balances")
	}
	open := signed(ledger.OpeningLines(ledger.Untagged(after), nil))
	if len(open) != 5 || open["2099"] != "-449.50" || open["1930"] != "25599.50" {
		t.Fatalf("opening %v", open)
	}
	ap := signed(ledger.AppropriationLines(after, "2099", "2091"))
	if len(ap) != 2 || ap["2099"] != "449.50" || ap["2091"] != "-449.50" {
		t.Fatalf("appropriation %v", ap)
	}
	// b lacks 2099: the two opening balances differ.
	if ledger.SameNet(ledger.OpeningLines(ledger.Untagged(after), nil), ledger.OpeningLines(ledger.Untagged(b), nil)) {
		t.Fatal("SameNet missed a difference")
	}
	// A project's balance opens on the project; the account's total is
	// the same either way, but the lines are not.
	p1, p2 := ledger.Dimensions{"6": "P1"}, ledger.Dimensions{"6": "P2"}
	tagged := ledger.OpeningLines([]ledger.Tagged{{Account: "1510", Tags: p1, Amount: money.MustParse("300")},
		{Account: "1510", Tags: p2, Amount: money.MustParse("-100")}, {Account: "2081", Amount: money.MustParse("-200")}}, nil)
	if len(tagged) != 3 || tagged[0].Dimensions["6"] != "P1" || tagged[0].Debit.String() != "300.00" ||
		tagged[1].Credit.String() != "100.00" || tagged[2].Account != "2081" {
		t.Fatalf("tagged opening %+v", tagged)
	}
	untagged := []ledger.Line{{Account: "1510", Debit: money.MustParse("200")}, {Account: "2081", Credit: money.MustParse("200")}}
	if ledger.SameNet(tagged, untagged) || !ledger.SameNet(tagged, tagged) {
		t.Fatal("SameNet must tell tags apart")
	}
	for form, acct := range map[string][2]string{"aktiebolag": {"2099", "2091"}, "enskild_firma": {"2019", "2010"},
		"ideell_forening": {"2069", "2067"}} {
		if ledger.ResultAccount(form) != acct[0] || ledger.RetainedAccount(form) != acct[1] {
			t.Fatalf("%s: %s %s", form, ledger.ResultAccount(form), ledger.RetainedAccount(form))
		}
	}
}

func TestManualOpeningLines(t *testing.T) {
	amt := func(s string) *money.Amount { a := money.MustParse(s); return &a }
	cases := []struct {
		in   []ledger.OpeningInput
		code apierr.Code
	}{
		{[]ledger.OpeningInput{{Account: "1930", Debit: amt("1")}, {Account: "3001", Credit: amt("1")}}, apierr.OBPnLAccount},
		{[]ledger.OpeningInput{{Account: "1930", Debit: amt("1")}, {Account: "0100", Credit: amt("1")}}, apierr.OBNonBalanceSheetAccount},
		{[]ledger.OpeningInput{{Account: "1930", Debit: amt("2")}, {Account: "2081", Credit: amt("1")}}, apierr.OBUnbalanced},
		{[]ledger.OpeningInput{{Account: "1930", Debit: amt("1"), Amount: amt("1")}}, apierr.ValidationError},
		{[]ledger.OpeningInput{{Account: "1930", Amount: amt("0")}, {Account: "2081", Amount: amt("0")}}, apierr.ValidationError},
		{nil, apierr.ValidationError},
	}
	for i, c := range cases {
		if _, err := ledger.ManualOpeningLines(c.in, nil); !apierr.Is(err, c.code) {
			t.Fatalf("case %d: %v, want %s", i, err, c.code)
		}
	}
	lines, err := ledger.ManualOpeningLines([]ledger.OpeningInput{{Account: "1930", Amount: amt("10")}, {Account: "2081", Amount: amt("-10")}}, nil)
	if err != nil || lines[0].Debit.String() != "10.00" || lines[1].Credit.String() != "10.00" {
		t.Fatalf("%v %+v", err, lines)
	}
}

// An SIE file declared 3950 an asset and 4999 a liability (#KTYP T, S):
// the sheet holds them on the balance sheet, so the closing entry leaves
// them alone and the next year opens with them, and a manual opening
// balance may name them. Figures by hand: revenue 3001 credit 1000, cost
// 5410 debit 400, so the result is 600 whatever 3950 and 4999 hold.
func TestSheetFromFile(t *testing.T) {
	sheet := ledger.Sheet{"3950": bas.Asset, "4999": bas.Liability}
	if !sheet.Holds("3950") || !sheet.Holds("1930") || sheet.Holds("3001") || !sheet.InResult("9999") {
		t.Fatal("Sheet.Holds")
	}
	// The chart's say: only an account an SIE file typed counts.
	of := ledger.SheetOf([]chart.Account{{Number: "3950", Type: bas.Asset, TypeFromFile: true},
		{Number: "4990", Type: bas.Liability, TypeFromFile: true}, {Number: "3001", Type: bas.Revenue},
		{Number: "1930", Type: bas.Asset}})
	if len(of) != 2 || of["3950"] != bas.Asset || of["4990"] != bas.Liability {
		t.Fatalf("SheetOf %v", of)
	}
	var plain ledger.Sheet
	if plain.Holds("3950") || !plain.Holds("2099") {
		t.Fatal("the zero Sheet is BAS's rule")
	}
	b := []ledger.Balance{bal("1930", "300"), bal("3950", "500"), bal("4999", "-200"), bal("2081", "-1200"),
		bal("3001", "-1000"), bal("5410", "400")}
	if r := ledger.Result(b, sheet); r.Cmp(money.MustParse("600")) != 0 {
		t.Fatalf("result %s, want 600", r)
	}
	closing := signed(ledger.ClosingLines(b, sheet, "2099"))
	if len(closing) != 2 || closing["8999"] != "600.00" || closing["2099"] != "-600.00" {
		t.Fatalf("closing %v", closing)
	}
	// Under BAS's rule alone 3950 and 4999 would be closed to equity: a
	// result of 600 - 500 + 200 = 300.
	if r := ledger.Result(b, nil); r.Cmp(money.MustParse("300")) != 0 {
		t.Fatalf("BAS result %s, want 300", r)
	}
	open := signed(ledger.OpeningLines(ledger.Untagged(b), sheet))
	if open["3950"] != "500.00" || open["4999"] != "-200.00" || open["3001"] != "" || len(open) != 4 {
		t.Fatalf("opening %v", open)
	}
	amt := func(s string) *money.Amount { a := money.MustParse(s); return &a }
	if _, err := ledger.ManualOpeningLines([]ledger.OpeningInput{{Account: "3950", Debit: amt("5")},
		{Account: "2081", Credit: amt("5")}}, sheet); err != nil {
		t.Fatalf("a manual opening balance on a file's asset: %v", err)
	}
}

// A receivable and cash that grew are gains (3960, 8330), a debt that
// grew a loss (7960); a cash account that shrank is a loss on 8430.
func TestRevaluationLines(t *testing.T) {
	diff := func(s string) *money.Amount { a := money.MustParse(s); return &a }
	rate := money.MustParseRate("11.5")
	items := []ledger.OpenItem{
		{Kind: ledger.CustomerInvoice, Account: "1510", Difference: diff("625"), Rate: &rate},
		{Kind: ledger.SupplierInvoice, Account: "2440", Difference: diff("150"), Rate: &rate},
		{Kind: ledger.SupplierInvoice, Account: "2440", Difference: diff("-40"), Rate: &rate},
		{Kind: ledger.CashAccount, Account: "1940", Difference: diff("100"), Rate: &rate},
		{Kind: ledger.CashAccount, Account: "1941", Difference: diff("-30"), Rate: &rate},
		{Kind: ledger.CustomerInvoice, Account: "1510", Difference: diff("0"), Rate: &rate},
	}
	got := map[string]string{}
	sums := map[string]money.Amount{}
	for _, l := range ledger.RevaluationLines(items) {
		sums[l.Account] = sums[l.Account].Add(l.Debit).Sub(l.Credit)
	}
	for k, v := range sums {
		got[k] = v.String()
	}
	want := map[string]string{"1510": "625.00", "3960": "-665.00", "2440": "-110.00", "7960": "150.00",
		"1940": "100.00", "8330": "-100.00", "1941": "-30.00", "8430": "30.00"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %s, want %s (all %v)", k, got[k], v, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("accounts %v", got)
	}
}
