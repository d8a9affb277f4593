package parties

import (
	"context"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/store"
)

const supplierColumns = `company_id, id, name, supplier_type, email, phone, address_line1, address_line2, postal_code,
	city, country, org_number, vat_number, bankgiro, plusgiro, bank_account, iban, bic, clearing_number, account_number,
	default_expense_account, default_payment_terms, default_currency, notes, party_id, archived_at, created_at, updated_at`

// Supplier returns the company's supplier id, archived or not;
// SUPPLIER_NOT_FOUND when there is none.
func (s *Store) Supplier(ctx context.Context, company, id uuid.UUID, lock bool) (Supplier, error) {
	var sup Supplier
	q := `SELECT ` + supplierColumns + ` FROM suppliers WHERE company_id = $1 AND id = $2`
	if lock {
		q += ` FOR UPDATE`
	}
	err := s.db.Q(ctx).GetContext(ctx, &sup, q, company, id)
	return sup, notFound(err, apierr.SupplierNotFound, "supplier_id", id)
}

// Suppliers returns up to limit+1 suppliers after the position after.
func (s *Store) Suppliers(ctx context.Context, company uuid.UUID, f Filter, after *cursor.Position, limit int) ([]Supplier, error) {
	return list[Supplier](ctx, s, "suppliers", "supplier_type", supplierColumns, company, f, after, limit)
}

// supplierWithOrg: no other supplier of the company holds its org_number.
func (s *Store) supplierWithOrg(ctx context.Context, sup Supplier) error {
	return s.orgTaken(ctx, "suppliers", sup.CompanyID, sup.OrgNumber, sup.ID,
		apierr.SupplierDuplicateOrgNumber, "existing_supplier_id")
}

// InsertSupplier stores a new supplier, links its party and audits it.
func (s *Store) InsertSupplier(ctx context.Context, sup Supplier) (Supplier, error) {
	return s.writeSupplier(ctx, nil, sup, "Leverantören "+sup.Name+" skapades")
}

// UpdateSupplier stores sup over old (as read under lock) and audits it.
func (s *Store) UpdateSupplier(ctx context.Context, old, sup Supplier, desc string) (Supplier, error) {
	return s.writeSupplier(ctx, &old, sup, desc)
}

func (s *Store) writeSupplier(ctx context.Context, old *Supplier, sup Supplier, desc string) (Supplier, error) {
	numbers := s.sealNumbers("suppliers/"+sup.CompanyID.String()+"/"+sup.ID.String(), &sup.OrgNumber, &sup.VATNumber)
	if old == nil || !same(old.OrgNumber, sup.OrgNumber) {
		if err := s.supplierWithOrg(ctx, sup); err != nil {
			return sup, err
		}
	}
	var err error
	sup.PartyID, err = s.linkParty(ctx, sup.CompanyID, Identity(sup.Country, sup.OrgNumber, sup.VATNumber),
		sup.Name, sup.OrgNumber, sup.VATNumber, sup.Country)
	if err != nil {
		return sup, err
	}
	args := []any{sup.CompanyID, sup.ID, sup.Name, sup.Type, sup.Email, sup.Phone, sup.Line1, sup.Line2,
		sup.PostalCode, sup.City, sup.Country, sup.OrgNumber, sup.VATNumber, sup.Bankgiro, sup.Plusgiro,
		sup.BankAccount, sup.IBAN, sup.BIC, sup.ClearingNumber, sup.AccountNumber, sup.ExpenseAccount,
		sup.PaymentTerms, sup.Currency, sup.Notes, sup.PartyID, sup.ArchivedAt, store.Fold(sup.Name), orgKey(sup.OrgNumber),
		numbers.org, numbers.vat, numbers.keepOrg, numbers.keepVAT}
	q := `INSERT INTO suppliers (company_id, id, name, supplier_type, email, phone, address_line1, address_line2,
			postal_code, city, country, org_number, vat_number, bankgiro, plusgiro, bank_account, iban, bic,
			clearing_number, account_number, default_expense_account, default_payment_terms, default_currency,
			notes, party_id, archived_at, search_name, org_key, org_number_sealed, vat_number_sealed)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21,
			$22, $23, $24, $25, $26, $27, $28, $29, $30)`
	action := audit.Insert
	if old == nil {
		args = args[:30] // whether to keep what is sealed speaks only to an update
	} else {
		action = audit.Update
		q += ` ON CONFLICT (company_id, id) DO UPDATE SET name = $3, supplier_type = $4, email = $5, phone = $6,
			address_line1 = $7, address_line2 = $8, postal_code = $9, city = $10, country = $11, org_number = $12,
			vat_number = $13, bankgiro = $14, plusgiro = $15, bank_account = $16, iban = $17, bic = $18,
			clearing_number = $19, account_number = $20, default_expense_account = $21, default_payment_terms = $22,
			default_currency = $23, notes = $24, party_id = $25, archived_at = $26, search_name = $27, org_key = $28,
			org_number_sealed = CASE WHEN $31 THEN suppliers.org_number_sealed ELSE $29 END,
			vat_number_sealed = CASE WHEN $32 THEN suppliers.vat_number_sealed ELSE $30 END,
			updated_at = clock_timestamp()`
	}
	err = s.db.Q(ctx).GetContext(ctx, &sup, q+` RETURNING `+supplierColumns, args...)
	if store.UniqueViolation(err, "suppliers_org_number") {
		return sup, duplicate(apierr.SupplierDuplicateOrgNumber, "", uuid.Nil)
	}
	if err != nil {
		return sup, err
	}
	var before any
	if old != nil {
		before = *old
	}
	return sup, s.record(ctx, sup.CompanyID, action, "suppliers", sup.ID, desc, before, sup)
}

// HoldSupplier answers an active supplier of the company and holds its
// row (FOR KEY SHARE) until the transaction ends: it is not archived
// while a supplier invoice of it is being registered, and others holding
// it the same way go on alongside. A supplier the company does not have,
// or has archived, is SUPPLIER_NOT_FOUND.
func (s *Store) HoldSupplier(ctx context.Context, company, id uuid.UUID) (Supplier, error) {
	var sup Supplier
	err := s.db.Q(ctx).GetContext(ctx, &sup, `SELECT `+supplierColumns+` FROM suppliers
		WHERE company_id = $1 AND id = $2 FOR KEY SHARE`, company, id)
	if err = notFound(err, apierr.SupplierNotFound, "supplier_id", id); err != nil {
		return sup, err
	}
	if sup.ArchivedAt != nil {
		return sup, apierr.New(apierr.SupplierNotFound, map[string]any{"supplier_id": id, "reason": "archived"})
	}
	return sup, nil
}

// Matching answers the company's active suppliers holding the
// organisation number, VAT number or bankgiro given (each compared
// without its separators): how an inbox item finds its supplier. A
// sealed number (a sole trader's personnummer) is not compared.
func (s *Store) Matching(ctx context.Context, company uuid.UUID, org, vat, bankgiro *string) ([]uuid.UUID, error) {
	c := func(p *string) *string {
		if p == nil {
			return nil
		}
		v := compact(*p)
		return &v
	}
	out := []uuid.UUID{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT id FROM suppliers WHERE company_id = $1 AND archived_at IS NULL
		AND (org_key = $2 OR upper(regexp_replace(vat_number, '[^A-Za-z0-9]', '', 'g')) = $3
			OR regexp_replace(bankgiro, '[^0-9]', '', 'g') = $4)
		ORDER BY id`, company, c(org), c(vat), c(bankgiro))
	return out, err
}
