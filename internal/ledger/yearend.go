package ledger

import (
	"fmt"
	"sort"

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

// RetainedAccount is where last year's result goes when the next year
// starts (the result appropriation): 2091 Balanserad vinst eller förlust
// for an aktiebolag (the stämma's dividend is booked from it later), 2010
// Eget kapital for an enskild firma, 2067 Balanserat överskott eller
// underskott for an ideell förening.
func RetainedAccount(entityType string) string {
	switch entityType {
	case "enskild_firma":
		return "2010"
	case "ideell_forening":
		return "2067"
	}
	return "2091"
}

// ClosingAccount is 8999 Årets resultat: the closing entry books the
// year's result on it, so the income statement shows the result before
// that entry and nets to zero after it.
const ClosingAccount = "8999"

// Side is the line that books amount on account: a debit when positive,
// a credit when negative; ok is false for zero.
func Side(account string, amount money.Amount) (Line, bool) {
	switch amount.Sign() {
	case 1:
		return Line{Account: account, Debit: amount}, true
	case -1:
		return Line{Account: account, Credit: amount.Neg()}, true
	}
	return Line{}, false
}

// ClosingLines is the year-end closing entry (bokslutsverifikation): the
// year's result still open on the accounts sheet holds in the result, booked on 8999 Årets
// resultat against equity (a profit credits equity, a loss debits it).
// The income-statement accounts keep their balances, so the statement can
// be read with or without the entry. Nil when the result is already in
// equity.
func ClosingLines(balances []Balance, sheet Sheet, equity string) []Line {
	r := Result(balances, sheet)
	if r.IsZero() {
		return nil
	}
	d, _ := Side(ClosingAccount, r)
	c, _ := Side(equity, r.Neg())
	return []Line{d, c}
}

// Result is the year's result still open on balances, positive for a
// profit: the credit balance of the income-statement accounts, the
// closing account 8999 included.
func Result(balances []Balance, sheet Sheet) money.Amount {
	var net money.Amount
	for _, b := range balances {
		if sheet.InResult(b.Account) {
			net = net.Sub(b.Amount)
		}
	}
	return net
}

// After returns balances with lines booked on top, in account order,
// accounts at zero left out.
func After(balances []Balance, lines []Line) []Balance {
	by := map[string]money.Amount{}
	for _, b := range balances {
		by[b.Account] = by[b.Account].Add(b.Amount)
	}
	for _, l := range lines {
		by[l.Account] = by[l.Account].Add(l.Debit).Sub(l.Credit)
	}
	out := make([]Balance, 0, len(by))
	for a, v := range by {
		if !v.IsZero() {
			out = append(out, Balance{Account: a, Amount: v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Account < out[j].Account })
	return out
}

// Tagged is a balance of an account and the dimension tags that carry
// over years (a project; not a cost centre, which resets annually).
type Tagged struct {
	Account string       `db:"account_number"`
	Tags    Dimensions   `db:"dimensions"`
	Amount  money.Amount `db:"balance"`
}

// Untagged is balances without tags.
func Untagged(balances []Balance) []Tagged {
	out := make([]Tagged, len(balances))
	for i, b := range balances {
		out[i] = Tagged{Account: b.Account, Amount: b.Amount}
	}
	return out
}

// OpeningLines carries every account sheet holds on the balance sheet with a
// balance into the next year's opening balance (ingående balans): a line
// per account and carried tags, so a project's balance opens on the
// project. In account order, untagged first.
func OpeningLines(balances []Tagged, sheet Sheet) []Line {
	net := map[string]*Tagged{}
	var keys []string
	for _, b := range balances {
		if !sheet.Holds(b.Account) {
			continue
		}
		k := lineKey(b.Account, b.Tags)
		if net[k] == nil {
			net[k] = &Tagged{Account: b.Account, Tags: b.Tags}
			keys = append(keys, k)
		}
		net[k].Amount = net[k].Amount.Add(b.Amount)
	}
	sort.Strings(keys)
	var lines []Line
	for _, k := range keys {
		if l, ok := Side(net[k].Account, net[k].Amount); ok {
			l.Dimensions = net[k].Tags
			lines = append(lines, l)
		}
	}
	return lines
}

// lineKey names an account with its tags, in a fixed order.
func lineKey(account string, tags Dimensions) string {
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := account
	for _, k := range keys {
		out += "|" + k + "=" + tags[k]
	}
	return out
}

// AppropriationLines moves the closing balance of the result account to
// retained earnings at the start of the next year; nil when it is zero.
func AppropriationLines(closing []Balance, equity, retained string) []Line {
	for _, b := range closing {
		if b.Account == equity {
			from, _ := Side(equity, b.Amount.Neg())
			to, _ := Side(retained, b.Amount)
			return []Line{from, to}
		}
	}
	return nil
}

// SameNet reports whether a and b book the same net amount on every
// account and set of dimension tags.
func SameNet(a, b []Line) bool {
	net := map[string]money.Amount{}
	for _, l := range a {
		k := lineKey(l.Account, l.Dimensions)
		net[k] = net[k].Add(l.Debit).Sub(l.Credit)
	}
	for _, l := range b {
		k := lineKey(l.Account, l.Dimensions)
		net[k] = net[k].Sub(l.Debit).Add(l.Credit)
	}
	for _, v := range net {
		if !v.IsZero() {
			return false
		}
	}
	return true
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
// lines: accounts sheet holds on the balance sheet only (OB_PNL_ACCOUNT
// for the rest of classes 3-8, OB_NON_BALANCE_SHEET_ACCOUNT for 0 and 9),
// one amount per line, and
// debits equal to credits (OB_UNBALANCED, with the difference).
func ManualOpeningLines(in []OpeningInput, sheet Sheet) ([]Line, error) {
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
		switch c := l.Account[0]; {
		case sheet.Holds(l.Account):
		case c >= '3' && c <= '8':
			return nil, apierr.New(apierr.OBPnLAccount, map[string]any{"account_number": l.Account, "field": at})
		default:
			// Classes 0 and 9: internal accounts, outside the statements'
			// BAS layout (their own refusal, though an import's obs-konto
			// counts in the result).
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
