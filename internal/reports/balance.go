package reports

import (
	"sort"

	"github.com/kontera/kontera/internal/bas"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// Movement is a balance at the year's start, what moved it, and where it
// stands at the balance date.
type Movement struct {
	Opening, Change, Closing money.Amount
}

func (m Movement) plus(o Movement) Movement {
	return Movement{m.Opening.Add(o.Opening), m.Change.Add(o.Change), m.Closing.Add(o.Closing)}
}

// BalanceAccount is an account on a balance-sheet row.
type BalanceAccount struct {
	Account string
	Movement
}

// BalanceRow is a row of the balance sheet: a BAS account group, or a
// part of equity.
type BalanceRow struct {
	Key, Label string
	Accounts   []BalanceAccount
	Movement
}

// BalanceGroup is a heading of K2's balance sheet with its rows.
type BalanceGroup struct {
	Key, Title string
	Rows       []BalanceRow
	Total      Movement
}

// BalanceSide is the assets side or the equity and liabilities side.
type BalanceSide struct {
	Key, Title string
	Groups     []BalanceGroup
	Total      Movement
}

// BalanceSheet is the laid-out balance sheet: assets as debit balances,
// equity and liabilities as credit balances, both positive when normal.
type BalanceSheet struct {
	Sides                                    []BalanceSide
	Assets, EquityAndLiabilities, Difference money.Amount
}

type heading struct {
	key, title string
	rows       []rowRule
}

type rowRule struct {
	key, label string
	spans      []span
	// file picks, instead of spans, the accounts outside classes 1-2 an
	// SIE file declared assets (or liabilities and equity, when false).
	file, asset bool
}

// holds reports whether account n belongs on the row.
func (r rowRule) holds(n string, sheet ledger.Sheet) bool {
	if r.file {
		t := sheet[n]
		return n[0] != '1' && n[0] != '2' && t != "" && (t == bas.Asset) == r.asset
	}
	return in(n, r.spans)
}

func groupRows(from, to int) []rowRule {
	var out []rowRule
	for g := from; g <= to; g++ {
		n := string(rune('0'+g/10)) + string(rune('0'+g%10))
		out = append(out, rowRule{key: n, label: bas.GroupName(n), spans: []span{{n + "00", n + "99"}}})
	}
	return out
}

// equityRows are the parts of equity a company of form shows: an
// aktiebolag's bound (2080-2089) and free equity (the rest of 20), the
// others' one line of equity; the year's result not yet closed follows.
func equityRows(form string) []rowRule {
	if form == "aktiebolag" {
		return []rowRule{
			{key: "bundet_eget_kapital", label: "Bundet eget kapital", spans: []span{{"2080", "2089"}}},
			{key: "fritt_eget_kapital", label: "Fritt eget kapital", spans: []span{{"2000", "2079"}, {"2090", "2099"}}},
		}
	}
	return []rowRule{{key: "eget_kapital", label: "Eget kapital", spans: []span{{"2000", "2099"}}}}
}

// LayBalance lays out K2's balance sheet for a company of form from each
// balance account's opening balance and change to the balance date (debit
// minus credit), and the year's result not yet closed to equity (credit
// minus debit over classes 3-8; zero once the year-end has run).
//
// An account of classes 3-8 sheet holds on the balance sheet (an SIE
// file declared it an asset or a liability) has no BAS group: it shows on
// a row of its own, "ovriga_tillgangar" after the current assets or
// "ovriga_skulder" after the current liabilities, present only when such
// an account has a balance.
func LayBalance(form string, sheet ledger.Sheet, opening, change map[string]money.Amount, result money.Amount) BalanceSheet {
	sides := []struct {
		key, title string
		credit     bool
		headings   []heading
	}{
		{"tillgangar", "Tillgångar", false, []heading{
			{"anlaggningstillgangar", "Anläggningstillgångar", groupRows(10, 13)},
			{"omsattningstillgangar", "Omsättningstillgångar", append(groupRows(14, 19),
				rowRule{key: "ovriga_tillgangar", label: "Övriga tillgångar (kontotyp enligt SIE-fil)", file: true, asset: true})},
		}},
		{"eget_kapital_och_skulder", "Eget kapital och skulder", true, []heading{
			{"eget_kapital", "Eget kapital", equityRows(form)},
			{"obeskattade_reserver", "Obeskattade reserver", groupRows(21, 21)},
			{"avsattningar", "Avsättningar", groupRows(22, 22)},
			{"langfristiga_skulder", "Långfristiga skulder", groupRows(23, 23)},
			{"kortfristiga_skulder", "Kortfristiga skulder", append(groupRows(24, 29),
				rowRule{key: "ovriga_skulder", label: "Övriga skulder (kontotyp enligt SIE-fil)", file: true})},
		}},
	}
	numbers := map[string]bool{}
	for n := range opening {
		numbers[n] = true
	}
	for n := range change {
		numbers[n] = true
	}
	sorted := make([]string, 0, len(numbers))
	for n := range numbers {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var out BalanceSheet
	for _, s := range sides {
		side := BalanceSide{Key: s.key, Title: s.title}
		for _, h := range s.headings {
			g := BalanceGroup{Key: h.key, Title: h.title}
			for _, rule := range h.rows {
				row := BalanceRow{Key: rule.key, Label: rule.label, Accounts: []BalanceAccount{}}
				for _, n := range sorted {
					if !rule.holds(n, sheet) {
						continue
					}
					m := Movement{Opening: opening[n], Change: change[n]}
					if s.credit {
						m.Opening, m.Change = m.Opening.Neg(), m.Change.Neg()
					}
					m.Closing = m.Opening.Add(m.Change)
					if m.Opening.IsZero() && m.Change.IsZero() {
						continue
					}
					row.Accounts = append(row.Accounts, BalanceAccount{Account: n, Movement: m})
					row.Movement = row.Movement.plus(m)
				}
				if rule.file && len(row.Accounts) == 0 {
					continue
				}
				g.Rows = append(g.Rows, row)
				g.Total = g.Total.plus(row.Movement)
			}
			if h.key == "eget_kapital" {
				r := BalanceRow{Key: "arets_resultat", Label: "Årets resultat", Accounts: []BalanceAccount{},
					Movement: Movement{Change: result, Closing: result}}
				g.Rows = append(g.Rows, r)
				g.Total = g.Total.plus(r.Movement)
			}
			side.Groups = append(side.Groups, g)
			side.Total = side.Total.plus(g.Total)
		}
		out.Sides = append(out.Sides, side)
	}
	out.Assets, out.EquityAndLiabilities = out.Sides[0].Total.Closing, out.Sides[1].Total.Closing
	out.Difference = out.Assets.Sub(out.EquityAndLiabilities)
	return out
}

// Balanced reports whether the sides agree to within an öre's rounding:
// a difference of a krona or more refuses the PDF.
func (b BalanceSheet) Balanced() bool {
	return b.Difference.Abs().Cmp(money.MustParse("1")) < 0
}
