// Package aggregator reaches banks through an account-information
// aggregator (PSD2 AIS): a consent the company gives its bank, the
// session that consent opens, and the booked transactions and balances
// of the accounts it covers. Enable Banking is the one adapter; without
// one configured the server has none and says so (banking answers 503
// BANK_AGGREGATOR_NOT_CONFIGURED), never a made-up answer.
package aggregator

import (
	"errors"
	"fmt"
	"time"

	"github.com/kontera/kontera/internal/money"
)

// Consent is what a company is asked to consent to in its bank.
type Consent struct {
	Bank    string // the bank's name as the aggregator knows it (ASPSP), e.g. SEB
	Country string // ISO 3166 code of the bank's country, e.g. SE
	// PSUType is business (the default) or personal.
	PSUType string
	// State comes back on the callback unchanged: it names the connection.
	State       string
	RedirectURL string
	ValidUntil  time.Time
}

// Authorization is a consent asked for: the URL the user opens to give
// it in the bank (BankID), and the aggregator's id of the request.
type Authorization struct {
	URL string
	ID  string
}

// Account is an account a consent covers.
type Account struct {
	// UID is the aggregator's id of the account within the session: what
	// its transactions and balances are read by.
	UID      string
	IBAN     string
	Currency string
	Name     string
}

// Session is a consent given: what the bank's accounts are read through
// until ValidUntil.
type Session struct {
	ID         string
	Bank       string
	Accounts   []Account
	ValidUntil time.Time
}

// Transaction is a booked movement on an account as the bank reports it.
type Transaction struct {
	// EntryReference is the bank's own id of the entry: stable across
	// sessions, the dedup key.
	EntryReference      string
	Date                time.Time
	Amount              money.Amount // negative: money out
	Currency            string
	Description         string
	Counterparty        string
	CounterpartyAccount string
	// Reference is a structured reference (an OCR number) when the bank
	// gives one.
	Reference string
	MCC       string
}

// Page is one page of an account's transactions; Next continues it ("" is
// the last page).
type Page struct {
	Transactions []Transaction
	Next         string
}

// Balances are what the bank says an account holds: booked and available
// (either may be unknown).
type Balances struct {
	Booked, Available *money.Amount
	Currency          string
}

// ErrExpired is a consent the bank no longer honours (expired, revoked or
// closed): only the user can renew it.
var ErrExpired = errors.New("aggregator: the consent is no longer valid")

// RateLimited is the bank limiting calls on the consent for Wait (from
// when it said so).
type RateLimited struct{ Wait time.Duration }

func (e *RateLimited) Error() string {
	return "aggregator: the bank limits calls on the consent for " + e.Wait.String()
}

// Failed is any other refusal or failure of the aggregator or the bank:
// the HTTP status, the aggregator's code and message (for logs; never
// shown to a client).
type Failed struct {
	Status        int
	Code, Message string
}

func (e *Failed) Error() string {
	return fmt.Sprintf("aggregator: %d %s: %s", e.Status, e.Code, e.Message)
}
