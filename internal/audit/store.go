package audit

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/store"
)

// Store holds the SQL of audit_entries.
type Store struct{ db *store.DB }

// NewStore returns the audit store on db.
func NewStore(db *store.DB) *Store { return &Store{db: db} }

// Record writes c in the transaction of ctx, with the actor of ctx: at
// the unit of work's end, with its other append-only rows (store.Append).
func (s *Store) Record(ctx context.Context, c Change) error {
	return s.db.Append(ctx, row(ctx, c))
}

// RecordKept is Record for a refusal's own audit row (a blocked deletion):
// written even when the refusal rolls back the rest (store.Keep).
func (s *Store) RecordKept(ctx context.Context, c Change) error {
	return s.db.Keep(ctx, row(ctx, c))
}

func row(ctx context.Context, c Change) store.Append {
	a := ActorFrom(ctx)
	var rid *string
	if a.RequestID != "" {
		rid = &a.RequestID
	}
	return store.Append{
		Into: `audit_entries (company_id, action, table_name, record_id, actor_type, actor_id, actor_label,
			user_id, request_id, description, old_state, new_state, changed_fields, actor_email)`,
		Values: `($1, $2, NULLIF($3, ''), NULLIF($4, ''), $5, $6, $7, $8, $9, NULLIF($10, ''), $11::jsonb, $12::jsonb, $13::text[], NULLIF($14, ''))`,
		Args: []any{c.CompanyID, c.Action, c.Table, c.RecordID, a.Type, a.ID, a.Label, a.UserID, rid, c.Description,
			nullJSON(c.Old), nullJSON(c.New), pq.StringArray(fields(c)), a.Email}}
}

// fields are c's changed fields: the caller's, or compared.
func fields(c Change) []string {
	if c.Fields != nil {
		return c.Fields
	}
	return ChangedFields(c.Old, c.New)
}

// nullJSON passes a snapshot as text: with binary parameters on, []byte
// would be sent as binary jsonb, which it is not.
func nullJSON(b json.RawMessage) any {
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	return string(b)
}

// Entry is a row of the audit trail.
type Entry struct {
	ID            uuid.UUID      `db:"id"`
	Action        Action         `db:"action"`
	Table         *string        `db:"table_name"`
	RecordID      *string        `db:"record_id"`
	ActorType     *string        `db:"actor_type"`
	ActorLabel    *string        `db:"actor_label"`
	ActorUserID   *uuid.UUID     `db:"user_id"`
	ActorEmail    *string        `db:"actor_email"`
	Description   *string        `db:"description"`
	Old           []byte         `db:"old_state"` // NULL scans as nil
	New           []byte         `db:"new_state"`
	ChangedFields pq.StringArray `db:"changed_fields"`
	CreatedAt     time.Time      `db:"created_at"`
}

// Filter selects entries of one company; zero fields select everything.
type Filter struct {
	Action   Action
	Table    string
	RecordID string
	From     *time.Time // created_at on or after
	To       *time.Time // created_at before
	// After is the keyset position of the previous page's last entry: the
	// trail is newest first, by (created_at, id) descending.
	After *cursor.Position
	Limit int
}

// List returns up to f.Limit+1 entries of company matching f, newest first;
// the extra one tells the caller another page exists.
func (s *Store) List(ctx context.Context, company uuid.UUID, f Filter) ([]Entry, error) {
	var (
		where = []string{"company_id = $1"}
		args  = []any{company}
	)
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "?", "$"+strconv.Itoa(len(args))))
	}
	if f.Action != "" {
		add("action = ?", f.Action)
	}
	if f.Table != "" {
		add("table_name = ?", f.Table)
	}
	if f.RecordID != "" {
		add("record_id = ?", f.RecordID)
	}
	if f.From != nil {
		add("created_at >= ?", *f.From)
	}
	if f.To != nil {
		add("created_at < ?", *f.To)
	}
	if f.After != nil {
		args = append(args, f.After.At, f.After.ID)
		n := len(args)
		where = append(where, "(created_at, id) < ($"+strconv.Itoa(n-1)+", $"+strconv.Itoa(n)+")")
	}
	args = append(args, f.Limit+1)
	var out []Entry
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		SELECT id, action, table_name, record_id, actor_type, actor_label, user_id, actor_email, description,
		       old_state, new_state, changed_fields, created_at
		FROM audit_entries WHERE `+strings.Join(where, " AND ")+`
		ORDER BY created_at DESC, id DESC LIMIT $`+strconv.Itoa(len(args)), args...)
	return out, err
}

// Chronicle returns up to limit+1 entries of company created from..to (to
// exclusive), oldest first, after the position after (nil: from the
// first): of the tables listed, or with except of every other table
// (nil tables and no except: every entry).
func (s *Store) Chronicle(ctx context.Context, company uuid.UUID, from, to time.Time, tables []string, except bool,
	after *cursor.Position, limit int) ([]Entry, error) {
	at, id := from.Add(-time.Microsecond), uuid.Nil
	if after != nil {
		at, id = after.At, after.ID
	}
	var out []Entry
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		SELECT id, action, table_name, record_id, actor_type, actor_label, user_id, actor_email, description,
		       NULL::jsonb AS old_state, NULL::jsonb AS new_state, changed_fields, created_at
		FROM audit_entries
		WHERE company_id = $1 AND created_at >= $2 AND created_at < $3 AND (created_at, id) > ($4, $5)
			AND ($6::text[] IS NULL OR (coalesce(table_name, '') = ANY($6)) <> $7)
		ORDER BY created_at, id LIMIT $8`, company, from, to, at, id, tablesArg(tables), except, limit+1)
	return out, err
}

func tablesArg(tables []string) any {
	if tables == nil {
		return nil
	}
	return pq.StringArray(tables)
}

// Tally counts the entries of company created from..to (to exclusive)
// per table ("" for none).
func (s *Store) Tally(ctx context.Context, company uuid.UUID, from, to time.Time) (map[string]int, error) {
	var rows []struct {
		Table string `db:"t"`
		N     int    `db:"n"`
	}
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT coalesce(table_name, '') AS t, count(*) AS n FROM audit_entries
		WHERE company_id = $1 AND created_at >= $2 AND created_at < $3 GROUP BY 1`, company, from, to)
	out := map[string]int{}
	for _, r := range rows {
		out[r.Table] = r.N
	}
	return out, err
}
