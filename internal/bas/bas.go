// Package bas is the BAS 2025 chart of accounts (kontoplan) as Kontera
// carries it: every account with its name and INK2 SRU code, the grundkonto
// and "ej K2" markers, and the rules that derive an account's type, normal
// balance and default VAT from its number and name.
package bas

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
)

// Type is what an account records.
type Type string

// The account types. Class 2 holds three of them: equity (20),
// untaxed reserves (21) and liabilities (22-29).
const (
	Asset           Type = "asset"
	Equity          Type = "equity"
	Liability       Type = "liability"
	UntaxedReserves Type = "untaxed_reserves"
	Revenue         Type = "revenue"
	Expense         Type = "expense"
)

// Balance is the side an account's balance normally sits on.
type Balance string

// The two sides.
const (
	Debit  Balance = "debit"
	Credit Balance = "credit"
)

// Account is one account of the catalogue.
type Account struct {
	Number string
	Name   string
	// SRU is the INK2 field code of the account, "" where INK2 has none.
	SRU string
	// Basic marks a BAS grundkonto: the accounts most small companies need.
	Basic bool
	// NotK2 marks an account BAS says not to use under K2.
	NotK2         bool
	Type          Type
	NormalBalance Balance
	VAT           VAT
}

// Class is the account's first digit.
func (a Account) Class() int { return int(a.Number[0] - '0') }

// Group is the account's first two digits.
func (a Account) Group() string { return a.Number[:2] }

//go:embed bas2025.tsv
var data string

var (
	catalogue []Account
	byNumber  map[string]Account
)

func init() {
	byNumber = map[string]Account{}
	for i, line := range strings.Split(data, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 || !ValidNumber(f[0]) {
			panic(fmt.Sprintf("bas2025.tsv line %d: malformed", i+1))
		}
		a := Account{Number: f[0], Name: f[1], SRU: f[2],
			Basic: strings.Contains(f[3], "g"), NotK2: strings.Contains(f[3], "k")}
		a.Type = TypeOf(a.Number, a.SRU)
		a.NormalBalance = NormalBalanceOf(a.Number, a.Name, a.Type)
		a.VAT = vatOf[a.Number]
		catalogue = append(catalogue, a)
		byNumber[a.Number] = a
	}
	sort.Slice(catalogue, func(i, j int) bool { return catalogue[i].Number < catalogue[j].Number })
}

// All returns every account of the catalogue in number order.
func All() []Account { return append([]Account(nil), catalogue...) }

// Lookup returns the catalogue's account with the number.
func Lookup(number string) (Account, bool) {
	a, ok := byNumber[number]
	return a, ok
}

// ValidNumber reports whether s is an account number: four digits.
func ValidNumber(s string) bool {
	if len(s) != 4 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// TypeOf is the type of the account numbered n. Class 8 holds both
// financial income and costs; the account's INK2 code, when known, says
// which (74xx are income rows, 75xx cost rows), and without one the
// group decides (80-83 income, 84-89 costs).
func TypeOf(n, sru string) Type {
	switch n[0] {
	case '1':
		return Asset
	case '2':
		switch n[1] {
		case '0':
			return Equity
		case '1':
			return UntaxedReserves
		}
		return Liability
	case '3':
		return Revenue
	case '8':
		switch {
		case strings.HasPrefix(sru, "74"):
			return Revenue
		case strings.HasPrefix(sru, "75"):
			return Expense
		case n[1] <= '3':
			return Revenue
		}
		return Expense
	}
	// 4-7 are costs; 0 and 9 (internal accounting) default to costs too.
	return Expense
}

// TypeFits reports whether t is a type an account of class class may
// have: 1 asset; 2 equity, untaxed reserves or liability; 3 revenue; 4-7
// expense; 8 revenue or expense. Classes 0 and 9 are outside the
// statements (internal accounting) and take revenue or expense.
func TypeFits(class int, t Type) bool {
	switch class {
	case 1:
		return t == Asset
	case 2:
		return t == Equity || t == UntaxedReserves || t == Liability
	case 3:
		return t == Revenue
	case 4, 5, 6, 7:
		return t == Expense
	}
	return t == Revenue || t == Expense
}

// NormalBalanceOf is the side an account's balance normally sits on:
// debit for assets and costs, credit for equity, liabilities and income,
// except for the contra accounts BAS keeps inside a class (accumulated
// depreciation, owner's withdrawals, input VAT, discounts given or
// received), which the name gives away.
func NormalBalanceOf(n, name string, t Type) Balance {
	lower := strings.ToLower(name)
	switch {
	case n[0] == '1' && (strings.HasPrefix(lower, "ackumulerade") || strings.HasPrefix(lower, "nedskrivning")):
		return Credit
	case n[0] == '2' && (strings.Contains(lower, "uttag") && n[:2] == "20" || lower == "egna aktier" ||
		strings.Contains(lower, "ingående moms")):
		return Debit
	case n[0] == '3' && strings.HasPrefix(lower, "lämnade"):
		return Debit
	case n[0] >= '4' && n[0] <= '7' && strings.HasPrefix(lower, "erhållna"):
		return Credit
	}
	switch t {
	case Asset, Expense:
		return Debit
	}
	return Credit
}
