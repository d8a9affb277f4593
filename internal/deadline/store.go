package deadline

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/store"
)

// Store holds the SQL of tax_deadlines.
type Store struct{ db *store.DB }

// NewStore returns the deadline store on db.
func NewStore(db *store.DB) *Store { return &Store{db: db} }

// Replace makes ds the company's deadlines for the fiscal years they
// belong to, in the transaction of ctx. Deadlines of closed years stay as
// they were, and so does a VAT return already filed.
func (s *Store) Replace(ctx context.Context, company uuid.UUID, ds []Deadline) error {
	q := s.db.Q(ctx)
	if _, err := q.ExecContext(ctx, `
		DELETE FROM tax_deadlines d USING fiscal_periods p
		WHERE d.company_id = $1 AND p.id = d.fiscal_period_id AND NOT p.is_closed AND d.deadline_type <> 'agi'
			AND NOT EXISTS (SELECT 1 FROM vat_filings f WHERE d.deadline_type = 'vat_return'
				AND f.company_id = d.company_id AND f.period_start = d.period_start AND f.period_end = d.period_end)`,
		company); err != nil {
		return err
	}
	if len(ds) == 0 {
		return nil
	}
	n := len(ds)
	typ, form, kind, label := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	start, end, due := make([]string, n), make([]string, n), make([]string, n)
	fp := make([]string, n)
	for i, d := range ds {
		typ[i], form[i], kind[i], label[i] = d.Type, d.Form, d.PeriodType, d.TaxPeriod
		start[i], end[i], due[i] = d.Start.Format(time.DateOnly), d.End.Format(time.DateOnly), d.Due.Format(time.DateOnly)
		fp[i] = d.FiscalPeriodID.String()
	}
	_, err := q.ExecContext(ctx, `
		INSERT INTO tax_deadlines (company_id, deadline_type, form, period_type, tax_period, period_start, period_end,
			due_date, fiscal_period_id)
		SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::date[], $7::date[], $8::date[],
			$9::uuid[])
		ON CONFLICT (company_id, deadline_type, period_start, period_end) DO NOTHING`,
		company, pq.Array(typ), pq.Array(form), pq.Array(kind), pq.Array(label), pq.Array(start), pq.Array(end),
		pq.Array(due), pq.Array(fp))
	return err
}

// AddAGI adds the arbetsgivardeklaration of a month (the payment month)
// due on due, in the fiscal year holding the month's last day; a month
// outside every fiscal year, or already there, adds nothing.
func (s *Store) AddAGI(ctx context.Context, company uuid.UUID, year int, month time.Month, due time.Time) error {
	start := time.Date(year, month, 1, 0, 0, 0, 0, time.UTC)
	end := start.AddDate(0, 1, -1)
	_, err := s.db.Q(ctx).ExecContext(ctx, `
		INSERT INTO tax_deadlines (company_id, deadline_type, form, period_type, tax_period, period_start, period_end,
			due_date, fiscal_period_id)
		SELECT $1, 'agi', 'AGI', 'monthly', $2, $3, $4, $5, p.id FROM fiscal_periods p
		WHERE p.company_id = $1 AND $4 BETWEEN p.period_start AND p.period_end
		ON CONFLICT (company_id, deadline_type, period_start, period_end) DO NOTHING`,
		company, start.Format("2006-01"), start, end, due)
	return err
}

// Listed is a deadline as listed: with its id and status.
type Listed struct {
	ID uuid.UUID `db:"id"`
	Deadline
	// Status is filed (a VAT return on record), overdue or upcoming.
	Status  string     `db:"status"`
	FiledOn *time.Time `db:"filed_on"`
}

// Filter narrows a listing; empty fields match everything.
type Filter struct {
	Type, Status string
}

// List returns the company's deadlines by due date, with their status on
// today.
func (s *Store) List(ctx context.Context, company uuid.UUID, today time.Time, f Filter) ([]Listed, error) {
	out := []Listed{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		SELECT * FROM (
			SELECT d.id, d.deadline_type, d.form, d.period_type, d.tax_period, d.period_start, d.period_end,
				d.due_date, d.fiscal_period_id, f.filed_on,
				CASE WHEN f.id IS NOT NULL THEN 'filed' WHEN d.due_date < $2 THEN 'overdue' ELSE 'upcoming' END
					AS status
			FROM tax_deadlines d
			LEFT JOIN vat_filings f ON d.deadline_type = 'vat_return' AND f.company_id = d.company_id
				AND f.period_start = d.period_start AND f.period_end = d.period_end
			WHERE d.company_id = $1) x
		WHERE ($3 = '' OR deadline_type = $3) AND ($4 = '' OR status = $4)
		ORDER BY due_date, deadline_type, period_start`, company, today, f.Type, f.Status)
	return out, err
}

// WithoutAnnualReport answers up to limit aktiebolag with an open fiscal
// year that has no annual report deadline: those whose deadlines were
// generated before the annual report was one, to be generated again.
func (s *Store) WithoutAnnualReport(ctx context.Context, limit int) ([]uuid.UUID, error) {
	var out []uuid.UUID
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT DISTINCT c.id FROM companies c
		JOIN fiscal_periods p ON p.company_id = c.id AND NOT p.is_closed
		WHERE c.entity_type = 'aktiebolag' AND NOT EXISTS (SELECT FROM tax_deadlines d
			WHERE d.company_id = c.id AND d.fiscal_period_id = p.id AND d.deadline_type = 'annual_report')
		LIMIT $1`, limit)
	return out, err
}

// Next is a company's next deadline: its earliest VAT return not filed,
// however late, or other return not yet due, whichever is first.
type Next struct {
	Company   uuid.UUID `db:"company_id"`
	Type      string    `db:"deadline_type"`
	Form      string    `db:"form"`
	TaxPeriod string    `db:"tax_period"`
	Due       time.Time `db:"due_date"`
}

// NextOf answers the next deadline of each company of ids that has one,
// on day today. A VAT return is known to be filed; the other returns are
// not, so they count only until they are due.
func (s *Store) NextOf(ctx context.Context, ids []uuid.UUID, today time.Time) (map[uuid.UUID]Next, error) {
	var rows []Next
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `
		SELECT DISTINCT ON (d.company_id) d.company_id, d.deadline_type, d.form, d.tax_period, d.due_date
		FROM tax_deadlines d
		WHERE d.company_id = ANY($1) AND (d.due_date >= $2 OR d.deadline_type = 'vat_return')
		  AND NOT EXISTS (SELECT 1 FROM vat_filings f WHERE d.deadline_type = 'vat_return'
			AND f.company_id = d.company_id AND f.period_start = d.period_start AND f.period_end = d.period_end)
		ORDER BY d.company_id, d.due_date, d.deadline_type`, pq.Array(ids), today.Format(time.DateOnly))
	return store.Index(rows, func(r Next) uuid.UUID { return r.Company }), err
}
