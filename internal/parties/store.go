package parties

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/identifier"
	"github.com/kontera/kontera/internal/seal"
	"github.com/kontera/kontera/internal/store"
)

// Store holds the SQL of parties, customers and suppliers.
type Store struct {
	db    *store.DB
	audit *audit.Store
	box   *seal.Box
}

// NewStore returns the store on db; box seals personnummer.
func NewStore(db *store.DB, a *audit.Store, box *seal.Box) *Store {
	return &Store{db: db, audit: a, box: box}
}

// Filter narrows a list of customers or suppliers.
type Filter struct {
	Type            string // "" = every type
	Search          string // "" = no search
	IncludeArchived bool
}

// searchClause is the WHERE part of a search: the name contains the text,
// case-insensitively (folded in Go, Å as å), or — when the text has a
// digit — the organisation number starts with it, both compared without
// separators so "5563343689" finds "556334-3689". A sole trader's sealed
// number is found by the whole number only: sealed is its token when the
// text is a personnummer, else "".
func searchClause(f Filter, args *[]any, sealed string) string {
	if f.Search == "" {
		return ""
	}
	*args = append(*args, "%"+store.EscapeLike(store.Fold(f.Search))+"%")
	clause := ` AND (search_name LIKE $` + strconv.Itoa(len(*args))
	if c := compact(f.Search); strings.ContainsAny(c, "0123456789") {
		*args = append(*args, c+"%")
		clause += ` OR org_key LIKE $` + strconv.Itoa(len(*args))
	}
	if sealed != "" {
		*args = append(*args, sealed)
		clause += ` OR org_number = $` + strconv.Itoa(len(*args))
	}
	return clause + `)`
}

// sealedSearch is the token a search for a whole personnummer finds a
// sole trader's sealed organisation number by, or "".
func (s *Store) sealedSearch(text string) string {
	pn, err := identifier.PersonalNumber(strings.TrimSpace(text))
	if err != nil || !isPersonal(text) {
		return ""
	}
	return s.box.Token(kindOrg, compact(pn))
}

// orgKey is an organisation number as searches compare it.
func orgKey(org *string) *string {
	if org == nil || sealedNumber(org) {
		return nil // a sealed number is not searched by its digits
	}
	k := compact(*org)
	return &k
}

// list runs a page query over table with the filter's conditions, oldest
// first by (created_at, id).
func list[T any](ctx context.Context, s *Store, table, typeColumn, columns string, company uuid.UUID, f Filter, after *cursor.Position, limit int) ([]T, error) {
	at, id := time.Time{}, uuid.Nil
	if after != nil {
		at, id = after.At, after.ID
	}
	args := []any{company, at, id, limit + 1}
	q := `SELECT ` + columns + ` FROM ` + table + ` WHERE company_id = $1 AND (created_at, id) > ($2, $3)`
	if !f.IncludeArchived {
		q += ` AND archived_at IS NULL`
	}
	if f.Type != "" {
		args = append(args, f.Type)
		q += ` AND ` + typeColumn + ` = $` + strconv.Itoa(len(args))
	}
	q += searchClause(f, &args, s.sealedSearch(f.Search)) + ` ORDER BY created_at, id LIMIT $4`
	var out []T
	err := s.db.Q(ctx).SelectContext(ctx, &out, q, args...)
	return out, err
}

// linkParty returns the id of the party with identity, making it (or
// renaming it to name) as needed; nil when identity is "".
func (s *Store) linkParty(ctx context.Context, company uuid.UUID, identity, name string, org, vat *string, country string) (*uuid.UUID, error) {
	if identity == "" {
		return nil, nil
	}
	var id uuid.UUID
	err := s.db.Q(ctx).GetContext(ctx, &id, `
		INSERT INTO parties (company_id, identity, legal_name, org_number, vat_number, country)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (company_id, identity) DO UPDATE SET legal_name = EXCLUDED.legal_name,
			vat_number = coalesce(EXCLUDED.vat_number, parties.vat_number), updated_at = now()
		RETURNING id`, company, identity, name, org, vat, country)
	return &id, err
}

// Party returns the company's party id with the records that hold it.
func (s *Store) Party(ctx context.Context, company, id uuid.UUID) (Party, error) {
	var p Party
	err := s.db.Q(ctx).GetContext(ctx, &p, `
		SELECT p.company_id, p.id, p.legal_name, p.org_number, p.vat_number, p.country, p.created_at,
			(SELECT c.id FROM customers c WHERE c.company_id = p.company_id AND c.party_id = p.id
				ORDER BY c.archived_at IS NOT NULL, c.created_at LIMIT 1) AS customer_id,
			(SELECT s.id FROM suppliers s WHERE s.company_id = p.company_id AND s.party_id = p.id
				ORDER BY s.archived_at IS NOT NULL, s.created_at LIMIT 1) AS supplier_id
		FROM parties p WHERE p.company_id = $1 AND p.id = $2`, company, id)
	return p, err
}

// orgTaken answers code (naming the holder under key) when another record
// of table (customers or suppliers) in the company holds org. The unique
// index holds the rule too; asking first names the record to use instead.
func (s *Store) orgTaken(ctx context.Context, table string, company uuid.UUID, org *string, except uuid.UUID, code apierr.Code, key string) error {
	if org == nil {
		return nil
	}
	var other []uuid.UUID
	err := s.db.Q(ctx).SelectContext(ctx, &other, `SELECT id FROM `+table+`
		WHERE company_id = $1 AND org_number = $2 AND id <> $3 LIMIT 1`, company, *org, except)
	if err != nil || len(other) == 0 {
		return err
	}
	return duplicate(code, key, other[0])
}

// record writes the audit row of a change to table.
func (s *Store) record(ctx context.Context, company uuid.UUID, action audit.Action, table string, id uuid.UUID, desc string, old, new any) error {
	return s.audit.Record(ctx, audit.Change{CompanyID: company, Action: action, Table: table, RecordID: id.String(),
		Description: desc, Old: audit.Of(old), New: audit.Of(new)})
}

// notFound maps a missing row to code, naming the id asked for under key
// (customer_id, supplier_id): which of a request's ids names nothing.
func notFound(err error, code apierr.Code, key string, id uuid.UUID) error {
	if store.NotFound(err) {
		return apierr.New(code, map[string]any{key: id})
	}
	return err
}

// PartyName returns the name of the company's customer or supplier (the
// one given), archived or not: what the ledger keeps as a verifikat's
// counterparty. CUSTOMER_NOT_FOUND or SUPPLIER_NOT_FOUND when there is
// none.
func (s *Store) PartyName(ctx context.Context, company uuid.UUID, customer, supplier *uuid.UUID) (string, error) {
	table, code, key, id := "customers", apierr.CustomerNotFound, "customer_id", customer
	if supplier != nil {
		table, code, key, id = "suppliers", apierr.SupplierNotFound, "supplier_id", supplier
	}
	var name string
	err := s.db.Q(ctx).GetContext(ctx, &name, `SELECT name FROM `+table+` WHERE company_id = $1 AND id = $2`, company, *id)
	return name, notFound(err, code, key, *id)
}
