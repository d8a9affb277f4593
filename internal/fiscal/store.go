package fiscal

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/store"
)

// Store holds the SQL of fiscal_periods.
type Store struct {
	db    *store.DB
	audit *audit.Store
}

// NewStore returns the fiscal-period store on db.
func NewStore(db *store.DB, a *audit.Store) *Store { return &Store{db: db, audit: a} }

// Columns is the select list of a Period, for the packages that read a
// period in a query of their own (the ledger reads it with what a posting
// is checked against, in one round trip).
const Columns = `id, name, period_start, period_end, previous_period_id, locked_at, is_closed, closed_at,
	closed_externally, year_end_entry_id, year_end_at, created_at`

// List returns the company's periods, newest first.
func (s *Store) List(ctx context.Context, company uuid.UUID) ([]Period, error) {
	out := []Period{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+Columns+` FROM fiscal_periods
		WHERE company_id = $1 ORDER BY period_start DESC`, company)
	return out, err
}

// lockCompany serialises changes to one company's periods, so two
// requests cannot both place a year after the same latest one.
func (s *Store) lockCompany(ctx context.Context, company uuid.UUID) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `SELECT 1 FROM companies WHERE id = $1 FOR UPDATE`, company)
	return err
}

// Covering returns the company's period that holds day; a zero Period
// when none does.
func (s *Store) Covering(ctx context.Context, company uuid.UUID, day time.Time) (Period, error) {
	var p Period
	err := s.db.Q(ctx).GetContext(ctx, &p, `SELECT `+Columns+` FROM fiscal_periods
		WHERE company_id = $1 AND $2 BETWEEN period_start AND period_end`, company, day)
	if store.NotFound(err) {
		return Period{}, nil
	}
	return p, err
}

// Get returns the company's period id, PERIOD_NOT_FOUND when it has none
// by that id.
func (s *Store) Get(ctx context.Context, company, id uuid.UUID) (Period, error) {
	var p Period
	err := s.db.Q(ctx).GetContext(ctx, &p, `SELECT `+Columns+` FROM fiscal_periods
		WHERE company_id = $1 AND id = $2`, company, id)
	if store.NotFound(err) {
		return p, apierr.New(apierr.PeriodNotFound, map[string]any{"fiscal_period_id": id})
	}
	return p, err
}

// Open adds the period span named name to the company's years, in the
// transaction of ctx, after checking its shape and place. It returns the
// period and the one it follows (nil when it is the earliest).
func (s *Store) Open(ctx context.Context, company uuid.UUID, name string, span Span) (Period, *Period, error) {
	if err := s.lockCompany(ctx, company); err != nil {
		return Period{}, nil, err
	}
	others, err := s.List(ctx, company)
	if err != nil {
		return Period{}, nil, err
	}
	prev, err := Place(span, others)
	if err != nil {
		return Period{}, nil, err
	}
	if name == "" {
		name = span.Name()
	}
	var prevID *uuid.UUID
	if prev != nil {
		prevID = &prev.ID
	}
	var p Period
	if err := s.db.Q(ctx).GetContext(ctx, &p, `
		INSERT INTO fiscal_periods (company_id, name, period_start, period_end, previous_period_id)
		VALUES ($1, $2, $3, $4, $5) RETURNING `+Columns, company, name, span.Start, span.End, prevID); err != nil {
		return p, nil, err
	}
	if prev == nil && len(others) > 0 {
		// Opened before the earliest year: that year now follows this one.
		earliest := others[len(others)-1]
		if _, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE fiscal_periods SET previous_period_id = $3,
			updated_at = now() WHERE company_id = $1 AND id = $2`, company, earliest.ID, p.ID); err != nil {
			return p, nil, err
		}
	}
	return p, prev, s.record(ctx, company, audit.Insert, "Räkenskapsåret "+p.Name+" skapades", nil, &p)
}

// Update applies patch to the company's period id: refused for a locked
// or closed period, and for moved dates while the period has posted
// entries or drafts dated outside the new span. It reports whether the
// dates moved.
func (s *Store) Update(ctx context.Context, company, id uuid.UUID, patch Patch) (Period, bool, error) {
	if err := s.lockCompany(ctx, company); err != nil {
		return Period{}, false, err
	}
	cur, err := s.Get(ctx, company, id)
	if err != nil {
		return cur, false, err
	}
	if err := CheckChange(cur); err != nil {
		return cur, false, err
	}
	next := cur
	if patch.Name != nil {
		next.Name = *patch.Name
	}
	moved := patch.MovesDates(cur)
	if moved {
		if patch.Start != nil {
			next.Start = *patch.Start
		}
		if patch.End != nil {
			next.End = *patch.End
		}
		if err := s.checkMove(ctx, company, cur, next.Span()); err != nil {
			return cur, false, err
		}
		if patch.Name == nil && cur.Name == cur.Span().Name() {
			// A name the dates gave follows them.
			next.Name = next.Span().Name()
		}
	}
	var out Period
	if err := s.db.Q(ctx).GetContext(ctx, &out, `UPDATE fiscal_periods SET name = $3, period_start = $4,
		period_end = $5, updated_at = now() WHERE company_id = $1 AND id = $2 RETURNING `+Columns,
		company, id, next.Name, next.Start, next.End); err != nil {
		return out, false, err
	}
	return out, moved, s.record(ctx, company, audit.Update, "Räkenskapsåret "+out.Name+" ändrades", &cur, &out)
}

func (s *Store) checkMove(ctx context.Context, company uuid.UUID, cur Period, span Span) error {
	// The ledger's tables, read here only to refuse a move: dates are
	// fixed once the year has bookkeeping in it.
	var posted, outside int
	if err := s.db.Q(ctx).QueryRowxContext(ctx, `
		SELECT count(*) FILTER (WHERE status = 'posted'),
			count(*) FILTER (WHERE status = 'draft' AND NOT (entry_date BETWEEN $3 AND $4))
		FROM journal_entries WHERE company_id = $1 AND fiscal_period_id = $2`,
		company, cur.ID, span.Start, span.End).Scan(&posted, &outside); err != nil {
		return err
	}
	if posted > 0 {
		return apierr.New(apierr.FiscalPeriodHasPostedEntries, map[string]any{
			"fiscal_period_id": cur.ID, "posted_entries": posted})
	}
	if outside > 0 {
		return apierr.New(apierr.Conflict, map[string]any{"reason": "drafts_outside_period",
			"draft_entries": outside})
	}
	all, err := s.List(ctx, company)
	if err != nil {
		return err
	}
	others := make([]Period, 0, len(all))
	for _, p := range all {
		if p.ID != cur.ID {
			others = append(others, p)
		}
	}
	_, err = Place(span, others)
	return err
}

func (s *Store) record(ctx context.Context, company uuid.UUID, action audit.Action, desc string, old, new *Period) error {
	snap := func(p *Period) json.RawMessage {
		if p == nil {
			return nil
		}
		b, _ := json.Marshal(map[string]any{"id": p.ID, "name": p.Name, "period_start": date(p.Start),
			"period_end": date(p.End), "previous_period_id": p.PreviousID, "locked_at": stamp(p.LockedAt),
			"is_closed": p.Closed, "closed_at": stamp(p.ClosedAt), "year_end_entry_id": p.YearEndEntryID,
			"year_end_at": stamp(p.YearEndAt)})
		return b
	}
	id := ""
	if new != nil {
		id = new.ID.String()
	}
	return s.audit.Record(ctx, audit.Change{CompanyID: company, Action: action, Table: "fiscal_periods",
		RecordID: id, Description: desc, Old: snap(old), New: snap(new)})
}
