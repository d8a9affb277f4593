// Package incometax holds the income tax returns drawn from the books: an
// aktiebolag's INK2 with its appendices INK2R (the accounts in the
// statutory schema) and INK2S (the tax adjustments), a sole trader's NE
// appendix, and the SRU files Skatteverket's e-service takes.
package incometax

import (
	"sort"
	"strings"

	"github.com/kontera/kontera/internal/bas"
	"github.com/kontera/kontera/internal/money"
)

// Account is an account's figures for the year: its closing balance
// (debit minus credit, balance accounts) or the year's turnover (credit
// minus debit, result accounts), and the SRU code it reports under.
type Account struct {
	Number string
	// SRU is the account's code in the chart, "" when it has none.
	SRU string
	// Amount is the closing balance as debit minus credit for classes
	// 1-2, the year's result as credit minus debit for classes 3-8.
	Amount money.Amount
	// Sheet is the type of an account of classes 3-8 an SIE file declared
	// an asset or a liability: a balance account, at its closing balance.
	Sheet bas.Type
}

// balance reports whether a is a balance account, and asset whether it
// sits on the assets side.
func (a Account) balance() bool { return a.Sheet != "" || a.Number < "3000" }
func (a Account) asset() bool   { return a.Sheet == bas.Asset || (a.Sheet == "" && a.Number < "2000") }

// sruOf is the account's code: the chart's, else BAS's for the number.
func sruOf(a Account) string {
	if a.SRU != "" {
		return a.SRU
	}
	if b, ok := bas.Lookup(a.Number); ok {
		return b.SRU
	}
	return ""
}

// kind is how an INK2R income-statement field counts its accounts: as
// income (credit positive), as cost (debit positive), or split by sign
// between two codes.
type kind int

const (
	income kind = iota
	cost
	split
)

// incomeField is an INK2R income-statement field: its code, or its two
// codes (plus for a net income, minus for a net cost) when split.
type incomeField struct {
	field       string
	plus, minus string
	kind        kind
}

var incomeFields = []incomeField{
	{"3.1", "7410", "", income}, {"3.2", "7411", "7510", split}, {"3.3", "7412", "", income}, {"3.4", "7413", "", income},
	{"3.5", "7511", "", cost}, {"3.6", "7512", "", cost}, {"3.7", "7513", "", cost}, {"3.8", "7514", "", cost},
	{"3.9", "7515", "", cost}, {"3.10", "7516", "", cost}, {"3.11", "7517", "", cost},
	{"3.12", "7414", "7518", split}, {"3.13", "7415", "7519", split}, {"3.14", "7423", "7530", split},
	{"3.15", "7416", "7520", split}, {"3.16", "7417", "", income}, {"3.17", "7521", "", cost}, {"3.18", "7522", "", cost},
	{"3.19", "7524", "", cost}, {"3.20", "7419", "", income}, {"3.21", "7420", "7525", split},
	{"3.23", "7421", "7526", split}, {"3.24", "7422", "7527", split}, {"3.25", "7528", "", cost},
}

// fieldByCode finds the income field a code belongs to.
func fieldByCode(code string) (incomeField, bool) {
	for _, f := range incomeFields {
		if f.plus == code || f.minus == code {
			return f, true
		}
	}
	return incomeField{}, false
}

// Non-deductible costs INK2S 4.3c adds back, and the tax on the year's
// result 4.3a adds back.
var (
	nonDeductible = map[string]bool{"6072": true, "6982": true, "6992": true, "7632": true, "8423": true}
	taxOnResult   = [2]string{"8910", "8930"}
)

// Warning is something the return could not derive or found amiss.
type Warning struct {
	Code, Message string
	Accounts      []string
}

// INK2 is an aktiebolag's return: the main form's fields, INK2R and
// INK2S, each code's value in whole kronor (each field truncated toward
// zero), and which accounts made each code.
type INK2 struct {
	Main, R, S map[string]int64
	Breakdown  map[string][]string
	Warnings   []Warning
	// Totals in kronor: assets, equity and liabilities, the operating
	// result and the year's result.
	Assets, EquityLiabilities, OperatingResult, Result money.Amount
}

// BuildINK2 draws the return of a fiscal year start..end (YYYYMMDD) from
// its accounts: balance accounts at their closing balance, result accounts
// at the year's turnover (the closing entry left out); unclosed is the
// year's result not yet moved to equity (zero after the year-end), which
// INK2R reports under fritt eget kapital.
func BuildINK2(start, end string, accounts []Account, unclosed money.Amount) INK2 {
	out := INK2{Main: map[string]int64{"7011": atoi(start), "7012": atoi(end)}, R: map[string]int64{}, S: map[string]int64{},
		Breakdown: map[string][]string{}}
	sort.Slice(accounts, func(i, j int) bool { return accounts[i].Number < accounts[j].Number })
	balance := map[string]money.Amount{}
	incomeSums := map[string]money.Amount{}
	fieldAccounts := map[string][]string{}
	var missing []string
	var taxCost, nonDed money.Amount
	for _, a := range accounts {
		if a.Amount.IsZero() {
			continue
		}
		n := a.Number
		if !a.balance() && n >= "3000" && n <= "8989" {
			out.Result = out.Result.Add(a.Amount)
			if n < "8000" {
				out.OperatingResult = out.OperatingResult.Add(a.Amount)
			}
			if n >= taxOnResult[0] && n <= taxOnResult[1] {
				taxCost = taxCost.Sub(a.Amount)
			}
			if nonDeductible[n] {
				nonDed = nonDed.Sub(a.Amount)
			}
		}
		if a.balance() {
			if a.asset() {
				out.Assets = out.Assets.Add(a.Amount)
			} else {
				out.EquityLiabilities = out.EquityLiabilities.Sub(a.Amount)
			}
		}
		if !a.balance() && n >= "8990" {
			continue // the result carried to equity: no field
		}
		code := sruOf(a)
		if code == "" {
			missing = append(missing, n)
			continue
		}
		if a.balance() {
			v := a.Amount
			if strings.HasPrefix(code, "73") {
				v = v.Neg()
			}
			balance[code] = balance[code].Add(v)
			out.Breakdown[code] = append(out.Breakdown[code], n)
			continue
		}
		f, ok := fieldByCode(code)
		if !ok {
			missing = append(missing, n)
			continue
		}
		incomeSums[f.field] = incomeSums[f.field].Add(a.Amount)
		fieldAccounts[f.field] = append(fieldAccounts[f.field], n)
	}
	out.EquityLiabilities = out.EquityLiabilities.Add(unclosed)
	balance["7302"] = balance["7302"].Add(unclosed)
	for code, v := range balance {
		if k := v.Kronor(); k != 0 {
			out.R[code] = k
		}
	}
	for _, f := range incomeFields {
		amt, ok := incomeSums[f.field]
		if !ok || amt.IsZero() {
			continue
		}
		code, v := f.plus, amt
		switch {
		case f.kind == cost:
			v = amt.Neg()
		case f.kind == split && amt.Sign() < 0:
			code, v = f.minus, amt.Neg()
		}
		out.R[code] = v.Kronor()
		out.Breakdown[code] = fieldAccounts[f.field]
	}
	// The year's result, and INK2S from it.
	res := out.Result.Kronor()
	if res >= 0 {
		out.R["7450"], out.S["7650"] = res, res
	} else {
		out.R["7550"], out.S["7750"] = -res, -res
	}
	if k := taxCost.Kronor(); k != 0 {
		out.S["7651"] = k
	}
	if k := nonDed.Kronor(); k != 0 {
		out.S["7653"] = k
	}
	surplus := out.S["7650"] - out.S["7750"] + out.S["7651"] + out.S["7653"]
	if surplus >= 0 {
		out.S["7670"], out.Main["7104"] = surplus, surplus
	} else {
		out.S["7770"], out.Main["7114"] = -surplus, -surplus
	}
	out.Warnings = append(out.Warnings, Warning{Code: "INK2S_ADJUSTMENTS_PARTIAL",
		Message: "INK2S härleds bara i 4.1-4.3a, 4.3c och 4.15-4.16; övriga skattemässiga justeringar (schablonintäkt på periodiseringsfonder, ej skattepliktiga intäkter m.m.) är 0 och behöver ses över."})
	if len(missing) > 0 {
		out.Warnings = append(out.Warnings, Warning{Code: "SRU_CODE_MISSING",
			Message: "Konton utan SRU-kod ingår inte i INK2R; ange sru_code på kontona.", Accounts: missing})
	}
	if out.Assets.Kronor() != out.EquityLiabilities.Kronor() {
		out.Warnings = append(out.Warnings, Warning{Code: "BALANCE_SHEET_UNBALANCED",
			Message: "Tillgångarna och eget kapital och skulder skiljer sig åt."})
	}
	return out
}

func atoi(s string) int64 {
	var n int64
	for _, r := range s {
		n = n*10 + int64(r-'0')
	}
	return n
}
