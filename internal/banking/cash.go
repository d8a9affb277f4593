// Package banking holds the company's money in the bank: its cash
// accounts, the transactions the bank reports on them, and how those are
// booked through the ledger.
package banking

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/identifier"
	"github.com/kontera/kontera/internal/money"
)

// Currencies are the currencies a cash account may hold.
var Currencies = []string{"SEK", "EUR", "USD", "GBP", "NOK", "DKK", "CHF"}

// defaults are the ledger accounts a currency's first cash account takes:
// BAS 1930 Företagskonto for kronor, and the slots beside it by custom
// for the common foreign currencies.
var defaults = map[string]string{"SEK": "1930", "EUR": "1932", "USD": "1933", "GBP": "1934"}

// The slots a cash account without a default of its own, or whose
// default is taken, gets the first free one of.
const (
	firstSlot = 1931
	lastSlot  = 1959
)

// CashAccount is a bank account of the company, booked on its own 19xx
// account.
type CashAccount struct {
	CompanyID        uuid.UUID      `db:"company_id" json:"company_id"`
	ID               uuid.UUID      `db:"id" json:"id"`
	LedgerAccount    string         `db:"ledger_account" json:"ledger_account"`
	Name             string         `db:"name" json:"name"`
	Currency         string         `db:"currency" json:"currency"`
	IBAN             *string        `db:"iban" json:"iban"`
	Primary          bool           `db:"is_primary" json:"is_primary"`
	Enabled          bool           `db:"enabled" json:"enabled"`
	Source           string         `db:"source" json:"source"`
	Balance          *money.Amount  `db:"balance" json:"balance"`
	Available        *money.Amount  `db:"available_balance" json:"available_balance"`
	BalanceUpdatedAt *time.Time     `db:"balance_updated_at" json:"balance_updated_at"`
	VoucherSeries    *string        `db:"voucher_series" json:"voucher_series"`
	InvoicePayee     bool           `db:"invoice_payee" json:"invoice_payee"`
	Payee            map[string]any `db:"-" json:"payee"`
	PayeeJSON        []byte         `db:"payee" json:"-"`
	// ConnectionID is the bank connection that feeds it, if any.
	ConnectionID *uuid.UUID `db:"bank_connection_id" json:"bank_connection_id"`
	CreatedAt    time.Time  `db:"created_at" json:"created_at"`
	UpdatedAt    time.Time  `db:"updated_at" json:"updated_at"`
}

// NewCash is what a new manual cash account is asked to be.
type NewCash struct {
	Name, Currency string
	LedgerAccount  *string
	IBAN           *string
	InvoicePayee   *bool
	Payee          map[string]any
}

// Ledgers is what the choice of a ledger account looks at: the accounts
// other cash accounts of the company are on, and those of the chart.
type Ledgers struct {
	Taken   map[string]bool
	InChart map[string]bool
}

// ChooseLedger is the ledger account a new cash account in currency is
// booked on: the one asked for, which must be 1920–1999 and no other
// cash account's; else the currency's default (SEK 1930, EUR 1932, USD
// 1933, GBP 1934) when no cash account has it; else the first slot of
// 1931–1959 that is no currency's default, in no cash account's use and
// not in the chart (an account already there books something else).
func ChooseLedger(currency string, asked *string, l Ledgers) (string, error) {
	if asked != nil {
		a := strings.TrimSpace(*asked)
		n := 0
		if _, err := fmt.Sscanf(a, "%d", &n); err != nil || len(a) != 4 || n < 1920 || n > 1999 {
			return "", apierr.Field("ledger_account", "range", "a BAS account from 1920 to 1999 (1910–1919 are cash, not bank)")
		}
		if l.Taken[a] {
			return "", apierr.New(apierr.CashAccountLedgerTaken, map[string]any{"field": "ledger_account", "ledger_account": a})
		}
		return a, nil
	}
	if d, ok := defaults[currency]; ok && !l.Taken[d] {
		return d, nil
	}
	reserved := map[string]bool{}
	for _, d := range defaults {
		reserved[d] = true
	}
	for n := firstSlot; n <= lastSlot; n++ {
		a := fmt.Sprint(n)
		if !reserved[a] && !l.Taken[a] && !l.InChart[a] {
			return a, nil
		}
	}
	return "", apierr.New(apierr.CashAccountLedgerTaken, map[string]any{"field": "ledger_account",
		"reason": "no free account from 1931 to 1959: name one with ledger_account"})
}

// Check holds a new cash account to the rules that need no database.
func (n NewCash) Check() error {
	if err := checkName(n.Name); err != nil {
		return err
	}
	if !slices.Contains(Currencies, n.Currency) {
		return apierr.Field("currency", "enum", strings.Join(Currencies, ", "))
	}
	if n.IBAN != nil {
		if err := checkIBAN(*n.IBAN); err != nil {
			return err
		}
	}
	return nil
}

func checkName(name string) error {
	if l := len([]rune(strings.TrimSpace(name))); l < 1 || l > 200 {
		return apierr.Field("name", "length", "1 to 200 characters, not only spaces")
	}
	return nil
}

// CashChange is a PATCH of a cash account: what is nil stays.
type CashChange struct {
	Name             *string
	Enabled          *bool
	VoucherSeriesSet bool
	VoucherSeries    *string
	InvoicePayee     *bool
	PayeeSet         bool
	Payee            map[string]any
}

// Apply is a changed by c. The primary account stays enabled: another is
// made primary first.
func (a CashAccount) Apply(c CashChange) (CashAccount, error) {
	if c.Name != nil {
		if err := checkName(*c.Name); err != nil {
			return a, err
		}
		a.Name = strings.TrimSpace(*c.Name)
	}
	if c.Enabled != nil {
		if !*c.Enabled && a.Primary {
			return a, apierr.New(apierr.Conflict, map[string]any{"reason": "primary_cash_account", "field": "enabled",
				"cash_account_id": a.ID, "hint": "make another cash account primary first"})
		}
		a.Enabled = *c.Enabled
	}
	if c.VoucherSeriesSet {
		if c.VoucherSeries != nil {
			s := strings.ToUpper(strings.TrimSpace(*c.VoucherSeries))
			if len(s) != 1 || s[0] < 'A' || s[0] > 'Z' {
				return a, apierr.Field("voucher_series", "pattern", "one letter A-Z, or null for the per-source default")
			}
			c.VoucherSeries = &s
		}
		a.VoucherSeries = c.VoucherSeries
	}
	if c.InvoicePayee != nil {
		a.InvoicePayee = *c.InvoicePayee
	}
	if c.PayeeSet {
		a.Payee = c.Payee
	}
	return a, nil
}

// checkIBAN is the IBAN rule on field iban.
func checkIBAN(s string) error {
	if err := identifier.IBAN(s); err != nil {
		return apierr.Field("iban", "mod97", err.Error())
	}
	return nil
}

// NormalIBAN is an IBAN as stored: upper case, no spaces.
func NormalIBAN(s string) string {
	return strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
}
