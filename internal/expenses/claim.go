// Package expenses keeps expense claims (utlägg): what an employee or the
// owner paid for the company out of their own pocket, booked when it is
// registered (the cost and its input VAT against what the company owes
// them) and paid back in payouts, several claims in one verifikat.
package expenses

import (
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/payables"
)

// Statuses of a claim.
const (
	Registered = "registered"
	Paid       = "paid"
	Deleted    = "deleted"
)

// Source types of the verifikat expenses posts.
const (
	SourceClaim  = "expense_claim"
	SourcePayout = "expense_payout"
)

// EFWithdrawal is where an enskild firma's owner is paid back what was
// booked as their own deposit (2018): an own withdrawal.
const EFWithdrawal = "2013"

// Claim is a row of expense_claims.
type Claim struct {
	CompanyID        uuid.UUID         `db:"company_id" json:"company_id"`
	ID               uuid.UUID         `db:"id" json:"id"`
	EmployeeID       *uuid.UUID        `db:"employee_id" json:"employee_id"`
	ClaimantName     string            `db:"claimant_name" json:"claimant_name"`
	Description      string            `db:"description" json:"description"`
	ExpenseDate      time.Time         `db:"expense_date" json:"expense_date"`
	Currency         string            `db:"currency" json:"currency"`
	AmountInCurrency money.Amount      `db:"amount_in_currency" json:"amount_in_currency"`
	VATInCurrency    money.Amount      `db:"vat_in_currency" json:"vat_in_currency"`
	ExchangeRate     *money.Rate       `db:"exchange_rate" json:"exchange_rate"`
	AmountSEK        money.Amount      `db:"amount_sek" json:"amount_sek"`
	VATSEK           money.Amount      `db:"vat_sek" json:"vat_sek"`
	ExpenseAccount   string            `db:"expense_account" json:"expense_account"`
	LiabilityAccount string            `db:"liability_account" json:"liability_account"`
	DocumentID       *uuid.UUID        `db:"document_id" json:"document_id"`
	InboxItemID      *uuid.UUID        `db:"inbox_item_id" json:"inbox_item_id"`
	Dimensions       ledger.Dimensions `db:"dimensions" json:"dimensions"`
	Status           string            `db:"status" json:"status"`
	JournalEntryID   uuid.UUID         `db:"journal_entry_id" json:"journal_entry_id"`
	ReversalEntryID  *uuid.UUID        `db:"reversal_entry_id" json:"reversal_entry_id"`
	PayoutID         *uuid.UUID        `db:"payout_id" json:"payout_id"`
	PayWithSalary    bool              `db:"pay_with_salary" json:"pay_with_salary"`
	SalaryRunID      *uuid.UUID        `db:"salary_run_id" json:"salary_run_id"`
	PaidAt           *time.Time        `db:"paid_at" json:"paid_at"`
	CreatedAt        time.Time         `db:"created_at" json:"created_at"`
}

// Input is a claim as asked.
type Input struct {
	EmployeeID     *uuid.UUID
	ClaimantName   *string
	Description    string
	ExpenseDate    time.Time
	Amount         money.Amount // what was paid, VAT included, in Currency
	VAT            *money.Amount
	Currency       string // "" is SEK
	ExchangeRate   *money.Rate
	ExpenseAccount string
	DocumentID     *uuid.UUID
	InboxItemID    *uuid.UUID
	Dimensions     ledger.Dimensions
	// PayWithSalary puts an employee's claim on the next salary run
	// calculated for them instead of a payout.
	PayWithSalary bool
}

// Facts are what of the company a claim's booking depends on.
type Facts struct {
	// Form is the company's entity type: who an owner's claim is owed to.
	Form string
	// VATRegistered: only a company in the VAT register has input VAT.
	VATRegistered bool
}

// Plan settles the claim in asks for, owed to whoever paid: an employee
// (named employee, their name the claimant's unless given) or else the
// owner of a company of f's form. rate is SEK per unit of a foreign
// currency. Foreign VAT is no Swedish input VAT: a claim in another
// currency carries none and its whole amount is cost; nor has a company
// outside the VAT register any.
func Plan(company uuid.UUID, in Input, f Facts, employee string, rate *money.Rate) (Claim, error) {
	c := Claim{CompanyID: company, ID: uuid.New(), EmployeeID: in.EmployeeID, Description: in.Description,
		ExpenseDate: in.ExpenseDate, Currency: in.Currency, AmountInCurrency: in.Amount, ExpenseAccount: in.ExpenseAccount,
		DocumentID: in.DocumentID, InboxItemID: in.InboxItemID, Dimensions: in.Dimensions, Status: Registered,
		PayWithSalary: in.PayWithSalary}
	if c.Currency == "" {
		c.Currency = "SEK"
	}
	if c.Dimensions == nil {
		c.Dimensions = ledger.Dimensions{}
	}
	switch {
	case in.ClaimantName != nil:
		c.ClaimantName = *in.ClaimantName
	case employee != "":
		c.ClaimantName = employee
	default:
		return c, apierr.Field("claimant_name", "required", "name who paid: claimant_name, or employee_id")
	}
	if in.VAT != nil {
		c.VATInCurrency = *in.VAT
	}
	switch {
	case c.AmountInCurrency.Sign() <= 0:
		return c, apierr.Field("amount", "exclusiveMinimum", "must be greater than 0")
	case c.VATInCurrency.Sign() < 0 || c.VATInCurrency.Cmp(c.AmountInCurrency) >= 0:
		return c, apierr.Field("vat_amount", "range", "the VAT is part of the amount: at least 0 and less than it")
	case c.Currency != "SEK" && !c.VATInCurrency.IsZero():
		return c, apierr.Field("vat_amount", "foreign_vat",
			"VAT paid in another currency is not Swedish input VAT: leave vat_amount out and the whole amount is cost")
	case !f.VATRegistered && !c.VATInCurrency.IsZero():
		return c, apierr.Field("vat_amount", "not_vat_registered",
			"a company outside the VAT register has no input VAT: leave vat_amount out and the whole amount is cost")
	case c.PayWithSalary && c.EmployeeID == nil:
		return c, apierr.Field("pay_with_salary", "employee", "only an employee's claim is paid with a salary: name employee_id")
	case c.Currency == "SEK" && in.ExchangeRate != nil:
		return c, apierr.Field("exchange_rate", "currency", "a claim in SEK takes no exchange rate")
	}
	c.AmountSEK, c.VATSEK = c.AmountInCurrency, c.VATInCurrency
	if c.Currency != "SEK" {
		if in.ExchangeRate != nil {
			rate = in.ExchangeRate
		}
		if rate == nil {
			return c, apierr.New(apierr.ExpenseClaimFXRateMissing, map[string]any{"field": "exchange_rate", "currency": c.Currency})
		}
		r := *rate
		c.ExchangeRate = &r
		c.AmountSEK = r.Convert(c.AmountInCurrency)
		if c.AmountSEK.Sign() <= 0 {
			return c, apierr.Field("amount", "exclusiveMinimum", "is 0 kronor at the exchange rate")
		}
	}
	c.LiabilityAccount = payables.OwedAccount(c.EmployeeID != nil, f.Form)
	return c, nil
}

// Lines are the claim's verifikat: its cost without VAT and the input
// VAT against what is owed to the one who paid.
func (c Claim) Lines() []ledger.Line {
	var b ledger.Booking
	b.Add(c.ExpenseAccount, c.AmountSEK.Sub(c.VATSEK), false, c.Dimensions, nil)
	b.Add(payables.InputVAT, c.VATSEK, false, nil, nil)
	b.Add(c.LiabilityAccount, c.AmountSEK, true, nil, nil)
	return b.Lines
}

// PayoutLines are a payout's verifikat: what each claim was owed on is
// paid off (an enskild firma's owner's deposit as a withdrawal, 2013)
// against cash, one line per account, and its total.
func PayoutLines(claims []Claim, cash string) ([]ledger.Line, money.Amount) {
	owed := map[string]money.Amount{}
	var order []string
	var total money.Amount
	for _, c := range claims {
		account := c.LiabilityAccount
		if account == payables.OwedToOwnerEF {
			account = EFWithdrawal
		}
		if _, ok := owed[account]; !ok {
			order = append(order, account)
		}
		owed[account] = owed[account].Add(c.AmountSEK)
		total = total.Add(c.AmountSEK)
	}
	var b ledger.Booking
	for _, a := range order {
		b.Add(a, owed[a], false, nil, nil)
	}
	b.Add(cash, total, true, nil, nil)
	return b.Lines, total
}
