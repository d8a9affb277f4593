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

// The closing entry zeroes each income-statement account and puts the
// net on the result account; the opening balance carries classes 1-2.
// Figures by hand: revenue 1000 (credit), costs 400 + 150.50 (debit),
// so the profit is 449.50, credited to equity.
func TestClosingAndOpeningLines(t *testing.T) {
	b := []ledger.Balance{bal("1930", "25599.50"), bal("2081", "-25000"), bal("2611", "-250"), bal("2641", "100"),
		bal("3001", "-1000"), bal("5410", "400"), bal("6110", "150.50")}
	got := signed(ledger.ClosingLines(b, "2099"))
	want := map[string]string{"3001": "1000.00", "5410": "-400.00", "6110": "-150.50", "2099": "-449.50"}
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
	// A loss goes to the debit side.
	loss := signed(ledger.ClosingLines([]ledger.Balance{bal("3001", "-100"), bal("5010", "300")}, "2019"))
	if money.MustParse(loss["2019"]).Cmp(money.MustParse("200")) != 0 {
		t.Fatalf("loss %v", loss)
	}
	if ledger.ClosingLines([]ledger.Balance{bal("1930", "5"), bal("2081", "-5")}, "2099") != nil {
		t.Fatal("a closing entry without income-statement balances")
	}
	after := append(b[:4:4], bal("2099", "-449.50"))
	open := signed(ledger.OpeningLines(after))
	if len(open) != 5 || money.MustParse(open["2099"]).Cmp(money.MustParse("-449.50")) != 0 {
		t.Fatalf("opening %v", open)
	}
	for form, acct := range map[string]string{"aktiebolag": "2099", "enskild_firma": "2019", "ideell_forening": "2069"} {
		if got := ledger.ResultAccount(form); got != acct {
			t.Fatalf("%s: %s", form, got)
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
