package banking

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// Transaction is a movement on a cash account as the bank reported it,
// and how it was booked.
type Transaction struct {
	CompanyID            uuid.UUID     `db:"company_id" json:"company_id"`
	ID                   uuid.UUID     `db:"id" json:"id"`
	CashAccountID        *uuid.UUID    `db:"cash_account_id" json:"cash_account_id"`
	LedgerAccount        string        `db:"ledger_account" json:"ledger_account"`
	Date                 time.Time     `db:"date" json:"date"`
	Description          *string       `db:"description" json:"description"`
	OriginalDescription  *string       `db:"original_description" json:"original_description"`
	TitleEditedAt        *time.Time    `db:"title_edited_at" json:"title_edited_at"`
	Amount               money.Amount  `db:"amount" json:"amount"`
	Currency             string        `db:"currency" json:"currency"`
	AmountSEK            *money.Amount `db:"amount_sek" json:"amount_sek"`
	ExchangeRate         *money.Rate   `db:"exchange_rate" json:"exchange_rate"`
	ExchangeRateDate     *time.Time    `db:"exchange_rate_date" json:"exchange_rate_date"`
	Reference            *string       `db:"reference" json:"reference"`
	MerchantName         *string       `db:"merchant_name" json:"merchant_name"`
	CounterpartyAccount  *string       `db:"counterparty_account" json:"counterparty_account"`
	MCC                  *string       `db:"mcc_code" json:"mcc_code"`
	ExternalID           string        `db:"external_id" json:"external_id"`
	ImportSource         string        `db:"import_source" json:"import_source"`
	BankFileImportID     *uuid.UUID    `db:"bank_file_import_id" json:"bank_file_import_id"`
	JournalEntryID       *uuid.UUID    `db:"journal_entry_id" json:"journal_entry_id"`
	InvoiceID            *uuid.UUID    `db:"invoice_id" json:"invoice_id"`
	SupplierInvoiceID    *uuid.UUID    `db:"supplier_invoice_id" json:"supplier_invoice_id"`
	IsBusiness           *bool         `db:"is_business" json:"is_business"`
	Category             *string       `db:"category" json:"category"`
	Ignored              bool          `db:"is_ignored" json:"is_ignored"`
	WasBooked            bool          `db:"was_booked" json:"was_booked"`
	DocumentID           *uuid.UUID    `db:"document_id" json:"document_id"`
	ReconciliationMethod *string       `db:"reconciliation_method" json:"reconciliation_method"`
	CreatedAt            time.Time     `db:"created_at" json:"created_at"`
	UpdatedAt            time.Time     `db:"updated_at" json:"updated_at"`
}

// Booked reports whether a verifikat books t.
func (t Transaction) Booked() bool { return t.JournalEntryID != nil }

// SEK is t's amount in kronor: the amount itself, or for a foreign one
// the amount its rate gave; false when a foreign one has no rate yet.
func (t Transaction) SEK() (money.Amount, bool) {
	if t.Currency == "SEK" {
		return t.Amount, true
	}
	if t.AmountSEK == nil {
		return money.Amount{}, false
	}
	return *t.AmountSEK, true
}

// Ingested is a transaction as a client or a bank hands it over.
type Ingested struct {
	Date                              time.Time
	Description                       *string
	Amount                            money.Amount
	Currency                          string
	ExternalID                        string
	MCC, MerchantName, Reference      *string
	CounterpartyAccount, ImportSource *string
}

var (
	currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)
	mccCode      = regexp.MustCompile(`^[0-9]{4}$`)
)

// Check holds row i of an ingest to the rules, fields named under
// transactions[i].
func (r Ingested) Check(i int) []apierr.Issue {
	var out []apierr.Issue
	bad := func(field, rule, issue string) {
		out = append(out, apierr.Issue{Field: "transactions[" + strconv.Itoa(i) + "]." + field, In: "body", Rule: rule, Issue: issue})
	}
	if strings.TrimSpace(r.ExternalID) == "" || utf8.RuneCountInString(r.ExternalID) > 200 {
		bad("external_id", "length", "1 to 200 characters: the bank's id of the transaction, the dedup key")
	}
	if !currencyCode.MatchString(r.Currency) {
		bad("currency", "pattern", "an ISO 4217 code such as SEK")
	}
	if r.Amount.OverMax() {
		bad("amount", "maximum", "at most 999 999 999 999.99 either way")
	}
	if r.MCC != nil && !mccCode.MatchString(*r.MCC) {
		bad("mcc_code", "pattern", "four digits")
	}
	if r.ImportSource != nil && *r.ImportSource != "api" && *r.ImportSource != "manual" {
		bad("import_source", "enum", "api or manual")
	}
	return out
}

// The VAT treatments a categorization may name.
const (
	Standard25    = "standard_25"
	Reduced12     = "reduced_12"
	Reduced6      = "reduced_6"
	ReverseCharge = "reverse_charge"
	Export        = "export"
	Exempt        = "exempt"
)

// Categorization is how a transaction is booked (POST categorize).
type Categorization struct {
	IsBusiness      bool
	Category        *string
	TemplateID      *string
	VATTreatment    *string
	VATAmount       *money.Amount
	AccountOverride *string
	Dimensions      ledger.Dimensions
	Description     *string
	// ConfirmNoMatch books money out as asked even when it looks like the
	// payment of an open supplier invoice.
	ConfirmNoMatch bool
}

// Policy is what of the company a booking depends on.
type Policy struct {
	VATRegistered bool
	// EntityType decides where private money goes: enskild_firma books
	// 2013 / 2018, any other form 2893.
	EntityType string
}

// truncated is s cut to n characters: a bank's long text is shortened
// to what a column keeps, never a reason to refuse it.
func truncated(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
