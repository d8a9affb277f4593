package payroll

import (
	"context"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/money"
)

// MaxAbsenceDays is the longest range one absence request reads or
// writes, both ends counted.
const MaxAbsenceDays = 92

// AbsenceRange is the days from From through To, refused past 92 days
// (ABSENCE_RANGE_TOO_LARGE) or backwards.
func AbsenceRange(from, to time.Time) error {
	if to.Before(from) {
		return apierr.Validation(apierr.Issue{Field: "to", In: "query", Rule: "after_from", Issue: "to is before from"})
	}
	if days := int(to.Sub(from).Hours()/24) + 1; days > MaxAbsenceDays {
		return apierr.New(apierr.AbsenceRangeTooLarge, map[string]any{"from": from.Format(time.DateOnly),
			"to": to.Format(time.DateOnly), "days": days, "max_days": MaxAbsenceDays})
	}
	return nil
}

const absenceColumns = `id, absence_date, absence_type, hours, notes`

// Absence lists the employee's absence from from through to, of typ or
// all types ("").
func (p *Payroll) Absence(ctx context.Context, company, employee uuid.UUID, from, to time.Time, typ string) ([]Absence, error) {
	if err := AbsenceRange(from, to); err != nil {
		return nil, err
	}
	if _, err := p.Employee(ctx, company, employee, false); err != nil {
		return nil, err
	}
	return p.absence(ctx, company, employee, from, to, typ)
}

func (p *Payroll) absence(ctx context.Context, company, employee uuid.UUID, from, to time.Time, typ string) ([]Absence, error) {
	out := []Absence{}
	err := p.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+absenceColumns+` FROM employee_absence
		WHERE company_id = $1 AND employee_id = $2 AND absence_date BETWEEN $3 AND $4 AND ($5 = '' OR absence_type = $5)
		ORDER BY absence_date, absence_type`, company, employee, from, to, typ)
	return out, err
}

// AbsenceWrite is a range of absence to register.
type AbsenceWrite struct {
	From, To time.Time
	Type     string
	Hours    *money.Quantity
	Notes    *string
}

// PutAbsence writes a row per working day of the range (weekends and
// public holidays have no working hours to be absent from), replacing a
// day's row of the same type.
func (p *Payroll) PutAbsence(ctx context.Context, company, employee uuid.UUID, w AbsenceWrite) ([]Absence, error) {
	if err := AbsenceRange(w.From, w.To); err != nil {
		return nil, fieldsInBody(err)
	}
	e, err := p.Employee(ctx, company, employee, true)
	if err != nil {
		return nil, err
	}
	if err := p.unlocked(ctx, company, employee, w.From, w.To); err != nil {
		return nil, err
	}
	hours := quantity(quo(of(e.HoursPerWeek), apd.New(5, 0)))
	if w.Hours != nil {
		hours = *w.Hours
	}
	if hours.Decimal().Cmp(apd.New(24, 0)) > 0 {
		hours = quantity(apd.New(24, 0))
	}
	var days []time.Time
	for d := w.From; !d.After(w.To); d = d.AddDate(0, 0, 1) {
		if workday(d) {
			days = append(days, d)
		}
	}
	out := []Absence{}
	if len(days) == 0 {
		return out, nil
	}
	if err := p.db.Q(ctx).SelectContext(ctx, &out, `INSERT INTO employee_absence (company_id, employee_id, absence_date,
			absence_type, hours, notes)
		SELECT $1, $2, d, $4, $5, $6 FROM unnest($3::date[]) d
		ON CONFLICT (company_id, employee_id, absence_date, absence_type) DO UPDATE SET hours = EXCLUDED.hours,
			notes = EXCLUDED.notes
		RETURNING `+absenceColumns, company, employee, pq.Array(dayStrings(days)), w.Type, hours, w.Notes); err != nil {
		return nil, err
	}
	var over []struct {
		Day   time.Time      `db:"absence_date"`
		Hours money.Quantity `db:"hours"`
	}
	if err := p.db.Q(ctx).SelectContext(ctx, &over, `SELECT absence_date, sum(hours) AS hours FROM employee_absence
		WHERE company_id = $1 AND employee_id = $2 AND absence_date BETWEEN $3 AND $4
		GROUP BY absence_date HAVING sum(hours) > 24 ORDER BY absence_date LIMIT 1`, company, employee, w.From, w.To); err != nil {
		return nil, err
	}
	if len(over) > 0 {
		return nil, apierr.New(apierr.AbsenceHoursConflict, map[string]any{"date": over[0].Day.Format(time.DateOnly),
			"hours": over[0].Hours, "max_hours": 24, "field": "hours"})
	}
	return out, p.record(ctx, company, audit.Insert, "employee_absence", employee.String(),
		"Frånvaro ("+w.Type+") registrerades för "+e.Name(), nil, map[string]any{"from": w.From.Format(time.DateOnly),
			"to": w.To.Format(time.DateOnly), "absence_type": w.Type, "hours": hours, "days": len(out)})
}

// DeleteAbsence deletes the employee's absence from from through to, of
// typ or all types (""), and answers how many days went.
func (p *Payroll) DeleteAbsence(ctx context.Context, company, employee uuid.UUID, from, to time.Time, typ string) (int, error) {
	if err := AbsenceRange(from, to); err != nil {
		return 0, err
	}
	e, err := p.Employee(ctx, company, employee, true)
	if err != nil {
		return 0, err
	}
	if err := p.unlocked(ctx, company, employee, from, to); err != nil {
		return 0, err
	}
	res, err := p.db.Q(ctx).ExecContext(ctx, `DELETE FROM employee_absence WHERE company_id = $1 AND employee_id = $2
		AND absence_date BETWEEN $3 AND $4 AND ($5 = '' OR absence_type = $5)`, company, employee, from, to, typ)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	if err != nil || n == 0 {
		return int(n), err
	}
	return int(n), p.record(ctx, company, audit.Delete, "employee_absence", employee.String(),
		"Frånvaro togs bort för "+e.Name(), map[string]any{"from": from.Format(time.DateOnly), "to": to.Format(time.DateOnly),
			"absence_type": typ, "days": n}, nil)
}

// unlocked refuses days a calculated run (review, approved or booked)
// has read for the employee.
func (p *Payroll) unlocked(ctx context.Context, company, employee uuid.UUID, from, to time.Time) error {
	var runs []struct {
		Run    uuid.UUID `db:"run_id"`
		Status string    `db:"status"`
	}
	if err := p.db.Q(ctx).SelectContext(ctx, &runs, `SELECT e.run_id, r.status FROM salary_run_employees e
		JOIN salary_runs r ON r.company_id = e.company_id AND r.id = e.run_id
		WHERE e.company_id = $1 AND e.employee_id = $2 AND r.status IN ('review', 'approved', 'booked')
		AND e.absence_from <= $4 AND e.absence_to >= $3 LIMIT 1`, company, employee, from, to); err != nil {
		return err
	}
	if len(runs) > 0 {
		return apierr.New(apierr.SalaryRegisterDatesLockedByRun, map[string]any{"salary_run_id": runs[0].Run,
			"status": runs[0].Status})
	}
	return nil
}

// fieldsInBody says a range error's fields came in the body.
func fieldsInBody(err error) error {
	if e, ok := apierr.As(err); ok && e.Code == apierr.ValidationError {
		return apierr.Field("to", "after_from", "to is before from")
	}
	return err
}

func dayStrings(days []time.Time) []string {
	out := make([]string, len(days))
	for i, d := range days {
		out[i] = d.Format(time.DateOnly)
	}
	return out
}
