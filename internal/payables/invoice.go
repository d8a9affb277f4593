package payables

import (
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// The stored states of a supplier invoice; overdue is derived (State).
const (
	Registered    = "registered"
	Approved      = "approved"
	PartiallyPaid = "partially_paid"
	Paid          = "paid"
	Disputed      = "disputed"
	Credited      = "credited"
	Reversed      = "reversed"
	Overdue       = "overdue"
)

// Invoice is a supplier invoice or a supplier's credit note, as stored.
// Amounts are in its currency; TotalSEK is what 2440 was (or, under
// kontantmetoden, will be) credited with in kronor.
type Invoice struct {
	CompanyID         uuid.UUID         `db:"company_id"`
	ID                uuid.UUID         `db:"id"`
	SupplierID        uuid.UUID         `db:"supplier_id"`
	SupplierName      string            `db:"supplier_name"`
	ArrivalNumber     int               `db:"arrival_number"`
	Number            string            `db:"supplier_invoice_number"`
	CreditNote        bool              `db:"is_credit_note"`
	CreditedID        *uuid.UUID        `db:"credited_invoice_id"`
	Status            string            `db:"status"`
	InvoiceDate       time.Time         `db:"invoice_date"`
	DueDate           time.Time         `db:"due_date"`
	ReceivedDate      time.Time         `db:"received_date"`
	DeliveryDate      *time.Time        `db:"delivery_date"`
	Currency          string            `db:"currency"`
	ExchangeRate      *money.Rate       `db:"exchange_rate"`
	Treatment         string            `db:"vat_treatment"`
	ReverseCharge     bool              `db:"reverse_charge"`
	PaymentReference  *string           `db:"payment_reference"`
	Notes             *string           `db:"notes"`
	OreRounding       bool              `db:"ore_rounding"`
	Subtotal          money.Amount      `db:"subtotal"`
	VAT               money.Amount      `db:"vat_amount"`
	Rounding          money.Amount      `db:"rounding_amount"`
	Total             money.Amount      `db:"total"`
	TotalSEK          money.Amount      `db:"total_sek"`
	PaidAmount        money.Amount      `db:"paid_amount"`
	PaidSEK           money.Amount      `db:"paid_booked_sek"`
	Cash              bool              `db:"cash_method"`
	BookingDeferred   bool              `db:"booking_deferred"`
	EntryID           *uuid.UUID        `db:"registration_journal_entry_id"`
	PaymentEntryID    *uuid.UUID        `db:"payment_journal_entry_id"`
	DocumentID        *uuid.UUID        `db:"document_id"`
	InboxItemID       *uuid.UUID        `db:"inbox_item_id"`
	PrivatelyPaid     bool              `db:"paid_with_private_funds"`
	EmployeeID        *uuid.UUID        `db:"employee_id"`
	ClaimantName      *string           `db:"claimant_name"`
	DefaultDimensions ledger.Dimensions `db:"default_dimensions"`
	// DisputedFrom is the state a disputed invoice returns to.
	DisputedFrom  *string    `db:"disputed_from"`
	ApprovedAt    *time.Time `db:"approved_at"`
	BankEnteredAt *time.Time `db:"bank_entered_at"`
	PaidAt        *time.Time `db:"paid_at"`
	CreatedAt     time.Time  `db:"created_at"`
	UpdatedAt     time.Time  `db:"updated_at"`
	// Less is what partial credit notes took of the invoice, when read
	// for a payment under kontantmetoden (withCredits).
	Less *Invoice `db:"-"`
	// Overdue is derived when read: past due (Europe/Stockholm) with
	// money left, neither disputed, credited nor reversed.
	Overdue bool `db:"overdue"`

	Items []Item `db:"-"`
	// makesAssets says lines of the invoice being registered become
	// assets: its verifikat is written before their rows.
	makesAssets bool
}

// Item is one line of a supplier invoice: an amount excluding VAT booked
// on a cost (or asset, or reverse-charge) account.
type Item struct {
	ID          uuid.UUID         `json:"id"`
	SortOrder   int               `json:"sort_order"`
	Description string            `json:"description"`
	Account     string            `json:"account_number"`
	Amount      money.Amount      `json:"amount"`
	VATRate     money.Amount      `json:"vat_rate"`
	VAT         money.Amount      `json:"vat_amount"`
	SLP         bool              `json:"apply_slp"`
	Dimensions  ledger.Dimensions `json:"dimensions"`
	// AccrualStart and AccrualEnd spread the cost over months; until
	// each month's part is booked it sits on AccrualAccount (17xx).
	AccrualStart   *time.Time `json:"-"`
	AccrualEnd     *time.Time `json:"-"`
	AccrualAccount *string    `json:"accrual_balance_account"`
	// CreditedItemID is, on a credit note's line, the original's line it
	// credits.
	CreditedItemID *uuid.UUID `json:"credited_item_id"`
}

// Payment is money paid to (or, on a credit note, back from) a supplier.
type Payment struct {
	ID           uuid.UUID    `db:"id"`
	InvoiceID    uuid.UUID    `db:"supplier_invoice_id"`
	Date         time.Time    `db:"payment_date"`
	Amount       money.Amount `db:"amount"`
	SEK          money.Amount `db:"amount_sek"`
	BookedSEK    money.Amount `db:"booked_sek"`
	ExchangeRate *money.Rate  `db:"exchange_rate"`
	// Account is where the money went; none on a credit note's
	// settlement of what its original still owed.
	Account *string    `db:"account_number"`
	Source  string     `db:"source"`
	Notes   *string    `db:"notes"`
	EntryID *uuid.UUID `db:"journal_entry_id"`
	// ReversesID names the payment this row undoes (its amounts negated):
	// the payment's verifikat was stornoed.
	ReversesID *uuid.UUID `db:"reverses_id"`
	CreatedAt  time.Time  `db:"created_at"`
}

// Remaining is what is left to pay, in the invoice's currency: nothing
// of a credited or reversed invoice.
func (i Invoice) Remaining() money.Amount {
	if i.Status == Credited || i.Status == Reversed {
		return money.Amount{}
	}
	return i.Total.Sub(i.PaidAmount)
}

// The sources of a payment.
const (
	PaidManually  = "manual"
	PaidPrivately = "private"
	// SettledByCredit is a credit note's settlement of what its original
	// still owed: no money moved.
	SettledByCredit = "credit_note"
)

// State is the status a client sees: overdue when the stored state is
// open and the invoice is overdue.
func (i Invoice) State() string {
	if i.Overdue {
		return Overdue
	}
	return i.Status
}

// Open says whether money is still owed and the invoice stands: what
// keeps a supplier from being archived.
func (i Invoice) Open() bool {
	switch i.Status {
	case Registered, Approved, PartiallyPaid, Disputed:
		return true
	}
	return false
}

// Booked says whether the registration verifikat is posted.
func (i Invoice) Booked() bool { return i.EntryID != nil }
