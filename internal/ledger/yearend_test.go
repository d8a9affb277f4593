package ledger_test

import (
	"testing"

	"github.com/kontera/kontera/internal/apierr"
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
	closing := ledger.ClosingLines(b, "2099")
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
	if r := ledger.Result(b); r.Cmp(money.MustParse("449.50")) != 0 {
		t.Fatalf("result %s", r)
	}
	after := ledger.After(b, closing)
	if r := ledger.Result(after); !r.IsZero() {
		t.Fatalf("result after the closing entry %s, want 0", r)
	}
	if ledger.ClosingLines(after, "2099") != nil {
		t.Fatal("a second closing entry for a result already in equity")
	}
	// A late cost of 49.50 after the year-end: the re-run books only it.
	late := ledger.After(after, []ledger.Line{{Account: "6110", Debit: money.MustParse("49.50")},
		{Account: "1930", Credit: money.MustParse("49.50")}})
	if d := signed(ledger.ClosingLines(late, "2099")); d["8999"] != "-49.50" || d["2099"] != "49.50" {
		t.Fatalf("re-run closing %v", d)
	}
	// A loss goes to the debit side of equity.
	loss := signed(ledger.ClosingLines([]ledger.Balance{bal("3001", "-100"), bal("5010", "300")}, "2019"))
	if loss["2019"] != "200.00" || loss["8999"] != "-200.00" {
		t.Fatalf("loss %v", loss)
	}
	if ledger.ClosingLines([]ledger.Balance{bal("1930", "5"), bal("2081", "-5")}, "2099") != nil {
		t.Fatal("a closing entry without income-statement balances")
	}
	open := signed(ledger.OpeningLines(ledger.Untagged(after)))
	if len(open) != 5 || open["2099"] != "-449.50" || open["1930"] != "25599.50" {
		t.Fatalf("opening %v", open)
	}
	ap := signed(ledger.AppropriationLines(after, "2099", "2091"))
	if len(ap) != 2 || ap["2099"] != "449.50" || ap["2091"] != "-449.50" {
		t.Fatalf("appropriation %v", ap)
	}
	// b lacks 2099: the two opening balances differ.
	if ledger.SameNet(ledger.OpeningLines(ledger.Untagged(after)), ledger.OpeningLines(ledger.Untagged(b))) {
		t.Fatal("SameNet missed a difference")
	}
	// A project's balance opens on the project; the account's total is
	// the same either way, but the lines are not.
	p1, p2 := ledger.Dimensions{"6": "P1"}, ledger.Dimensions{"6": "P2"}
	tagged := ledger.OpeningLines([]ledger.Tagged{{Account: "1510", Tags: p1, Amount: money.MustParse("300")},
		{Account: "1510", Tags: p2, Amount: money.MustParse("-100")}, {Account: "2081", Amount: money.MustParse("-200")}})
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
		if _, err := ledger.ManualOpeningLines(c.in); !apierr.Is(err, c.code) {
			t.Fatalf("case %d: %v, want %s", i, err, c.code)
		}
	}
	lines, err := ledger.ManualOpeningLines([]ledger.OpeningInput{{Account: "1930", Amount: amt("10")}, {Account: "2081", Amount: amt("-10")}})
	if err != nil || lines[0].Debit.String() != "10.00" || lines[1].Credit.String() != "10.00" {
		t.Fatalf("%v %+v", err, lines)
	}
}
