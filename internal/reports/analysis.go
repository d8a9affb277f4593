package reports

import (
	"math"
	"sort"
	"time"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/bas"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// Month is one calendar month of the income statement: revenue (class
// 3), expenses (everything else of 4000-8989 that costs) and the net, the
// result as the income statement counts it.
type Month struct {
	Month                    time.Time
	Revenue, Expenses, Net   money.Amount
	OperatingResult          money.Amount
	OperatingExpensesByClass map[int]money.Amount
}

// Months lays out from..to month by month from the window's turnover:
// every calendar month the window touches, empty ones too. The months
// sum to the income statement of the window.
func Months(rows []ledger.MonthTotal, from, to time.Time) []Month {
	var out []Month
	index := map[string]int{}
	for m := time.Date(from.Year(), from.Month(), 1, 0, 0, 0, 0, time.UTC); !m.After(to); m = m.AddDate(0, 1, 0) {
		index[m.Format("2006-01")] = len(out)
		out = append(out, Month{Month: m, OperatingExpensesByClass: map[int]money.Amount{}})
	}
	for _, r := range rows {
		i, ok := index[r.Month.Format("2006-01")]
		if !ok || r.Account < "3000" || r.Account > "8989" {
			continue
		}
		m := &out[i]
		amt := r.Credit.Sub(r.Debit)
		m.Net = m.Net.Add(amt)
		if r.Account < "4000" {
			m.Revenue = m.Revenue.Add(amt)
		}
		if r.Account < "8000" {
			m.OperatingResult = m.OperatingResult.Add(amt)
		}
		if r.Account >= "4000" && r.Account < "8000" {
			c := int(r.Account[0] - '0')
			m.OperatingExpensesByClass[c] = m.OperatingExpensesByClass[c].Sub(amt)
		}
	}
	for i := range out {
		out[i].Expenses = out[i].Revenue.Sub(out[i].Net)
	}
	return out
}

// Ratio is a/b to four decimals, nil when b is zero.
func Ratio(a, b money.Amount) *float64 {
	if b.IsZero() {
		return nil
	}
	x := math.Round(float64(a.InÖre())/float64(b.InÖre())*10000) / 10000
	return &x
}

// CashFlow is the cash flow statement by the indirect method.
type CashFlow struct {
	// Operating: the result after financial items, depreciation and
	// write-downs added back, the change of provisions, income tax paid
	// and the change of working capital.
	ResultAfterFinancial, Depreciation, Provisions, TaxPaid    money.Amount
	Inventories, Receivables, CurrentLiabilities, Unclassified money.Amount
	Operating                                                  money.Amount
	// Investing: fixed assets bought or sold (gross of depreciation),
	// financial fixed assets and short-term investments.
	FixedAssets, FinancialAssets, ShortTermInvestments, Investing money.Amount
	// Financing: equity, untaxed reserves with the appropriations booked
	// against them (a group contribution paid or received remains), and
	// long-term debt.
	Equity, UntaxedReserves, LongTermDebt, Financing money.Amount
	Total                                            money.Amount
	// OpeningCash and ClosingCash are 19xx at the period's ends.
	OpeningCash, ClosingCash, Mismatch money.Amount
	UnclassifiedAccounts               []string
}

// incomeTaxAccounts hold income tax: beräknad inkomstskatt and betald
// F-skatt. 2510 Skatteskulder may hold any tax.
var incomeTaxAccounts = map[string]bool{"2512": true, "2518": true}

// Cash lays out the cash flow from each account's opening balance and
// change over the period (debit minus credit; the closing entry left
// out). Income tax on 8910-8989 must be told from other taxes: with tax
// cost and 2510 moving, it cannot, and the answer is
// CASH_FLOW_TAX_ALLOCATION_REQUIRED. An account of classes 3-8 sheet holds
// on the balance sheet (an SIE file declared it so) moves the short-term
// receivables when an asset, the current liabilities otherwise.
func Cash(sheet ledger.Sheet, opening, change map[string]money.Amount) (CashFlow, error) {
	var c CashFlow
	accounts := make([]string, 0, len(change))
	for n := range change {
		accounts = append(accounts, n)
	}
	sort.Strings(accounts)
	var taxCost, taxLiability money.Amount
	for _, n := range accounts {
		d := change[n]
		switch t := sheet[n]; {
		case n >= "3000" && t == bas.Asset:
			c.Receivables = c.Receivables.Sub(d)
		case n >= "3000" && t != "":
			c.CurrentLiabilities = c.CurrentLiabilities.Sub(d)
		case n >= "1900" && n <= "1999":
		case n < "1300":
			c.FixedAssets = c.FixedAssets.Sub(d)
		case n < "1400":
			c.FinancialAssets = c.FinancialAssets.Sub(d)
		case n < "1500":
			c.Inventories = c.Inventories.Sub(d)
		case n < "1800":
			c.Receivables = c.Receivables.Sub(d)
		case n < "1900":
			c.ShortTermInvestments = c.ShortTermInvestments.Sub(d)
		case n < "2100":
			c.Equity = c.Equity.Sub(d)
		case n < "2200":
			c.UntaxedReserves = c.UntaxedReserves.Sub(d)
		case n < "2300":
			c.Provisions = c.Provisions.Sub(d)
		case n < "2400":
			c.LongTermDebt = c.LongTermDebt.Sub(d)
		case incomeTaxAccounts[n]:
			taxLiability = taxLiability.Add(d)
		case n < "3000":
			c.CurrentLiabilities = c.CurrentLiabilities.Sub(d)
		case n < "8500":
			c.ResultAfterFinancial = c.ResultAfterFinancial.Sub(d)
			if n >= "7700" && n <= "7899" {
				c.Depreciation = c.Depreciation.Add(d)
			}
		case n < "8800":
			c.Unclassified = c.Unclassified.Sub(d)
			c.UnclassifiedAccounts = append(c.UnclassifiedAccounts, n)
		case n < "8900":
			c.UntaxedReserves = c.UntaxedReserves.Sub(d)
		case n < "8990":
			taxCost = taxCost.Add(d)
		}
	}
	if !taxCost.IsZero() && !change["2510"].IsZero() {
		return c, apierr.New(apierr.CashFlowTaxAllocationRequired, map[string]any{"accounts": []string{"2510"},
			"income_tax_cost": taxCost, "income_tax_accounts": []string{"2512", "2518"}})
	}
	c.TaxPaid = taxCost.Add(taxLiability).Neg()
	c.Operating = c.ResultAfterFinancial.Add(c.Depreciation).Add(c.Provisions).Add(c.TaxPaid).Add(c.Inventories).
		Add(c.Receivables).Add(c.CurrentLiabilities).Add(c.Unclassified)
	// Fixed assets count gross: the depreciation added back above took
	// their value down without cash.
	c.FixedAssets = c.FixedAssets.Sub(c.Depreciation)
	c.Investing = c.FixedAssets.Add(c.FinancialAssets).Add(c.ShortTermInvestments)
	c.Financing = c.Equity.Add(c.UntaxedReserves).Add(c.LongTermDebt)
	c.Total = c.Operating.Add(c.Investing).Add(c.Financing)
	var moved money.Amount
	for n, o := range opening {
		if n >= "1900" && n <= "1999" {
			c.OpeningCash = c.OpeningCash.Add(o)
		}
	}
	for n, d := range change {
		if n >= "1900" && n <= "1999" {
			moved = moved.Add(d)
		}
	}
	c.ClosingCash = c.OpeningCash.Add(moved)
	c.Mismatch = c.Total.Sub(moved)
	if c.UnclassifiedAccounts == nil {
		c.UnclassifiedAccounts = []string{}
	}
	return c, nil
}
