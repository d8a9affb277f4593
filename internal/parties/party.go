package parties

import (
	"database/sql/driver"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
)

// Party is the legal entity behind a customer or a supplier: one per
// organisation number (or VAT number, for a business without one) in a
// company, shared by its customer and supplier records.
type Party struct {
	CompanyID  uuid.UUID  `db:"company_id" json:"company_id"`
	ID         uuid.UUID  `db:"id" json:"id"`
	LegalName  string     `db:"legal_name" json:"legal_name"`
	OrgNumber  *string    `db:"org_number" json:"org_number"`
	VATNumber  *string    `db:"vat_number" json:"vat_number"`
	Country    string     `db:"country" json:"country"`
	CreatedAt  time.Time  `db:"created_at" json:"created_at"`
	CustomerID *uuid.UUID `db:"customer_id" json:"customer_id"`
	SupplierID *uuid.UUID `db:"supplier_id" json:"supplier_id"`
}

// Identity is how a party is found: "org:" with the country and the
// organisation number, else "vat:" with the VAT number written without
// separators; "" when the record names neither (private individuals
// never have a party).
func Identity(country string, org, vat *string) string {
	if org != nil {
		return "org:" + country + ":" + compact(*org)
	}
	if vat != nil {
		return "vat:" + compact(*vat)
	}
	return ""
}

// compact keeps the letters and digits of s, upper-cased.
func compact(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Addresses is a list of e-mail addresses that may be NULL in the database.
type Addresses []string

// Scan reads a text[] column; NULL is nil.
func (a *Addresses) Scan(src any) error {
	var s pq.StringArray
	if err := s.Scan(src); err != nil {
		return err
	}
	if src == nil {
		*a = nil
		return nil
	}
	*a = Addresses(s)
	if *a == nil {
		*a = Addresses{}
	}
	return nil
}

// Value writes the list as text[]; nil is NULL.
func (a Addresses) Value() (driver.Value, error) {
	if a == nil {
		return nil, nil
	}
	return pq.StringArray(a).Value()
}
