package company

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/store"
)

// Store holds the SQL of companies and company_settings.
type Store struct {
	db    *store.DB
	audit *audit.Store
	books Books
}

// NewStore returns the company store on db.
func NewStore(db *store.DB, a *audit.Store, books Books) *Store {
	return &Store{db: db, audit: a, books: books}
}

const columns = `id, name, entity_type, org_number, team_id, created_at`

// Insert stores c and audits it, in the transaction of ctx. It returns c
// with its id and creation time.
func (s *Store) Insert(ctx context.Context, c Company, createdBy uuid.UUID) (Company, error) {
	var row struct {
		Company
		Snapshot []byte `db:"snapshot"`
	}
	err := s.db.Q(ctx).GetContext(ctx, &row, `
		INSERT INTO companies AS c (name, entity_type, org_number, first_fiscal_year_start, first_fiscal_year_end,
			team_id, created_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		RETURNING `+columns+`, to_jsonb(c) AS snapshot`,
		c.Name, c.EntityType, c.OrgNumber, c.FirstYear.Start, c.FirstYear.End, c.TeamID, createdBy)
	if err != nil {
		return Company{}, err
	}
	out := c
	out.ID, out.CreatedAt = row.ID, row.CreatedAt
	if err := s.insertSettings(ctx, out); err != nil {
		return out, err
	}
	err = s.audit.Record(ctx, audit.Change{CompanyID: out.ID, Action: audit.Insert, Table: "companies",
		RecordID: out.ID.String(), Description: "Företaget " + out.Name + " skapades", New: row.Snapshot})
	return out, err
}

// List returns up to limit+1 of the non-archived companies among ids,
// oldest first, after the position after (nil for the first page).
func (s *Store) List(ctx context.Context, ids []uuid.UUID, after *cursor.Position, limit int) ([]Company, error) {
	var out []Company
	at, id := time.Time{}, uuid.Nil
	if after != nil {
		at, id = after.At, after.ID
	}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		SELECT `+columns+` FROM companies
		WHERE id = ANY($1) AND archived_at IS NULL AND (created_at, id) > ($2, $3)
		ORDER BY created_at, id LIMIT $4`, pq.Array(ids), at, id, limit+1)
	return out, err
}

// Numbers answers whether company id exists and its own identifiers: its
// organisation number and the VAT number made of it (SE…01), which a
// document the company receives names besides its sender's.
func (s *Store) Numbers(ctx context.Context, id uuid.UUID) (bool, []string, error) {
	var orgs []sql.NullString
	if err := s.db.Q(ctx).SelectContext(ctx, &orgs, `SELECT org_number FROM companies WHERE id = $1`, id); err != nil || len(orgs) == 0 {
		return false, nil, err
	}
	if !orgs[0].Valid {
		return true, nil, nil
	}
	org := orgs[0].String
	return true, []string{org, "SE" + strings.ReplaceAll(org, "-", "") + "01"}, nil
}
