package expenses

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

func amount(s string) money.Amount {
	a, err := money.Parse(s)
	if err != nil {
		panic(err)
	}
	return a
}

func show(lines []ledger.Line) string {
	var out []string
	for _, l := range lines {
		if l.Credit.IsZero() {
			out = append(out, fmt.Sprintf("D %s %s", l.Account, l.Debit))
		} else {
			out = append(out, fmt.Sprintf("C %s %s", l.Account, l.Credit))
		}
	}
	return strings.Join(out, ", ")
}

// Who is owed: an employee on 2820, else the owner by the company's
// form; a claim in euro at 11.4523 is 100 EUR = 1 145.23 kr, all cost.
func TestPlan(t *testing.T) {
	company, anna := uuid.New(), uuid.New()
	ab := Facts{Form: "aktiebolag", VATRegistered: true}
	vat := amount("120")
	c, err := Plan(company, Input{EmployeeID: &anna, Description: "Tåg", Amount: amount("1120"), VAT: &vat,
		ExpenseAccount: "5810"}, ab, "Anna Lindqvist", nil)
	if err != nil || c.LiabilityAccount != "2820" || c.ClaimantName != "Anna Lindqvist" || c.Currency != "SEK" ||
		show(c.Lines()) != "D 5810 1000.00, D 2641 120.00, C 2820 1120.00" {
		t.Fatalf("%+v %v: %s", c, err, show(c.Lines()))
	}
	lisa := "Lisa Berg"
	for form, owed := range map[string]string{"aktiebolag": "2893", "enskild_firma": "2018", "ideell_forening": "2890"} {
		c, err := Plan(company, Input{ClaimantName: &lisa, Description: "Papper", Amount: amount("250"), ExpenseAccount: "6110"},
			Facts{Form: form, VATRegistered: true}, "", nil)
		if err != nil || c.LiabilityAccount != owed {
			t.Errorf("%s: %s (%v)", form, c.LiabilityAccount, err)
		}
	}
	rate, _ := money.ParseRate("11.4523")
	c, err = Plan(company, Input{EmployeeID: &anna, Description: "Hotell", Amount: amount("100"), Currency: "EUR",
		ExpenseAccount: "5800"}, ab, "Anna Lindqvist", &rate)
	if err != nil || c.AmountSEK.String() != "1145.23" || show(c.Lines()) != "D 5800 1145.23, C 2820 1145.23" {
		t.Fatalf("%+v %v", c, err)
	}
	for name, in := range map[string]Input{
		"no claimant":    {Description: "X", Amount: amount("1"), ExpenseAccount: "5800"},
		"VAT abroad":     {ClaimantName: &lisa, Description: "X", Amount: amount("10"), VAT: &vat, Currency: "EUR", ExpenseAccount: "5800"},
		"VAT the whole":  {ClaimantName: &lisa, Description: "X", Amount: amount("120"), VAT: &vat, ExpenseAccount: "5800"},
		"a rate in SEK":  {ClaimantName: &lisa, Description: "X", Amount: amount("10"), ExchangeRate: &rate, ExpenseAccount: "5800"},
		"no rate known":  {ClaimantName: &lisa, Description: "X", Amount: amount("10"), Currency: "EUR", ExpenseAccount: "5800"},
		"nothing at all": {ClaimantName: &lisa, Description: "X", Amount: amount("0"), ExpenseAccount: "5800"},
	} {
		if _, err := Plan(company, in, ab, "", nil); err == nil {
			t.Errorf("%s: planned", name)
		} else if _, ok := apierr.As(err); !ok {
			t.Errorf("%s: %v is no catalogue error", name, err)
		}
	}
	// Outside the VAT register there is no input VAT: the whole amount is
	// cost, and VAT named is refused.
	outside := Facts{Form: "aktiebolag"}
	if _, err := Plan(company, Input{ClaimantName: &lisa, Description: "X", Amount: amount("1120"), VAT: &vat,
		ExpenseAccount: "5810"}, outside, "", nil); !apierr.Is(err, apierr.ValidationError) {
		t.Errorf("VAT outside the register: %v", err)
	}
	c, err = Plan(company, Input{ClaimantName: &lisa, Description: "X", Amount: amount("1120"), ExpenseAccount: "5810"},
		outside, "", nil)
	if err != nil || show(c.Lines()) != "D 5810 1120.00, C 2893 1120.00" {
		t.Errorf("outside the register: %s %v", show(c.Lines()), err)
	}
}

// A payout pays each account owed in one line: two of Anna's (1 120 and
// 1 145.23) and the owner's 250 are D 2820 2 265.23, D 2893 250 / C 1930
// 2 515.23; an enskild firma's owner is paid as a withdrawal (2013).
func TestPayoutLines(t *testing.T) {
	claims := []Claim{{LiabilityAccount: "2820", AmountSEK: amount("1120")}, {LiabilityAccount: "2820",
		AmountSEK: amount("1145.23")}, {LiabilityAccount: "2893", AmountSEK: amount("250")}}
	lines, total := PayoutLines(claims, "1930")
	if total.String() != "2515.23" || show(lines) != "D 2820 2265.23, D 2893 250.00, C 1930 2515.23" {
		t.Fatalf("%s: %s", total, show(lines))
	}
	lines, _ = PayoutLines([]Claim{{LiabilityAccount: "2018", AmountSEK: amount("99.50")}}, "1930")
	if show(lines) != "D 2013 99.50, C 1930 99.50" {
		t.Fatal(show(lines))
	}
}
