// Package chart holds each company's chart of accounts (kontoplan): seeded
// from the BAS catalogue when the company is created, grown by the
// accounts the company adds or first uses, and never losing an account
// that was booked on.
package chart

import (
	"sort"
	"strings"
	"time"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/bas"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/money"
)

// Account is an account of a company's chart.
type Account struct {
	Number        string        `db:"account_number"`
	Name          string        `db:"account_name"`
	Type          bas.Type      `db:"account_type"`
	NormalBalance bas.Balance   `db:"normal_balance"`
	BAS           bool          `db:"is_bas"`
	System        bool          `db:"is_system_account"`
	Active        bool          `db:"is_active"`
	Description   *string       `db:"description"`
	VATRate       *money.Amount `db:"default_vat_rate"`
	VATTreatment  *string       `db:"default_vat_treatment"`
	VATBox        *string       `db:"vat_box"`
	SRU           *string       `db:"sru_code"`
	// TypeFromFile marks an account of classes 3-8 an SIE file declared
	// an asset or a liability: it stands on the balance sheet.
	TypeFromFile bool      `db:"type_from_file"`
	CreatedAt    time.Time `db:"created_at"`
	UpdatedAt    time.Time `db:"updated_at"`
}

// Class is the account's first digit.
func (a Account) Class() int { return int(a.Number[0] - '0') }

// Group is the account's first two digits.
func (a Account) Group() string { return a.Number[:2] }

// FromBAS is the catalogue account a as it enters a chart.
func FromBAS(a bas.Account) Account {
	_, inBAS := bas.Lookup(a.Number)
	out := Account{Number: a.Number, Name: a.Name, Type: a.Type, NormalBalance: a.NormalBalance, BAS: inBAS,
		System: IsSystem(a.Number), Active: true}
	if a.SRU != "" {
		sru := a.SRU
		out.SRU = &sru
	}
	if !a.VAT.None() {
		rate := money.MustParse(a.VAT.Rate)
		treatment := a.VAT.Treatment
		out.VATRate, out.VATTreatment = &rate, &treatment
	}
	return out
}

// system are the accounts the bookkeeping itself books on (receivables,
// payables, bank, the VAT and tax accounts, rounding, the year's result
// and the equity it is closed to): they cannot be deleted or deactivated.
var system = map[string]bool{
	"1510": true, "1630": true, "1650": true, "1930": true, "2440": true,
	"2610": true, "2611": true, "2614": true, "2620": true, "2621": true, "2624": true,
	"2630": true, "2631": true, "2634": true, "2640": true, "2641": true, "2645": true, "2650": true,
	"3740": true, "8999": true,
	"2091": true, "2098": true, "2099": true, // aktiebolag
	"2010": true, "2019": true, // enskild firma
	"2060": true, "2069": true, // ideell förening
}

// IsSystem reports whether the account numbered n is a system account.
func IsSystem(n string) bool { return system[n] }

// equity are the equity accounts of each company form, first and last
// number inclusive: an aktiebolag's bundet and fritt eget kapital (BAS
// 2080-2099, less the cooperative's medlemsinsatser), an enskild firma's
// owner accounts 2010-2019, an ideell förening's fund accounts 2060-2072.
var equity = map[string][2]string{
	"aktiebolag":      {"2080", "2099"},
	"enskild_firma":   {"2010", "2019"},
	"ideell_forening": {"2060", "2072"},
}

// Seed returns the catalogue accounts a new company of form starts with:
// the BAS grundkonton outside the equity group, and the equity accounts of
// its form (for an aktiebolag the grundkonton among them).
func Seed(form string) []bas.Account {
	r := equity[form]
	var out []bas.Account
	for _, a := range bas.All() {
		inEquity := a.Group() == "20"
		switch {
		case !inEquity && a.Basic:
			out = append(out, a)
		case inEquity && a.Number >= r[0] && a.Number <= r[1]:
			if form == "aktiebolag" && (!a.Basic || a.Number == "2083") {
				continue
			}
			out = append(out, a)
		}
	}
	return out
}

// Input is an account a client adds to a chart.
type Input struct {
	Number        string
	Name          *string
	Type          *bas.Type
	NormalBalance *bas.Balance
	Description   *string
	VATRate       *money.Amount
	VATTreatment  *string
	VATBox        *string
	SRU           *string
}

// New returns the account in describes. A BAS number is prefilled from the
// catalogue and the client's fields override it; any other number needs
// a name, a type and a normal balance. The type must fit the class.
func New(in Input) (Account, error) {
	var issues []apierr.Issue
	bad := func(field, rule, issue string) {
		issues = append(issues, apierr.Issue{Field: field, In: "body", Rule: rule, Issue: issue})
	}
	if !bas.ValidNumber(in.Number) {
		return Account{}, apierr.Validation(apierr.Issue{Field: "account_number", In: "body", Rule: "pattern",
			Issue: "must be four digits"})
	}
	var a Account
	if b, ok := bas.Lookup(in.Number); ok {
		a = FromBAS(b)
	} else {
		a = Account{Number: in.Number, System: false, Active: true}
		if in.Name == nil {
			bad("account_name", "required", "required for an account outside BAS")
		}
		if in.Type == nil {
			bad("account_type", "required", "required for an account outside BAS")
		}
		if in.NormalBalance == nil && in.Type != nil {
			// The type decides the usual side; a client may still say otherwise.
			bal := bas.Debit
			if *in.Type != bas.Asset && *in.Type != bas.Expense {
				bal = bas.Credit
			}
			in.NormalBalance = &bal
		}
	}
	if in.Name != nil {
		a.Name = strings.TrimSpace(*in.Name)
		if a.Name == "" {
			bad("account_name", "minLength", "must not be blank")
		}
	}
	if in.Type != nil {
		a.Type = *in.Type
	}
	if in.NormalBalance != nil {
		a.NormalBalance = *in.NormalBalance
	}
	a.Description = envelope.Text(in.Description)
	if in.VATRate != nil || in.VATTreatment != nil {
		a.VATRate, a.VATTreatment = in.VATRate, in.VATTreatment
	}
	if in.VATBox != nil {
		a.VATBox = in.VATBox
	}
	if in.SRU != nil {
		a.SRU = in.SRU
	}
	if len(issues) > 0 {
		return Account{}, apierr.Validation(issues...)
	}
	if err := a.check(); err != nil {
		return Account{}, err
	}
	return a, nil
}

// ValidSRU reports whether code is an SRU code the chart holds: the four
// digits of a tax form's field.
func ValidSRU(code string) bool {
	if len(code) != 4 {
		return false
	}
	for i := 0; i < 4; i++ {
		if code[i] < '0' || code[i] > '9' {
			return false
		}
	}
	return true
}

// check holds the rules every account keeps, however it was made.
func (a Account) check() error {
	if !bas.TypeFits(a.Class(), a.Type) {
		return apierr.New(apierr.AccountTypeClassConflict, map[string]any{
			"account_number": a.Number, "account_class": a.Class(), "account_type": a.Type,
			"allowed_types": allowedTypes(a.Class())})
	}
	if a.VATTreatment != nil && (a.Class() < 3 || a.Class() > 8) {
		return apierr.New(apierr.AccountVATTreatmentClass, map[string]any{
			"account_number": a.Number, "account_class": a.Class()})
	}
	if a.VATBox != nil && !(a.Group() == "26" && a.Number != "2650") {
		return apierr.Validation(apierr.Issue{Field: "vat_box", In: "body", Rule: "vat_account",
			Issue: "a VAT box belongs only on a 26xx VAT account other than 2650"})
	}
	return nil
}

func allowedTypes(class int) []bas.Type {
	var out []bas.Type
	for _, t := range []bas.Type{bas.Asset, bas.Equity, bas.UntaxedReserves, bas.Liability, bas.Revenue, bas.Expense} {
		if bas.TypeFits(class, t) {
			out = append(out, t)
		}
	}
	return out
}

// Patch is a change of an account: its name, description and active flag.
type Patch struct {
	Name        *string
	Description **string
	Active      *bool
}

// Apply returns a changed by p, or ACCOUNT_NOTHING_TO_UPDATE when p
// changes nothing a client can change. A system account stays active.
func (p Patch) Apply(a Account) (Account, error) {
	if p.Name == nil && p.Description == nil && p.Active == nil {
		return a, apierr.New(apierr.AccountNothingToUpdate, nil)
	}
	if p.Name != nil {
		a.Name = strings.TrimSpace(*p.Name)
		if a.Name == "" {
			return a, apierr.Field("account_name", "minLength", "must not be blank")
		}
	}
	if p.Description != nil {
		a.Description = envelope.Text(*p.Description)
	}
	if p.Active != nil {
		if !*p.Active && a.System {
			return a, apierr.New(apierr.AccountSystemDeactivate, map[string]any{"account_number": a.Number})
		}
		a.Active = *p.Active
	}
	return a, nil
}

// Missing splits numbers that are not usable in a chart into those BAS
// can supply (to be added) and those that cannot (unknown outside BAS),
// given the accounts the chart has. Deactivated accounts are returned in
// inactive. Each list is sorted and without repeats.
func Missing(numbers []string, have map[string]Account) (add []bas.Account, unknown, inactive []string) {
	seen := map[string]bool{}
	for _, n := range numbers {
		if seen[n] {
			continue
		}
		seen[n] = true
		if a, ok := have[n]; ok {
			if !a.Active {
				inactive = append(inactive, n)
			}
			continue
		}
		if b, ok := lookup(n); ok {
			add = append(add, b)
		} else {
			unknown = append(unknown, n)
		}
	}
	sort.Slice(add, func(i, j int) bool { return add[i].Number < add[j].Number })
	sort.Strings(unknown)
	sort.Strings(inactive)
	return add, unknown, inactive
}
