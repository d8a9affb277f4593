package ledger

import (
	"fmt"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/bas"
	"github.com/kontera/kontera/internal/money"
)

// Balance is an account's balance in a period: opening balance plus
// debits minus credits (negative is a credit balance).
type Balance struct {
	Account string       `db:"account_number"`
	Amount  money.Amount `db:"balance"`
}

// ResultAccount is the equity account that takes the year's result of a
// company of entityType: 2099 Årets resultat for an aktiebolag, 2019
// Årets resultat for an enskild firma, 2069 Årets resultat for an ideell
// förening (BAS).
func ResultAccount(entityType string) string {
	switch entityType {
	case "enskild_firma":
		return "2019"
	case "ideell_forening":
		return "2069"
	}
	return "2099"
}

// resultAccount reports whether account belongs to the income statement
// (classes 3-8); balanceAccount whether to the balance sheet (1-2).
func resultAccount(account string) bool  { return account[0] >= '3' && account[0] <= '8' }
func balanceAccount(account string) bool { return account[0] == '1' || account[0] == '2' }

// side is the line that books amount on account: a debit when positive,
// a credit when negative; ok is false for zero.
func side(account string, amount money.Amount) (Line, bool) {
	switch amount.Sign() {
	case 1:
		return Line{Account: account, Debit: amount}, true
	case -1:
		return Line{Account: account, Credit: amount.Neg()}, true
	}
	return Line{}, false
}

// ClosingLines is the year-end closing entry: every income-statement
// account (classes 3-8) with a balance is zeroed, and the net, the year's
// result, goes to equity (a profit as a credit, a loss as a debit). Nil
// when no income-statement account has a balance.
func ClosingLines(balances []Balance, equity string) []Line {
	var lines []Line
	var net money.Amount
	for _, b := range balances {
		if !resultAccount(b.Account) {
			continue
		}
		if l, ok := side(b.Account, b.Amount.Neg()); ok {
			lines = append(lines, l)
			net = net.Add(b.Amount)
		}
	}
	if len(lines) == 0 {
		return nil
	}
	if l, ok := side(equity, net); ok {
		lines = append(lines, l)
	}
	return lines
}

// Result is the year's result of balances, positive for a profit: the
// credit balance of the income-statement accounts.
func Result(balances []Balance) money.Amount {
	var net money.Amount
	for _, b := range balances {
		if resultAccount(b.Account) {
			net = net.Sub(b.Amount)
		}
	}
	return net
}

// resultClosed reports whether no income-statement account has a balance
// left: the year's result sits in equity.
func resultClosed(balances []Balance) bool {
	for _, b := range balances {
		if resultAccount(b.Account) && !b.Amount.IsZero() {
			return false
		}
	}
	return true
}

// OpeningLines carries every balance-sheet account (classes 1-2) with a
// balance into the next year's opening balance (ingående balans).
func OpeningLines(balances []Balance) []Line {
	var lines []Line
	for _, b := range balances {
		if !balanceAccount(b.Account) {
			continue
		}
		if l, ok := side(b.Account, b.Amount); ok {
			lines = append(lines, l)
		}
	}
	return lines
}

// OpeningInput is one line of an opening balance set by hand: debit_amount
// or credit_amount, or a signed amount (positive debit, negative credit).
type OpeningInput struct {
	Account string
	Debit   *money.Amount
	Credit  *money.Amount
	Amount  *money.Amount
}

// ManualOpeningLines checks an opening balance set by hand and returns its
// lines: balance-sheet accounts only (OB_PNL_ACCOUNT for classes 3-8,
// OB_NON_BALANCE_SHEET_ACCOUNT for 0 and 9), one amount per line, and
// debits equal to credits (OB_UNBALANCED, with the difference).
func ManualOpeningLines(in []OpeningInput) ([]Line, error) {
	if len(in) == 0 {
		return nil, apierr.Field("lines", "min_items", "an opening balance needs lines")
	}
	if len(in) > MaxEngineLines {
		return nil, apierr.Field("lines", "max_items", fmt.Sprintf("at most %d lines", MaxEngineLines))
	}
	lines := make([]Line, len(in))
	var issues []apierr.Issue
	for i, o := range in {
		f := func(name string) string { return fmt.Sprintf("lines[%d].%s", i, name) }
		if !bas.ValidNumber(o.Account) {
			issues = append(issues, apierr.Issue{Field: f("account_number"), In: "body", Rule: "pattern", Issue: "must be four digits"})
			continue
		}
		given := 0
		for _, a := range []*money.Amount{o.Debit, o.Credit, o.Amount} {
			if a != nil {
				given++
			}
		}
		if given != 1 {
			issues = append(issues, apierr.Issue{Field: fmt.Sprintf("lines[%d]", i), In: "body", Rule: "one_amount",
				Issue: "give exactly one of debit_amount, credit_amount or amount"})
			continue
		}
		l := Line{Account: o.Account, SortOrder: i}
		switch {
		case o.Debit != nil:
			l.Debit = *o.Debit
		case o.Credit != nil:
			l.Credit = *o.Credit
		case o.Amount.Sign() > 0:
			l.Debit = *o.Amount
		default:
			l.Credit = o.Amount.Neg()
		}
		lines[i] = l
	}
	if len(issues) > 0 {
		return nil, apierr.Validation(issues...)
	}
	for i, l := range lines {
		at := fmt.Sprintf("lines[%d].account_number", i)
		switch {
		case resultAccount(l.Account):
			return nil, apierr.New(apierr.OBPnLAccount, map[string]any{"account_number": l.Account, "field": at})
		case !balanceAccount(l.Account):
			return nil, apierr.New(apierr.OBNonBalanceSheetAccount, map[string]any{"account_number": l.Account, "field": at})
		}
	}
	if err := CheckAmounts(lines, "lines"); err != nil {
		return nil, err
	}
	if d, c := Totals(lines); d.Cmp(c) != 0 || d.IsZero() {
		return nil, apierr.New(apierr.OBUnbalanced, map[string]any{"total_debit": d, "total_credit": c, "diff": d.Sub(c)})
	}
	return lines, nil
}
