package dimensions

import (
	"context"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/store"
)

// Usage counts the lines of drafts and posted entries tagged with
// dimension dim (and value code, when not ""); the ledger answers it.
type Usage func(ctx context.Context, company uuid.UUID, dim int, code string) (int, error)

// Store holds the SQL of dimensions and dimension_values.
type Store struct {
	db    *store.DB
	audit *audit.Store
	usage Usage
}

// NewStore returns the store on db.
func NewStore(db *store.DB, a *audit.Store, usage Usage) *Store {
	return &Store{db: db, audit: a, usage: usage}
}

const (
	dimensionColumns = `company_id, id, sie_dim_no, name, parent_sie_dim_no, resets_annually, is_system, is_active,
		sort_order, created_at, updated_at`
	valueColumns = `company_id, id, dimension_id, code, name, is_active, start_date, end_date, created_at, updated_at`
)

// List returns the company's dimensions by sort_order, each with its
// values by code (compared byte for byte: codes are case-sensitive).
func (s *Store) List(ctx context.Context, company uuid.UUID) ([]Dimension, error) {
	var dims []Dimension
	q := s.db.Q(ctx)
	if err := q.SelectContext(ctx, &dims, `SELECT `+dimensionColumns+` FROM dimensions
		WHERE company_id = $1 ORDER BY sort_order, sie_dim_no`, company); err != nil {
		return nil, err
	}
	var values []Value
	if err := q.SelectContext(ctx, &values, `SELECT `+valueColumns+` FROM dimension_values
		WHERE company_id = $1 ORDER BY code COLLATE "C"`, company); err != nil {
		return nil, err
	}
	at := make(map[uuid.UUID]int, len(dims))
	for i := range dims {
		at[dims[i].ID] = i
		dims[i].Values = []Value{}
	}
	for _, v := range values {
		if i, ok := at[v.DimensionID]; ok {
			dims[i].Values = append(dims[i].Values, v)
		}
	}
	return dims, nil
}

// LockRegister holds the company's register until the transaction ends,
// so two dimensions created at once cannot both take the next free number.
func (s *Store) LockRegister(ctx context.Context, company uuid.UUID) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('dimensions:' || $1::text))`, company)
	return err
}

// Register returns the company's dimensions by number.
func (s *Store) Register(ctx context.Context, company uuid.UUID) (Register, error) {
	dims, err := s.List(ctx, company)
	r := make(Register, len(dims))
	for _, d := range dims {
		r[d.Number] = d
	}
	return r, err
}

// Check is the ledger's dimension check: the tags of lines dated day held
// to the company's register.
func (s *Store) Check(ctx context.Context, company uuid.UUID, day time.Time, tags []ledger.Dimensions) error {
	tagged := false
	for _, t := range tags {
		tagged = tagged || len(t) > 0
	}
	if !tagged {
		return nil
	}
	r, err := s.registerFor(ctx, company, tags)
	if err != nil {
		return err
	}
	return r.Check(day, tags)
}

// registerFor reads only the part of the register tags name: their
// dimensions, and of those only the values with the codes used. A company
// with thousands of projects pays for the few a verifikat carries.
func (s *Store) registerFor(ctx context.Context, company uuid.UUID, tags []ledger.Dimensions) (Register, error) {
	var numbers []int
	var codes []string
	for _, t := range tags {
		for k, v := range t {
			if n, err := strconv.Atoi(k); err == nil {
				numbers = append(numbers, n)
			}
			codes = append(codes, v)
		}
	}
	var dims []Dimension
	q := s.db.Q(ctx)
	if err := q.SelectContext(ctx, &dims, `SELECT `+dimensionColumns+` FROM dimensions
		WHERE company_id = $1 AND sie_dim_no = ANY($2)`, company, pq.Array(numbers)); err != nil {
		return nil, err
	}
	r := make(Register, len(dims))
	ids := make([]uuid.UUID, len(dims))
	for i, d := range dims {
		r[d.Number], ids[i] = d, d.ID
	}
	var values []Value
	if err := q.SelectContext(ctx, &values, `SELECT `+valueColumns+` FROM dimension_values
		WHERE company_id = $1 AND dimension_id = ANY($2) AND code = ANY($3)`, company, pq.Array(ids), pq.Array(codes)); err != nil {
		return nil, err
	}
	for _, d := range dims {
		for _, v := range values {
			if v.DimensionID == d.ID {
				d.Values = append(d.Values, v)
			}
		}
		r[d.Number] = d
	}
	return r, nil
}

// Dimension returns the company's dimension id with its values,
// DIMENSION_NOT_FOUND when there is none. With lock the row is held.
func (s *Store) Dimension(ctx context.Context, company, id uuid.UUID, lock bool) (Dimension, error) {
	var d Dimension
	q := `SELECT ` + dimensionColumns + ` FROM dimensions WHERE company_id = $1 AND id = $2`
	if lock {
		q += ` FOR UPDATE`
	}
	if err := s.db.Q(ctx).GetContext(ctx, &d, q, company, id); err != nil {
		if store.NotFound(err) {
			return d, apierr.New(apierr.DimensionNotFound, map[string]any{"dimension_id": id})
		}
		return d, err
	}
	d.Values = []Value{}
	err := s.db.Q(ctx).SelectContext(ctx, &d.Values, `SELECT `+valueColumns+` FROM dimension_values
		WHERE company_id = $1 AND dimension_id = $2 ORDER BY code COLLATE "C"`, company, id)
	return d, err
}

// Value returns the value id of the dimension d.
func (d Dimension) Value(id uuid.UUID) (Value, error) {
	for _, v := range d.Values {
		if v.ID == id {
			return v, nil
		}
	}
	return Value{}, apierr.New(apierr.DimensionValueNotFound, map[string]any{"dimension_id": d.ID, "value_id": id})
}

// InsertDimension stores the new dimension d and audits it.
func (s *Store) InsertDimension(ctx context.Context, d Dimension) (Dimension, error) {
	err := s.db.Q(ctx).GetContext(ctx, &d, `INSERT INTO dimensions (company_id, sie_dim_no, name, parent_sie_dim_no,
			resets_annually, sort_order) VALUES ($1, $2, $3, $4, $5, $6) RETURNING `+dimensionColumns,
		d.CompanyID, d.Number, d.Name, d.Parent, d.ResetsAnnually, d.SortOrder)
	if store.UniqueViolation(err, "") {
		return d, apierr.New(apierr.DimensionNumberTaken, map[string]any{"field": "sie_dim_no", "sie_dim_no": d.Number})
	}
	if err != nil {
		return d, err
	}
	d.Values = []Value{}
	return d, s.record(ctx, d.CompanyID, audit.Insert, "dimensions", d.ID, "Dimension "+strconv.Itoa(d.Number)+" "+d.Name+" skapades", nil, d)
}

// UpdateDimension stores d over old and audits the change.
func (s *Store) UpdateDimension(ctx context.Context, old, d Dimension) (Dimension, error) {
	values := d.Values
	err := s.db.Q(ctx).GetContext(ctx, &d, `UPDATE dimensions SET name = $3, is_active = $4, sort_order = $5,
			updated_at = now() WHERE company_id = $1 AND id = $2 RETURNING `+dimensionColumns,
		d.CompanyID, d.ID, d.Name, d.IsActive, d.SortOrder)
	if err != nil {
		return d, err
	}
	d.Values = values
	return d, s.record(ctx, d.CompanyID, audit.Update, "dimensions", d.ID, describe("Dimension "+strconv.Itoa(d.Number), old.IsActive, d.IsActive), old, d)
}

// DeleteDimension removes d with its values: never 1 or 6, never one a
// line carries.
func (s *Store) DeleteDimension(ctx context.Context, d Dimension) error {
	if d.IsSystem {
		return apierr.New(apierr.DimensionSystemDelete, map[string]any{"sie_dim_no": d.Number})
	}
	if n, err := s.usage(ctx, d.CompanyID, d.Number, ""); err != nil || n > 0 {
		if err == nil {
			err = apierr.New(apierr.DimensionInUse, map[string]any{"sie_dim_no": d.Number, "usage_count": n})
		}
		return err
	}
	var children int
	if err := s.db.Q(ctx).GetContext(ctx, &children, `SELECT count(*) FROM dimensions
		WHERE company_id = $1 AND parent_sie_dim_no = $2`, d.CompanyID, d.Number); err != nil || children > 0 {
		if err == nil {
			err = apierr.New(apierr.DimensionInUse, map[string]any{"sie_dim_no": d.Number, "reason": "parent_of_dimensions",
				"child_count": children})
		}
		return err
	}
	if _, err := s.db.Q(ctx).ExecContext(ctx, `DELETE FROM dimensions WHERE company_id = $1 AND id = $2`, d.CompanyID, d.ID); err != nil {
		return err
	}
	return s.record(ctx, d.CompanyID, audit.Delete, "dimensions", d.ID, "Dimension "+strconv.Itoa(d.Number)+" "+d.Name+" togs bort", d, nil)
}

// InsertValue stores the new value v of d and audits it.
func (s *Store) InsertValue(ctx context.Context, d Dimension, v Value) (Value, error) {
	err := s.db.Q(ctx).GetContext(ctx, &v, `INSERT INTO dimension_values (company_id, dimension_id, code, name, is_active,
			start_date, end_date) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING `+valueColumns,
		v.CompanyID, v.DimensionID, v.Code, v.Name, v.IsActive, v.Start, v.End)
	if store.UniqueViolation(err, "") {
		return v, apierr.New(apierr.DimensionValueDuplicateCode, map[string]any{"field": "code", "code": v.Code})
	}
	if err != nil {
		return v, err
	}
	return v, s.record(ctx, v.CompanyID, audit.Insert, "dimension_values", v.ID,
		"Värde "+v.Code+" i dimension "+strconv.Itoa(d.Number)+" skapades", nil, v)
}

// UpdateValue stores v over old and audits the change.
func (s *Store) UpdateValue(ctx context.Context, d Dimension, old, v Value) (Value, error) {
	err := s.db.Q(ctx).GetContext(ctx, &v, `UPDATE dimension_values SET name = $3, is_active = $4, start_date = $5,
			end_date = $6, updated_at = now() WHERE company_id = $1 AND id = $2 RETURNING `+valueColumns,
		v.CompanyID, v.ID, v.Name, v.IsActive, v.Start, v.End)
	if err != nil {
		return v, err
	}
	return v, s.record(ctx, v.CompanyID, audit.Update, "dimension_values", v.ID,
		describe("Värde "+v.Code+" i dimension "+strconv.Itoa(d.Number), old.IsActive, v.IsActive), old, v)
}

// DeleteValue removes v of d unless a line carries it.
func (s *Store) DeleteValue(ctx context.Context, d Dimension, v Value) error {
	n, err := s.usage(ctx, d.CompanyID, d.Number, v.Code)
	if err != nil {
		return err
	}
	if n > 0 {
		return apierr.New(apierr.DimensionValueInUse, map[string]any{"sie_dim_no": d.Number, "code": v.Code, "usage_count": n})
	}
	if _, err := s.db.Q(ctx).ExecContext(ctx, `DELETE FROM dimension_values WHERE company_id = $1 AND id = $2`,
		v.CompanyID, v.ID); err != nil {
		return err
	}
	return s.record(ctx, v.CompanyID, audit.Delete, "dimension_values", v.ID,
		"Värde "+v.Code+" i dimension "+strconv.Itoa(d.Number)+" togs bort", v, nil)
}

// describe names a change for the audit trail: archived, re-activated or
// changed.
func describe(what string, wasActive, isActive bool) string {
	switch {
	case wasActive && !isActive:
		return what + " arkiverades"
	case !wasActive && isActive:
		return what + " återaktiverades"
	}
	return what + " ändrades"
}

func (s *Store) record(ctx context.Context, company uuid.UUID, action audit.Action, table string, id uuid.UUID, desc string, old, new any) error {
	return s.audit.Record(ctx, audit.Change{CompanyID: company, Action: action, Table: table, RecordID: id.String(),
		Description: desc, Old: audit.Of(old), New: audit.Of(new)})
}
