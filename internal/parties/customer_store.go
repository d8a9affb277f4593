package parties

import (
	"context"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/store"
)

const customerColumns = `company_id, id, name, customer_type, customer_number, contact_person, email, phone,
	invoice_email_cc_addresses, invoice_email_bcc_addresses, address_line1, address_line2, postal_code, city,
	country, org_number, vat_number, vat_number_validated, peppol_id, personal_number_last4, personal_number_token, language,
	default_payment_terms, notes, party_id, archived_at, created_at, updated_at`

// sealContext binds a sealed personnummer to its row.
func sealContext(company, id uuid.UUID) string {
	return "customers/" + company.String() + "/" + id.String()
}

// Customer returns the company's customer id, archived or not;
// CUSTOMER_NOT_FOUND when there is none. With lock the row is held until
// the transaction ends.
func (s *Store) Customer(ctx context.Context, company, id uuid.UUID, lock bool) (Customer, error) {
	var c Customer
	q := `SELECT ` + customerColumns + ` FROM customers WHERE company_id = $1 AND id = $2`
	if lock {
		q += ` FOR UPDATE`
	}
	err := s.db.Q(ctx).GetContext(ctx, &c, q, company, id)
	return c, notFound(err, apierr.CustomerNotFound, "customer_id", id)
}

// HoldCustomer refuses a customer the company does not have, or has
// archived (CUSTOMER_NOT_FOUND), and holds an active one's row (FOR KEY
// SHARE) until the transaction ends: it is not archived meanwhile, while
// others holding it the same way go on alongside. It answers the row as
// stored (its numbers sealed): issuing an invoice checks its address.
func (s *Store) HoldCustomer(ctx context.Context, company, id uuid.UUID) (Customer, error) {
	var rows []Customer
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT `+customerColumns+` FROM customers
		WHERE company_id = $1 AND id = $2 FOR KEY SHARE`, company, id)
	switch {
	case err != nil:
		return Customer{}, err
	case len(rows) == 0:
		return Customer{}, apierr.New(apierr.CustomerNotFound, map[string]any{"customer_id": id})
	case rows[0].ArchivedAt != nil:
		return Customer{}, apierr.New(apierr.CustomerNotFound, map[string]any{"customer_id": id, "reason": "archived"})
	}
	return rows[0], nil
}

// Customers returns up to limit+1 customers after the position after.
func (s *Store) Customers(ctx context.Context, company uuid.UUID, f Filter, after *cursor.Position, limit int) ([]Customer, error) {
	return list[Customer](ctx, s, "customers", "customer_type", customerColumns, company, f, after, limit)
}

// customerWithOrg checks rule 1: no other customer of the company holds
// its org_number.
func (s *Store) customerWithOrg(ctx context.Context, c Customer) error {
	return s.orgTaken(ctx, "customers", c.CompanyID, c.OrgNumber, c.ID,
		apierr.CustomerDuplicateOrgNumber, "existing_customer_id")
}

// InsertCustomer stores a new customer (c.ID set by the caller, so the
// sealed personnummer can be bound to it), links its party and audits it.
// pn is the personnummer in clear, or nil.
func (s *Store) InsertCustomer(ctx context.Context, c Customer, pn *string) (Customer, error) {
	numbers := s.sealNumbers(sealContext(c.CompanyID, c.ID), &c.OrgNumber, &c.VATNumber)
	if err := s.customerWithOrg(ctx, c); err != nil {
		return c, err
	}
	var err error
	if c.PartyID, err = s.customerParty(ctx, c); err != nil {
		return c, err
	}
	sealed, token := s.sealPersonal(c, pn)
	err = s.db.Q(ctx).GetContext(ctx, &c, `
		INSERT INTO customers (company_id, id, name, customer_type, customer_number, contact_person, email, phone,
			invoice_email_cc_addresses, invoice_email_bcc_addresses, address_line1, address_line2, postal_code, city,
			country, org_number, vat_number, vat_number_validated, personal_number_sealed, personal_number_last4,
			language, default_payment_terms, notes, party_id, search_name, org_key, personal_number_token,
			org_number_sealed, vat_number_sealed, peppol_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,
			$23, $24, $25, $26, $27, $28, $29, $30)
		RETURNING `+customerColumns,
		c.CompanyID, c.ID, c.Name, c.Type, c.Number, c.ContactPerson, c.Email, c.Phone, c.CC, c.BCC,
		c.Line1, c.Line2, c.PostalCode, c.City, c.Country, c.OrgNumber, c.VATNumber, c.VATValidated,
		sealed, c.PersonalLast4, c.Language, c.PaymentTerms, c.Notes, c.PartyID, store.Fold(c.Name), orgKey(c.OrgNumber),
		token, numbers.org, numbers.vat, c.PeppolID)
	if store.UniqueViolation(err, "customers_org_number") {
		return c, duplicate(apierr.CustomerDuplicateOrgNumber, "", uuid.Nil)
	}
	if err != nil {
		return c, err
	}
	return c, s.record(ctx, c.CompanyID, audit.Insert, "customers", c.ID, "Kunden "+c.Name+" skapades", nil, c)
}

// UpdateCustomer stores c over old (as read under lock) and audits the
// change. out says whether the personnummer changed.
func (s *Store) UpdateCustomer(ctx context.Context, old, c Customer, out Outcome, desc string) (Customer, error) {
	numbers := s.sealNumbers(sealContext(c.CompanyID, c.ID), &c.OrgNumber, &c.VATNumber)
	if !same(old.OrgNumber, c.OrgNumber) {
		if err := s.customerWithOrg(ctx, c); err != nil {
			return c, err
		}
	}
	var err error
	if c.PartyID, err = s.customerParty(ctx, c); err != nil {
		return c, err
	}
	keep := !out.PersonalNumberSet
	sealed, token := s.sealPersonal(c, out.PersonalNumber)
	err = s.db.Q(ctx).GetContext(ctx, &c, `
		UPDATE customers SET name = $3, customer_type = $4, customer_number = $5, contact_person = $6, email = $7,
			phone = $8, invoice_email_cc_addresses = $9, invoice_email_bcc_addresses = $10, address_line1 = $11,
			address_line2 = $12, postal_code = $13, city = $14, country = $15, org_number = $16, vat_number = $17,
			vat_number_validated = $18,
			personal_number_sealed = CASE WHEN $19 THEN personal_number_sealed ELSE $20 END,
			personal_number_last4 = $21, language = $22, default_payment_terms = $23, notes = $24, party_id = $25,
			archived_at = $26, search_name = $27, org_key = $28,
			personal_number_token = CASE WHEN $19 THEN personal_number_token ELSE $29 END,
			org_number_sealed = CASE WHEN $30 THEN org_number_sealed ELSE $31 END,
			vat_number_sealed = CASE WHEN $32 THEN vat_number_sealed ELSE $33 END,
			peppol_id = $34, updated_at = clock_timestamp()
		WHERE company_id = $1 AND id = $2
		RETURNING `+customerColumns,
		c.CompanyID, c.ID, c.Name, c.Type, c.Number, c.ContactPerson, c.Email, c.Phone, c.CC, c.BCC,
		c.Line1, c.Line2, c.PostalCode, c.City, c.Country, c.OrgNumber, c.VATNumber, c.VATValidated,
		keep, sealed, c.PersonalLast4, c.Language, c.PaymentTerms, c.Notes, c.PartyID, c.ArchivedAt,
		store.Fold(c.Name), orgKey(c.OrgNumber), token, numbers.keepOrg, numbers.org, numbers.keepVAT, numbers.vat,
		c.PeppolID)
	if store.UniqueViolation(err, "customers_org_number") {
		return c, duplicate(apierr.CustomerDuplicateOrgNumber, "", uuid.Nil)
	}
	if err != nil {
		return c, err
	}
	return c, s.record(ctx, c.CompanyID, audit.Update, "customers", c.ID, desc, old, c)
}

// sealPersonal seals the personnummer pn (nil: none) for c's row, with
// its token.
func (s *Store) sealPersonal(c Customer, pn *string) (sealed []byte, token *string) {
	if pn == nil {
		return nil, nil
	}
	t := s.box.Token(kindPersonal, compact(*pn))
	return s.box.Seal([]byte(*pn), sealContext(c.CompanyID, c.ID)), &t
}

// customerParty links a business customer to its party; individuals have
// none.
func (s *Store) customerParty(ctx context.Context, c Customer) (*uuid.UUID, error) {
	if c.Type == Individual {
		return nil, nil
	}
	return s.linkParty(ctx, c.CompanyID, Identity(c.Country, c.OrgNumber, c.VATNumber), c.Name, c.OrgNumber, c.VATNumber, c.Country)
}

// PersonalNumber opens the customer's sealed personnummer, for the
// documents that must carry it in full (ROT/RUT invoices):
// CUSTOMER_NO_PERSONAL_NUMBER when there is none, and
// CUSTOMER_PERSONAL_NUMBER_UNREADABLE when it cannot be opened (another
// key, or a value that does not belong to the row).
func (s *Store) PersonalNumber(ctx context.Context, company, id uuid.UUID) (string, error) {
	var sealed []byte
	err := s.db.Q(ctx).GetContext(ctx, &sealed, `SELECT coalesce(personal_number_sealed, '') FROM customers
		WHERE company_id = $1 AND id = $2`, company, id)
	if err != nil {
		return "", notFound(err, apierr.CustomerNotFound, "customer_id", id)
	}
	if len(sealed) == 0 {
		return "", apierr.New(apierr.CustomerNoPersonalNumber, nil)
	}
	plain, err := s.box.Open(sealed, sealContext(company, id))
	if err != nil {
		return "", apierr.Wrap(apierr.CustomerPersonalNumberUnreadable, err)
	}
	return string(plain), nil
}

// Addressee returns the customer as a document addressed to them prints
// them: a sole trader's organisation and VAT numbers opened from their
// seals, since an invoice must carry the buyer's VAT number in full
// (reverse charge). CUSTOMER_NOT_FOUND when the company has no such
// customer; CUSTOMER_PERSONAL_NUMBER_UNREADABLE when a seal cannot be
// opened.
func (s *Store) Addressee(ctx context.Context, company, id uuid.UUID) (Customer, error) {
	var row struct {
		Customer
		OrgSealed []byte `db:"org_number_sealed"`
		VATSealed []byte `db:"vat_number_sealed"`
	}
	err := s.db.Q(ctx).GetContext(ctx, &row, `SELECT `+customerColumns+`, org_number_sealed, vat_number_sealed
		FROM customers WHERE company_id = $1 AND id = $2`, company, id)
	if err != nil {
		return Customer{}, notFound(err, apierr.CustomerNotFound, "customer_id", id)
	}
	c := row.Customer
	rowCtx := sealContext(company, id)
	for _, n := range []struct {
		sealed []byte
		into   **string
		field  string
	}{{row.OrgSealed, &c.OrgNumber, "/org_number"}, {row.VATSealed, &c.VATNumber, "/vat_number"}} {
		if len(n.sealed) == 0 {
			continue
		}
		plain, err := s.box.Open(n.sealed, rowCtx+n.field)
		if err != nil {
			return Customer{}, apierr.Wrap(apierr.CustomerPersonalNumberUnreadable, err)
		}
		v := string(plain)
		*n.into = &v
	}
	return c, nil
}
