package banking

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/jobs"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// Books is what banking asks of the rest of the books.
type Books struct {
	// EnsureAccount adds ledger account number to the company's chart when
	// it is missing (from BAS, else as an asset account named name).
	EnsureAccount func(ctx context.Context, company uuid.UUID, number, name string) error
	// CheckPayee holds payment details to the rules of the company's own
	// (bankgiro, plusgiro and IBAN check digits), fields under prefix.
	CheckPayee func(p map[string]any, prefix string) error
	// Policy reads what of the company a booking depends on.
	Policy func(ctx context.Context, company uuid.UUID) (Policy, error)
	// EnsureAccounts adds BAS accounts a verifikat books on to the chart
	// (ACCOUNTS_NOT_IN_CHART for others).
	EnsureAccounts func(ctx context.Context, company uuid.UUID, numbers []string) error
	// Entry reads a verifikat (JOURNAL_ENTRY_NOT_FOUND).
	Entry func(ctx context.Context, company, id uuid.UUID) (ledger.Entry, error)
	// Rate is the rate of currency on day, resolved before the
	// transaction (fx.Rates.Rate).
	Rate func(ctx context.Context, currency string, day time.Time) (money.Rate, error)
	// Document refuses a document the company does not have
	// (DOC_NOT_FOUND); Link makes one underlag of a verifikat by the
	// archive's linking rule (documents.Archive.Link).
	Document func(ctx context.Context, company, id uuid.UUID) error
	Link     func(ctx context.Context, company, doc, entry uuid.UUID) error
	// OpenInvoice answers the company's open customer invoice in currency
	// with OCR reference ocr, else the only one with amount left to pay;
	// nil when there is none, or more than one.
	OpenInvoice func(ctx context.Context, company uuid.UUID, ocr *string, currency string, amount money.Amount) (*uuid.UUID, error)
	// OpenSupplierInvoices answers the company's open supplier invoices in
	// currency with amount left to pay.
	OpenSupplierInvoices func(ctx context.Context, company uuid.UUID, currency string, amount money.Amount) ([]uuid.UUID, error)
	// Enqueue queues an operation (jobs.Store.Enqueue).
	Enqueue func(ctx context.Context, company uuid.UUID, typ string, params any) (jobs.Operation, error)
	// Receive settles customer invoices with money in (invoicing), Disburse
	// supplier invoices with money out (payables): the one payment path of
	// 1510 and 2440. A refusal of one invoice is a *PartError.
	Receive  func(ctx context.Context, company uuid.UUID, s Remittance) (Settled, error)
	Disburse func(ctx context.Context, company uuid.UUID, s Remittance) (Settled, error)
	// BatchPayments answers, by the references given (a payment file's
	// end-to-end ids, or the OCR numbers it paid), the supplier invoices
	// payment batches not cancelled pay. Nil: there are none.
	BatchPayments func(ctx context.Context, company uuid.UUID, refs []string) (map[string]BatchPayment, error)
	// PayClaim pays out expense claim of batch on day from the cash
	// account's ledger account, answering the payout's verifikat: what
	// the bank's debit of a payment file's claim settles. Nil: none.
	PayClaim func(ctx context.Context, company, batch, claim uuid.UUID, day time.Time, account string) (uuid.UUID, error)
	// Post and Reverse are the ledger's.
	Post    func(ctx context.Context, company uuid.UUID, in ledger.Input) (ledger.Entry, error)
	Reverse func(ctx context.Context, company, id uuid.UUID, day time.Time, allowDeep bool) (ledger.Reversal, error)
}

// BatchPayment is a payment a payment file asked the bank for: of a
// supplier invoice, or of an expense claim.
type BatchPayment struct {
	BatchID   uuid.UUID
	InvoiceID *uuid.UUID
	ClaimID   *uuid.UUID
	Amount    money.Amount
	Currency  string
}

// Bank keeps the company's cash accounts.
type Bank struct {
	store *Store
	books Books
	audit *audit.Store
	// consents is the aggregator connections go through; nil: none.
	consents *Consents
	// Changed is told, in the writing transaction, when an import, an
	// ingest or a sync added transactions to cash account cash (nil: the
	// account is not known): reconciliation recomputes its proposals.
	Changed func(ctx context.Context, company uuid.UUID, cash *uuid.UUID) error
	// Released is told, in the writing transaction, that transaction tx
	// no longer names the verifikat it was linked to (uncategorize):
	// reconciliation removes the link set that holds it.
	Released func(ctx context.Context, company, tx uuid.UUID) error
}

// SetBatchPayments gives the bank the payment files' payments and the
// payout of their expense claims, made after it (their batches read the
// bank's cash accounts).
func (b *Bank) SetBatchPayments(f func(ctx context.Context, company uuid.UUID, refs []string) (map[string]BatchPayment, error),
	pay func(ctx context.Context, company, batch, claim uuid.UUID, day time.Time, account string) (uuid.UUID, error)) {
	b.books.BatchPayments, b.books.PayClaim = f, pay
}

// New returns the bank on s.
func New(s *Store, b Books, a *audit.Store) *Bank { return &Bank{store: s, books: b, audit: a} }

// Store is the bank's SQL.
func (b *Bank) Store() *Store { return b.store }

// Create opens the manual cash account n for company, on the ledger
// account ChooseLedger picks, added to the chart when missing; the
// company's first is its primary. It never becomes a payee default.
func (b *Bank) Create(ctx context.Context, company uuid.UUID, n NewCash) (CashAccount, error) {
	if err := n.Check(); err != nil {
		return CashAccount{}, err
	}
	if err := b.checkPayee(n.Payee); err != nil {
		return CashAccount{}, err
	}
	l, err := b.store.Ledgers(ctx, company)
	if err != nil {
		return CashAccount{}, err
	}
	account, err := ChooseLedger(n.Currency, n.LedgerAccount, l)
	if err != nil {
		return CashAccount{}, err
	}
	a := CashAccount{CompanyID: company, LedgerAccount: account, Name: strings.TrimSpace(n.Name), Currency: n.Currency,
		InvoicePayee: n.InvoicePayee == nil || *n.InvoicePayee, Payee: n.Payee}
	if a.Payee == nil {
		a.Payee = map[string]any{}
	}
	if n.IBAN != nil {
		iban := NormalIBAN(*n.IBAN)
		a.IBAN = &iban
		// Held by Ledgers' lock: no other creation runs between look and write.
		other, err := b.store.WithIBAN(ctx, company, iban, n.Currency)
		if err != nil {
			return a, err
		}
		if other != nil {
			return a, apierr.New(apierr.CashAccountIBANDuplicate, map[string]any{"field": "iban", "cash_account_id": *other})
		}
	}
	if err := b.books.EnsureAccount(ctx, company, account, "Bankkonto "+n.Currency+" "+a.Name); err != nil {
		return a, err
	}
	if a, err = b.store.Insert(ctx, a); err != nil {
		return a, err
	}
	return a, b.record(ctx, audit.Insert, nil, &a, "Kassakonto "+a.Name+" ("+a.LedgerAccount+", "+a.Currency+") lades till")
}

// Update applies c to cash account id.
func (b *Bank) Update(ctx context.Context, company, id uuid.UUID, c CashChange) (CashAccount, error) {
	old, err := b.store.CashAccount(ctx, company, id, true)
	if err != nil {
		return old, err
	}
	if c.PayeeSet {
		if err := b.checkPayee(c.Payee); err != nil {
			return old, err
		}
		if c.Payee == nil {
			c.Payee = map[string]any{}
		}
	}
	a, err := old.Apply(c)
	if err != nil {
		return old, err
	}
	if a, err = b.store.Update(ctx, a); err != nil {
		return a, err
	}
	return a, b.record(ctx, audit.Update, &old, &a, "Kassakonto "+a.Name+" ("+a.LedgerAccount+") ändrades")
}

// SetPrimary makes cash account id the company's primary; it must be
// enabled.
func (b *Bank) SetPrimary(ctx context.Context, company, id uuid.UUID) (CashAccount, error) {
	old, err := b.store.CashAccount(ctx, company, id, true)
	if err != nil {
		return old, err
	}
	if !old.Enabled {
		return old, apierr.New(apierr.Conflict, map[string]any{"reason": "cash_account_disabled", "cash_account_id": id,
			"hint": "enable it first (PATCH enabled: true)"})
	}
	if old.Primary {
		return old, nil
	}
	a, err := b.store.SetPrimary(ctx, company, id)
	if err != nil {
		return a, err
	}
	return a, b.record(ctx, audit.Update, &old, &a, "Kassakonto "+a.Name+" ("+a.LedgerAccount+") blev primärt")
}

// SetPayee makes cash account id (nil: none) the payee invoices in
// currency print: an enabled account of that currency.
func (b *Bank) SetPayee(ctx context.Context, company uuid.UUID, currency string, id *uuid.UUID) error {
	if !slices.Contains(Currencies, currency) {
		return apierr.Field("currency", "enum", strings.Join(Currencies, ", "))
	}
	desc := "Inga kassakonton skrivs som betalningsmottagare på fakturor i " + currency
	if id != nil {
		a, err := b.store.CashAccount(ctx, company, *id, false)
		if err != nil {
			return err
		}
		switch {
		case a.Currency != currency:
			return apierr.Field("cash_account_id", "currency", "the cash account holds "+a.Currency+", not "+currency)
		case !a.Enabled:
			return apierr.Field("cash_account_id", "enabled", "the cash account is disabled")
		}
		desc = "Kassakonto " + a.Name + " (" + a.LedgerAccount + ") skrivs som betalningsmottagare på fakturor i " + currency
	}
	if err := b.store.SetPayee(ctx, company, currency, id); err != nil {
		return err
	}
	state, _ := json.Marshal(map[string]any{"currency": currency, "cash_account_id": id})
	return b.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Update, Table: "cash_account_payees",
		RecordID: currency, Description: desc, New: state})
}

func (b *Bank) checkPayee(p map[string]any) error {
	if p == nil || b.books.CheckPayee == nil {
		return nil
	}
	return b.books.CheckPayee(p, "payee.")
}

// record audits a change of a cash account.
func (b *Bank) record(ctx context.Context, action audit.Action, old, new *CashAccount, description string) error {
	a := old
	if a == nil {
		a = new
	}
	return b.audit.Record(ctx, audit.Change{CompanyID: a.CompanyID, Action: action, Table: "cash_accounts",
		RecordID: a.ID.String(), Description: description, Old: audit.Of(old), New: audit.Of(new)})
}
