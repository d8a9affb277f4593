package vat

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/store"
)

// Filing is a VAT period on record as filed: through Skatteverket, or
// marked by hand after filing outside Kontera.
type Filing struct {
	ID         uuid.UUID  `db:"id" json:"id"`
	PeriodType string     `db:"period_type" json:"period_type"`
	Start      time.Time  `db:"period_start" json:"period_start"`
	End        time.Time  `db:"period_end" json:"period_end"`
	FiledOn    time.Time  `db:"filed_on" json:"filed_on"`
	Source     string     `db:"source" json:"source"`
	Reference  *string    `db:"reference" json:"reference"`
	DeadlineID *uuid.UUID `db:"deadline_id" json:"deadline_id"`
	// Snapshot is the return as filed: the boxes in whole kronor.
	Snapshot  Snapshot  `db:"snapshot" json:"snapshot"`
	CreatedAt time.Time `db:"created_at" json:"created_at"`
}

// Period is the VAT period the filing is of.
func (f Filing) Period() Period {
	p := Period{Type: f.PeriodType, Start: f.Start, End: f.End, Year: f.End.Year(), Number: 1}
	switch f.PeriodType {
	case Monthly:
		p.Year, p.Number = f.Start.Year(), int(f.Start.Month())
	case Quarterly:
		p.Year, p.Number = f.Start.Year(), (int(f.Start.Month())+2)/3
	}
	return p
}

// Snapshot is a return as it was filed: every box in whole kronor.
type Snapshot struct {
	Filed map[string]int64 `json:"filed"`
}

// Scan reads the jsonb column (NULL for a filing recorded before
// snapshots were kept).
func (s *Snapshot) Scan(src any) error {
	var b []byte
	switch v := src.(type) {
	case nil:
		*s = Snapshot{}
		return nil
	case []byte:
		b = v
	case string:
		b = []byte(v)
	}
	return json.Unmarshal(b, s)
}

// Store holds the SQL of vat_filings.
type Store struct {
	db    *store.DB
	audit *audit.Store
}

// NewStore returns the filings store on db.
func NewStore(db *store.DB, a *audit.Store) *Store { return &Store{db: db, audit: a} }

const filingColumns = `f.id, f.period_type, f.period_start, f.period_end, f.filed_on, f.source, f.reference,
	f.snapshot, f.created_at,
	(SELECT d.id FROM tax_deadlines d WHERE d.company_id = f.company_id AND d.deadline_type = 'vat_return'
		AND d.period_start = f.period_start AND d.period_end = f.period_end) AS deadline_id`

// Filings lists the company's filed VAT periods, oldest first.
func (s *Store) Filings(ctx context.Context, company uuid.UUID) ([]Filing, error) {
	out := []Filing{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+filingColumns+` FROM vat_filings f
		WHERE f.company_id = $1 ORDER BY f.period_start, f.period_end`, company)
	return out, err
}

// Filed returns the filing of period p, nil when it is not filed; lock
// holds the row for the rest of the transaction.
func (s *Store) Filed(ctx context.Context, company uuid.UUID, p Period, lock bool) (*Filing, error) {
	q := `SELECT ` + filingColumns + ` FROM vat_filings f
		WHERE f.company_id = $1 AND f.period_start = $2 AND f.period_end = $3`
	if lock {
		q += ` FOR UPDATE OF f`
	}
	var f Filing
	err := s.db.Q(ctx).GetContext(ctx, &f, q, company, p.Start, p.End)
	if store.NotFound(err) {
		return nil, nil
	}
	return &f, err
}

// Record writes the filing of period p, or changes its date and
// reference, keeping the return as it was first filed; it answers the
// filing and whether it was created or changed. A filing written by
// another request between the read and the write is a CONFLICT.
func (s *Store) Record(ctx context.Context, company uuid.UUID, p Period, filedOn time.Time, ref *string, snap Snapshot) (Filing, bool, bool, error) {
	old, err := s.Filed(ctx, company, p, true)
	if err != nil {
		return Filing{}, false, false, err
	}
	if old == nil {
		raw, _ := json.Marshal(snap)
		var id uuid.UUID
		err := s.db.Q(ctx).GetContext(ctx, &id, `
			INSERT INTO vat_filings (company_id, period_type, period_start, period_end, filed_on, source, reference, snapshot)
			VALUES ($1, $2, $3, $4, $5, 'manual', $6, $7)
			ON CONFLICT (company_id, period_start, period_end) DO NOTHING RETURNING id`,
			company, p.Type, p.Start, p.End, filedOn, ref, string(raw))
		if store.NotFound(err) {
			return Filing{}, false, false, apierr.New(apierr.Conflict, map[string]any{"reason": "filed_concurrently",
				"period_start": p.Start.Format(time.DateOnly), "period_end": p.End.Format(time.DateOnly)})
		}
		if err != nil {
			return Filing{}, false, false, err
		}
		f, err := s.Filed(ctx, company, p, false)
		if err != nil {
			return Filing{}, false, false, err
		}
		return *f, true, false, s.record(ctx, company, audit.Insert, "Momsperiod markerad som deklarerad", nil, f)
	}
	if old.FiledOn.Equal(filedOn) && same(old.Reference, ref) {
		return *old, false, false, nil
	}
	if _, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE vat_filings SET filed_on = $3, reference = $4, updated_at = now()
		WHERE company_id = $1 AND id = $2`, company, old.ID, filedOn, ref); err != nil {
		return Filing{}, false, false, err
	}
	f := *old
	f.FiledOn, f.Reference = filedOn, ref
	return f, false, true, s.record(ctx, company, audit.Update, "Deklarerad momsperiod ändrad", old, &f)
}

// Unmark removes the hand-made mark of period p:
// VAT_FILING_NOT_FOUND without one, VAT_FILING_CONFIRMED_BY_SKATTEVERKET
// for a filing Skatteverket confirmed.
func (s *Store) Unmark(ctx context.Context, company uuid.UUID, p Period) (Filing, error) {
	f, err := s.Filed(ctx, company, p, true)
	if err != nil {
		return Filing{}, err
	}
	if f == nil {
		return Filing{}, apierr.New(apierr.VATFilingNotFound, map[string]any{"period_type": p.Type,
			"period_start": p.Start.Format(time.DateOnly), "period_end": p.End.Format(time.DateOnly)})
	}
	if f.Source != "manual" {
		return *f, apierr.New(apierr.VATFilingConfirmedBySkatteverket, map[string]any{"filed_on": f.FiledOn.Format(time.DateOnly)})
	}
	if _, err := s.db.Q(ctx).ExecContext(ctx, `DELETE FROM vat_filings WHERE company_id = $1 AND id = $2`,
		company, f.ID); err != nil {
		return *f, err
	}
	return *f, s.record(ctx, company, audit.Delete, "Markering som deklarerad borttagen", f, nil)
}

func (s *Store) record(ctx context.Context, company uuid.UUID, action audit.Action, what string, old, new *Filing) error {
	c := audit.Change{CompanyID: company, Action: action, Table: "vat_filings", Description: what}
	if old != nil {
		c.RecordID, c.Old = old.ID.String(), snapshot(old)
	}
	if new != nil {
		c.RecordID, c.New = new.ID.String(), snapshot(new)
	}
	return s.audit.Record(ctx, c)
}

func snapshot(f *Filing) json.RawMessage {
	b, _ := json.Marshal(f)
	return b
}

func same(a, b *string) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}
