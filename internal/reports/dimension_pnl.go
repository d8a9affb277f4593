package reports

import (
	"sort"

	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// Untagged names the column of the lines without a tag of the dimension.
const Untagged = "(Utan dimension)"

// pnlGroup is a section of the income statement (resultaträkning) by BAS
// account range.
type pnlGroup struct {
	Key, Name string
	From, To  string // inclusive, four digits
}

// pnlGroups are the sections in the order of a Swedish income statement
// (kostnadsslagsindelad).
var pnlGroups = []pnlGroup{
	{"revenue", "Rörelsens intäkter", "3000", "3999"},
	{"goods", "Råvaror, material och varor", "4000", "4999"},
	{"other_external", "Övriga externa kostnader", "5000", "6999"},
	{"personnel", "Personalkostnader", "7000", "7699"},
	{"depreciation", "Av- och nedskrivningar", "7700", "7899"},
	{"other_operating", "Övriga rörelsekostnader", "7900", "7999"},
	{"financial", "Finansiella poster", "8000", "8799"},
	{"appropriations", "Bokslutsdispositioner", "8800", "8899"},
	{"tax", "Skatt och årets resultat", "8900", "8999"},
}

// PnlColumn is a value of the dimension (Code nil: the untagged lines).
type PnlColumn struct {
	Code *string
	Name string
}

// PnlAccount is one account's result per column.
type PnlAccount struct {
	Account string
	Name    string
	Amounts []money.Amount
	Total   money.Amount
}

// PnlGroup is a section with its accounts and sums.
type PnlGroup struct {
	Key, Name string
	Accounts  []PnlAccount
	Totals    []money.Amount
	Total     money.Amount
}

// Pnl is the income statement per dimension value.
type Pnl struct {
	Columns      []PnlColumn
	Groups       []PnlGroup
	NetPerColumn []money.Amount
	NetTotal     money.Amount
}

// DimensionPnl lays totals out as an income statement per value: a column
// per code booked (by code, with its name from values, the code itself if
// the register has none), then the untagged column when anything is
// untagged. Amounts are credit minus debit, so income is positive, costs
// negative, and a column's net is the value's result.
func DimensionPnl(totals []ledger.DimensionTotal, values, accounts map[string]string) Pnl {
	var codes []string
	seen, untagged := map[string]bool{}, false
	for _, t := range totals {
		if t.Code == nil {
			untagged = true
		} else if !seen[*t.Code] {
			seen[*t.Code] = true
			codes = append(codes, *t.Code)
		}
	}
	sort.Strings(codes) // byte order: codes are case-sensitive
	out := Pnl{}
	col := map[string]int{}
	for i, c := range codes {
		name, ok := values[c]
		if !ok {
			name = c
		}
		out.Columns = append(out.Columns, PnlColumn{Code: &codes[i], Name: name})
		col[c] = i
	}
	if untagged {
		out.Columns = append(out.Columns, PnlColumn{Name: Untagged})
	}
	n := len(out.Columns)
	zeros := func() []money.Amount { return make([]money.Amount, n) }
	out.NetPerColumn = zeros()
	for _, g := range pnlGroups {
		group := PnlGroup{Key: g.Key, Name: g.Name, Totals: zeros()}
		byAccount := map[string]int{}
		for _, t := range totals {
			if t.Account < g.From || t.Account > g.To {
				continue
			}
			i, ok := byAccount[t.Account]
			if !ok {
				i = len(group.Accounts)
				byAccount[t.Account] = i
				group.Accounts = append(group.Accounts, PnlAccount{Account: t.Account, Name: accounts[t.Account], Amounts: zeros()})
			}
			c := n - 1 // untagged
			if t.Code != nil {
				c = col[*t.Code]
			}
			amount := t.Credit.Sub(t.Debit)
			a := &group.Accounts[i]
			a.Amounts[c] = a.Amounts[c].Add(amount)
			a.Total = a.Total.Add(amount)
			group.Totals[c] = group.Totals[c].Add(amount)
			group.Total = group.Total.Add(amount)
			out.NetPerColumn[c] = out.NetPerColumn[c].Add(amount)
			out.NetTotal = out.NetTotal.Add(amount)
		}
		if len(group.Accounts) > 0 {
			out.Groups = append(out.Groups, group)
		}
	}
	return out
}
