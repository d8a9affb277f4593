// Package parties holds the company's customers (kunder) and suppliers
// (leverantörer), and the parties — legal entities — behind them: their
// rules as plain Go, their SQL, and their slice of the HTTP interface.
package parties

import (
	"net/mail"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/identifier"
	"github.com/kontera/kontera/internal/peppol"
)

// CustomerType says who a customer is.
type CustomerType string

// The customer types.
const (
	Individual      CustomerType = "individual"
	SwedishBusiness CustomerType = "swedish_business"
	EUBusiness      CustomerType = "eu_business"
	NonEUBusiness   CustomerType = "non_eu_business"
)

// Customer is a customer as stored. Its personnummer is never here in
// clear: only the last four digits, which is all any answer shows.
type Customer struct {
	CompanyID     uuid.UUID    `db:"company_id" json:"company_id"`
	ID            uuid.UUID    `db:"id" json:"id"`
	Name          string       `db:"name" json:"name"`
	Type          CustomerType `db:"customer_type" json:"customer_type"`
	Number        *string      `db:"customer_number" json:"customer_number"`
	ContactPerson *string      `db:"contact_person" json:"contact_person"`
	Email         *string      `db:"email" json:"email"`
	Phone         *string      `db:"phone" json:"phone"`
	CC            Addresses    `db:"invoice_email_cc_addresses" json:"invoice_email_cc_addresses"`
	BCC           Addresses    `db:"invoice_email_bcc_addresses" json:"invoice_email_bcc_addresses"`
	Address
	OrgNumber    *string `db:"org_number" json:"org_number"`
	VATNumber    *string `db:"vat_number" json:"vat_number"`
	VATValidated bool    `db:"vat_number_validated" json:"vat_number_validated"`
	// PeppolID is the Peppol participant identifier, scheme:value.
	PeppolID      *string `db:"peppol_id" json:"peppol_id"`
	PersonalLast4 *string `db:"personal_number_last4" json:"personal_number_last4"`
	// PersonalToken stands in for the personnummer where it must be
	// compared (the audit trail's changed_fields) but not seen.
	PersonalToken *string    `db:"personal_number_token" json:"personal_number"`
	Language      string     `db:"language" json:"language"`
	PaymentTerms  int        `db:"default_payment_terms" json:"default_payment_terms"`
	Notes         *string    `db:"notes" json:"notes"`
	PartyID       *uuid.UUID `db:"party_id" json:"party_id"`
	ArchivedAt    *time.Time `db:"archived_at" json:"archived_at"`
	CreatedAt     time.Time  `db:"created_at" json:"created_at"`
	UpdatedAt     time.Time  `db:"updated_at" json:"updated_at"`
}

// MaskedPersonalNumber is the personnummer as every answer shows it: eight
// asterisks, a hyphen and the last four digits; nil when there is none.
func (c Customer) MaskedPersonalNumber() *string {
	if c.PersonalLast4 == nil {
		return nil
	}
	s := Mask(*c.PersonalLast4)
	return &s
}

// Mask writes the last four digits of a personnummer as the API shows it.
func Mask(last4 string) string { return "********-" + last4 }

// SoleTrader reports whether the customer is a sole trader (enskild firma)
// whose organisation number is the owner's personnummer; lists show
// neither that number nor the VAT number built on it.
func (c Customer) SoleTrader() bool {
	return c.Type == SwedishBusiness && c.OrgNumber != nil && (isPersonal(*c.OrgNumber) || sealedNumber(c.OrgNumber))
}

// Field is one nullable field of a change: Set when the body names it,
// Value nil when it names it null.
type Field[T any] struct {
	Set   bool
	Value *T
}

// CustomerChange is what a create or update body says. On create every
// field counts as set.
type CustomerChange struct {
	Name           *string
	Type           *CustomerType
	Number         Field[string]
	ContactPerson  Field[string]
	Email          Field[string]
	Phone          Field[string]
	CC, BCC        Field[[]string]
	AddressLine1   Field[string]
	AddressLine2   Field[string]
	PostalCode     Field[string]
	City           Field[string]
	Country        *string
	OrgNumber      Field[string]
	VATNumber      Field[string]
	PeppolID       Field[string]
	PersonalNumber Field[string]
	Language       *string
	PaymentTerms   *int
	Notes          Field[string]
	// Unarchive is archived_at: null.
	Unarchive bool
}

// Outcome is what applying a change decided beyond the record itself.
type Outcome struct {
	// PersonalNumber is the new personnummer in clear (YYMMDD-NNNN), to be
	// sealed; set only when PersonalNumberSet.
	PersonalNumber    *string
	PersonalNumberSet bool
	// CheckVAT says the VAT number must be looked up in VIES on commit.
	CheckVAT bool
}

// rules collects the field problems of one body, so a caller hears of
// them all at once.
type rules struct{ issues []apierr.Issue }

func (r *rules) bad(field, rule, issue string) {
	r.issues = append(r.issues, apierr.Issue{Field: field, In: "body", Rule: rule, Issue: issue})
}

func (r *rules) err() error {
	if len(r.issues) == 0 {
		return nil
	}
	return apierr.Validation(r.issues...)
}

// ApplyCustomer returns old changed by ch under the rules of a customer
// (spec 000 "Customer"). For a new customer old is the zero Customer with
// the company's defaults in PaymentTerms; every field of ch then counts.
func ApplyCustomer(old Customer, ch CustomerChange, creating bool) (Customer, Outcome, error) {
	c, out, r := old, Outcome{}, &rules{}
	setName(r, &c.Name, ch.Name)
	if ch.Type != nil {
		c.Type = *ch.Type
	}
	setText(&c.Number, ch.Number)
	setText(&c.ContactPerson, ch.ContactPerson)
	setText(&c.Phone, ch.Phone)
	setText(&c.Notes, ch.Notes)
	if ch.PeppolID.Set {
		c.PeppolID = nil
		if v := envelope.Text(ch.PeppolID.Value); v != nil {
			if id, err := peppol.ParseID(*v); err != nil {
				r.bad("peppol_id", "peppol_id", err.Error())
			} else {
				norm := id.String()
				c.PeppolID = &norm
			}
		}
	}
	setEmail(r, "email", &c.Email, ch.Email)
	setAddresses(r, "invoice_email_cc_addresses", &c.CC, ch.CC)
	setAddresses(r, "invoice_email_bcc_addresses", &c.BCC, ch.BCC)
	c.Address.apply(ch.AddressLine1, ch.AddressLine2, ch.PostalCode, ch.City)
	if ch.Country != nil {
		c.Address.Country = strings.ToUpper(*ch.Country)
	} else if creating {
		c.Address.Country = "SE"
	}
	if ch.Language != nil {
		c.Language = *ch.Language
	} else if creating {
		c.Language = "sv"
	}
	if ch.PaymentTerms != nil {
		c.PaymentTerms = *ch.PaymentTerms
	}
	if ch.Unarchive {
		c.ArchivedAt = nil
	}

	// The personnummer sent, if any. The masked form sent back is no
	// change: it is what a client read.
	pnSent, pn := ch.PersonalNumber.Set, (*string)(nil)
	if pnSent && ch.PersonalNumber.Value != nil {
		v := strings.TrimSpace(*ch.PersonalNumber.Value)
		switch {
		case v == "":
		case old.PersonalLast4 != nil && v == Mask(*old.PersonalLast4):
			pnSent = false
		default:
			norm, err := identifier.PersonalNumber(v)
			if err != nil {
				r.bad("personal_number", "luhn", "is not a valid personnummer or samordningsnummer: "+err.Error())
			} else {
				pn = &norm
			}
		}
	}

	// The organisation number: checked whenever it or the type changes,
	// since the rules depend on both.
	org, orgSet := c.OrgNumber, ch.OrgNumber.Set
	if orgSet {
		org = envelope.Text(ch.OrgNumber.Value)
		if unchanged(org, old.OrgNumber) {
			org, orgSet = old.OrgNumber, false // the masked number read, sent back
		}
	}
	if sealedNumber(org) && !orgSet {
		// A sole trader's sealed number is valid as it stands, on a
		// business; it cannot follow the customer to another type unseen.
		switch c.Type {
		case SwedishBusiness:
		case Individual:
			r.bad("org_number", "sealed", "this organisation number is a personnummer, kept sealed: send it again in full, or null, to make the customer an individual")
		default:
			return old, out, apierr.New(apierr.CustomerOrgNumberIsPersonal, map[string]any{
				"field": "org_number", "customer_type": string(c.Type)})
		}
	} else if org != nil && (orgSet || c.Type != old.Type) {
		moved, err := checkOrg(r, c.Type, org, pn, pnSent)
		if err != nil {
			return old, out, err
		}
		if moved != nil {
			// Rule 2: an individual's personnummer sent as org_number
			// belongs in personal_number.
			pn, pnSent, org = moved, true, nil
		}
	}
	c.OrgNumber = org

	// Rule 4: personal_number only on an individual. Changing the type
	// away from individual clears it.
	if pnSent && pn != nil && c.Type != Individual {
		return old, out, apierr.New(apierr.CustomerPersonalNumberNotAllowed, map[string]any{
			"field": "personal_number", "customer_type": string(c.Type)})
	}
	if pnSent {
		out.PersonalNumber, out.PersonalNumberSet = pn, true
		c.PersonalLast4 = nil
		if pn != nil {
			l4 := (*pn)[len(*pn)-4:]
			c.PersonalLast4 = &l4
		}
	} else if c.Type != Individual && c.PersonalLast4 != nil {
		out.PersonalNumberSet, c.PersonalLast4 = true, nil
	}

	if ch.VATNumber.Set && !unchanged(envelope.Text(ch.VATNumber.Value), old.VATNumber) {
		c.VATNumber = envelope.Text(ch.VATNumber.Value)
		if c.VATNumber != nil {
			v := strings.ToUpper(*c.VATNumber)
			c.VATNumber = &v
		}
	}
	keptSealed := sealedNumber(c.VATNumber) && same(c.VATNumber, old.VATNumber)
	if c.Type == SwedishBusiness && c.VATNumber != nil && !keptSealed && (ch.VATNumber.Set || c.Type != old.Type) {
		if _, err := identifier.VATNumber(compact(*c.VATNumber)); err != nil {
			r.bad("vat_number", "format", "a Swedish VAT number is SE, the 10-digit organisation number and 01, with a valid check digit")
		} else {
			norm := compact(*c.VATNumber)
			c.VATNumber = &norm
		}
	}
	// vat_number_validated speaks of the number and type it was checked
	// with; a change of either makes it unknown until VIES answers again.
	if creating || !same(c.VATNumber, old.VATNumber) || c.Type != old.Type {
		c.VATValidated = false
		out.CheckVAT = c.Type == EUBusiness && c.VATNumber != nil
	}
	if err := r.err(); err != nil {
		return old, out, err
	}
	return c, out, nil
}

// checkOrg applies rules 2 and 3 to an organisation number (normalising
// it in place). It returns the personnummer to move into personal_number
// when the customer is an individual.
func checkOrg(r *rules, t CustomerType, org, pn *string, pnSent bool) (*string, error) {
	if personal, err := identifier.PersonalNumber(*org); err == nil && isPersonal(*org) {
		switch t {
		case Individual:
			if pnSent && pn != nil && *pn != personal {
				return nil, apierr.New(apierr.CustomerPersonalNumberConflict, map[string]any{"field": "org_number"})
			}
			return &personal, nil
		case SwedishBusiness:
			*org = personal
			return nil, nil
		default:
			return nil, apierr.New(apierr.CustomerOrgNumberIsPersonal, map[string]any{
				"field": "org_number", "customer_type": string(t)})
		}
	}
	switch t {
	case Individual:
		if isPersonal(*org) {
			r.bad("org_number", "luhn", "is not a valid personnummer")
		} else {
			r.bad("org_number", "personal", "an individual has no organisation number; send the personnummer in personal_number")
		}
	case SwedishBusiness:
		norm, err := identifier.OrgNumber(*org)
		if err != nil {
			r.bad("org_number", "luhn", "is not a valid organisationsnummer: "+err.Error())
		} else {
			*org = norm
		}
	}
	return nil, nil
}

// isPersonal reports whether s has the shape of a personnummer: 12 digits
// starting 19 or 20, or 10 digits whose month part is a month (an
// organisationsnummer's third digit is 2 or more).
func isPersonal(s string) bool {
	var d []byte
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			d = append(d, s[i])
		}
	}
	switch len(d) {
	case 12:
		return (d[0] == '1' && d[1] == '9') || (d[0] == '2' && d[1] == '0')
	case 10:
		return d[2] < '2'
	}
	return false
}

// Address is the postal address both customers and suppliers carry.
type Address struct {
	Line1      *string `db:"address_line1" json:"address_line1"`
	Line2      *string `db:"address_line2" json:"address_line2"`
	PostalCode *string `db:"postal_code" json:"postal_code"`
	City       *string `db:"city" json:"city"`
	Country    string  `db:"country" json:"country"`
}

func (a *Address) apply(l1, l2, pc, city Field[string]) {
	setText(&a.Line1, l1)
	setText(&a.Line2, l2)
	setText(&a.PostalCode, pc)
	setText(&a.City, city)
}

// setName sets a record's name, which is never blank.
func setName(r *rules, dst *string, name *string) {
	if name == nil {
		return
	}
	if n := strings.TrimSpace(*name); n != "" {
		*dst = n
	} else {
		r.bad("name", "minLength", "must not be blank")
	}
}

func setText(dst **string, f Field[string]) {
	if f.Set {
		*dst = envelope.Text(f.Value)
	}
}

func setEmail(r *rules, field string, dst **string, f Field[string]) {
	if !f.Set {
		return
	}
	v := envelope.Text(f.Value)
	if v != nil && !validEmail(*v) {
		r.bad(field, "format", "is not an e-mail address")
		return
	}
	*dst = v
}

func setAddresses(r *rules, field string, dst *Addresses, f Field[[]string]) {
	if !f.Set {
		return
	}
	if f.Value == nil {
		*dst = nil
		return
	}
	out := Addresses{}
	for _, a := range *f.Value {
		a = strings.TrimSpace(a)
		if !validEmail(a) {
			r.bad(field, "format", "every entry must be an e-mail address")
			return
		}
		out = append(out, a)
	}
	*dst = out
}

func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s
}

func same(a, b *string) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}
