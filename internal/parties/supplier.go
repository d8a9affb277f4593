package parties

import (
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/identifier"
)

// SupplierType says where a supplier is established; there is no
// individual supplier.
type SupplierType string

// The supplier types.
const (
	SupplierSwedish SupplierType = "swedish_business"
	SupplierEU      SupplierType = "eu_business"
	SupplierNonEU   SupplierType = "non_eu_business"
)

// DefaultCurrency is a supplier's currency when none is given.
const DefaultCurrency = "SEK"

// DefaultPaymentTerms is the days to pay when nothing else says.
const DefaultPaymentTerms = 30

// Supplier is a supplier as stored. Payment details are kept as supplied:
// they are the supplier's to state, and no checksum is imposed on them.
type Supplier struct {
	CompanyID uuid.UUID    `db:"company_id" json:"company_id"`
	ID        uuid.UUID    `db:"id" json:"id"`
	Name      string       `db:"name" json:"name"`
	Type      SupplierType `db:"supplier_type" json:"supplier_type"`
	Email     *string      `db:"email" json:"email"`
	Phone     *string      `db:"phone" json:"phone"`
	Address
	OrgNumber      *string    `db:"org_number" json:"org_number"`
	VATNumber      *string    `db:"vat_number" json:"vat_number"`
	Bankgiro       *string    `db:"bankgiro" json:"bankgiro"`
	Plusgiro       *string    `db:"plusgiro" json:"plusgiro"`
	BankAccount    *string    `db:"bank_account" json:"bank_account"`
	IBAN           *string    `db:"iban" json:"iban"`
	BIC            *string    `db:"bic" json:"bic"`
	ClearingNumber *string    `db:"clearing_number" json:"clearing_number"`
	AccountNumber  *string    `db:"account_number" json:"account_number"`
	ExpenseAccount *string    `db:"default_expense_account" json:"default_expense_account"`
	PaymentTerms   int        `db:"default_payment_terms" json:"default_payment_terms"`
	Currency       string     `db:"default_currency" json:"default_currency"`
	Notes          *string    `db:"notes" json:"notes"`
	PartyID        *uuid.UUID `db:"party_id" json:"party_id"`
	ArchivedAt     *time.Time `db:"archived_at" json:"archived_at"`
	CreatedAt      time.Time  `db:"created_at" json:"created_at"`
	UpdatedAt      time.Time  `db:"updated_at" json:"updated_at"`
}

// SupplierChange is what a create or update body says.
type SupplierChange struct {
	Name           *string
	Type           *SupplierType
	Email          Field[string]
	Phone          Field[string]
	AddressLine1   Field[string]
	AddressLine2   Field[string]
	PostalCode     Field[string]
	City           Field[string]
	Country        *string
	OrgNumber      Field[string]
	VATNumber      Field[string]
	Bankgiro       Field[string]
	Plusgiro       Field[string]
	BankAccount    Field[string]
	IBAN           Field[string]
	BIC            Field[string]
	ClearingNumber Field[string]
	AccountNumber  Field[string]
	ExpenseAccount Field[string]
	PaymentTerms   *int
	Currency       Field[string]
	Notes          Field[string]
	Unarchive      bool
}

// ApplySupplier returns old changed by ch under the rules of a supplier.
// Whether default_expense_account is in the chart is the caller's check:
// it needs the database.
func ApplySupplier(old Supplier, ch SupplierChange, creating bool) (Supplier, error) {
	s, r := old, &rules{}
	if creating {
		s.Address.Country, s.PaymentTerms, s.Currency = "SE", DefaultPaymentTerms, DefaultCurrency
	}
	setName(r, &s.Name, ch.Name)
	if ch.Type != nil {
		s.Type = *ch.Type
	}
	setEmail(r, "email", &s.Email, ch.Email)
	setText(&s.Phone, ch.Phone)
	s.Address.apply(ch.AddressLine1, ch.AddressLine2, ch.PostalCode, ch.City)
	if ch.Country != nil {
		s.Address.Country = strings.ToUpper(*ch.Country)
	}
	for _, f := range []struct {
		dst **string
		f   Field[string]
	}{{&s.VATNumber, ch.VATNumber}, {&s.Bankgiro, ch.Bankgiro}, {&s.Plusgiro, ch.Plusgiro},
		{&s.BankAccount, ch.BankAccount}, {&s.IBAN, ch.IBAN}, {&s.BIC, ch.BIC}, {&s.ClearingNumber, ch.ClearingNumber},
		{&s.AccountNumber, ch.AccountNumber}, {&s.ExpenseAccount, ch.ExpenseAccount}, {&s.Notes, ch.Notes}} {
		setText(f.dst, f.f)
	}
	if ch.PaymentTerms != nil {
		s.PaymentTerms = *ch.PaymentTerms
	}
	if ch.Currency.Set {
		s.Currency = DefaultCurrency
		if ch.Currency.Value != nil {
			s.Currency = *ch.Currency.Value
		}
	}
	if ch.Unarchive {
		s.ArchivedAt = nil
	}
	orgSet := ch.OrgNumber.Set && !unchanged(envelope.Text(ch.OrgNumber.Value), old.OrgNumber)
	if orgSet {
		s.OrgNumber = envelope.Text(ch.OrgNumber.Value)
	}
	if ch.VATNumber.Set && unchanged(envelope.Text(ch.VATNumber.Value), old.VATNumber) {
		s.VATNumber = old.VATNumber // the masked number read, sent back
	}
	keptSealed := sealedNumber(s.OrgNumber) && same(s.OrgNumber, old.OrgNumber)
	if s.OrgNumber != nil && !keptSealed && s.Type == SupplierSwedish && (orgSet || s.Type != old.Type) {
		// A Swedish supplier's number is checked: an organisationsnummer,
		// or a sole trader's personnummer.
		if pn, err := identifier.PersonalNumber(*s.OrgNumber); err == nil && isPersonal(*s.OrgNumber) {
			s.OrgNumber = &pn
		} else if norm, err := identifier.OrgNumber(*s.OrgNumber); err != nil {
			r.bad("org_number", "luhn", "is not a valid organisationsnummer: "+err.Error())
		} else {
			s.OrgNumber = &norm
		}
	}
	if err := r.err(); err != nil {
		return old, err
	}
	return s, nil
}

// duplicate is the 409 of an organisation number another record holds.
func duplicate(code apierr.Code, key string, existing uuid.UUID) error {
	d := map[string]any{"field": "org_number"}
	if existing != uuid.Nil {
		d[key] = existing.String()
	}
	return apierr.New(code, d)
}
