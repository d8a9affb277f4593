package payroll

import (
	"context"
	"encoding/json"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/money"
)

// Opening is what an employee brought from the payroll before Kontera.
type Opening struct {
	EmployeeID    uuid.UUID      `db:"employee_id" json:"employee_id"`
	Cutover       time.Time      `db:"cutover_date" json:"cutover_date"`
	YTDGross      money.Amount   `db:"ytd_gross" json:"ytd_gross"`
	VacationDays  money.Quantity `db:"vacation_paid_days_remaining" json:"vacation_paid_days_remaining"`
	LockedByRunID *uuid.UUID     `db:"locked_by_run_id" json:"locked_by_run_id"`
}

const openingColumns = `employee_id, cutover_date, ytd_gross, vacation_paid_days_remaining, locked_by_run_id`

// OpeningBalances answers the employee's opening balances; NOT_FOUND
// when none are set.
func (p *Payroll) OpeningBalances(ctx context.Context, company, employee uuid.UUID) (Opening, error) {
	if _, err := p.Employee(ctx, company, employee, false); err != nil {
		return Opening{}, err
	}
	o, found, err := p.opening(ctx, company, employee, false)
	if err == nil && !found {
		err = apierr.New(apierr.NotFound, map[string]any{"resource": "opening_balances", "employee_id": employee})
	}
	return o, err
}

func (p *Payroll) opening(ctx context.Context, company, employee uuid.UUID, lock bool) (Opening, bool, error) {
	var rows []Opening
	q := `SELECT ` + openingColumns + ` FROM employee_opening_balances WHERE company_id = $1 AND employee_id = $2`
	if lock {
		q += ` FOR UPDATE`
	}
	err := p.db.Q(ctx).SelectContext(ctx, &rows, q, company, employee)
	if err != nil || len(rows) == 0 {
		return Opening{}, false, err
	}
	return rows[0], true, nil
}

// PutOpeningBalances sets the employee's opening balances, until a booked
// run has built on them.
func (p *Payroll) PutOpeningBalances(ctx context.Context, company, employee uuid.UUID, o Opening) (Opening, error) {
	e, err := p.Employee(ctx, company, employee, true)
	if err != nil {
		return o, err
	}
	old, found, err := p.opening(ctx, company, employee, true)
	if err != nil {
		return o, err
	}
	if found && old.LockedByRunID != nil {
		return o, apierr.New(apierr.SalaryRegisterDatesLockedByRun, map[string]any{"salary_run_id": *old.LockedByRunID,
			"resource": "opening_balances"})
	}
	if err := p.db.Q(ctx).GetContext(ctx, &o, `INSERT INTO employee_opening_balances (company_id, employee_id,
			cutover_date, ytd_gross, vacation_paid_days_remaining) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (company_id, employee_id) DO UPDATE SET cutover_date = EXCLUDED.cutover_date,
			ytd_gross = EXCLUDED.ytd_gross, vacation_paid_days_remaining = EXCLUDED.vacation_paid_days_remaining,
			updated_at = now()
		RETURNING `+openingColumns, company, employee, o.Cutover, o.YTDGross, o.VacationDays); err != nil {
		return o, err
	}
	action, before := audit.Insert, any(nil)
	if found {
		action, before = audit.Update, old
	}
	return o, p.record(ctx, company, action, "employee_opening_balances", employee.String(),
		"Ingående lönesaldon sattes för "+e.Name(), before, o)
}

// VacationBalance is an employee's vacation year.
type VacationBalance struct {
	EmployeeID uuid.UUID
	YearStart  time.Time
	Entitled   *apd.Decimal
	Taken      *apd.Decimal
	Saved      map[string]*apd.Decimal
	Liability  money.Amount
}

// Remaining is the days left of the year: negative when taken in advance.
func (b VacationBalance) Remaining() *apd.Decimal { return sub(b.Entitled, b.Taken) }

// SavedTotal sums the saved days.
func (b VacationBalance) SavedTotal() *apd.Decimal {
	t := new(apd.Decimal)
	for _, d := range b.Saved {
		t = add(t, d)
	}
	return t
}

// vacationYear is one stored vacation year of an employee.
type vacationYear struct {
	Start    time.Time       `db:"vacation_year_start"`
	Entitled money.Quantity  `db:"entitled_days"`
	Taken    money.Quantity  `db:"taken_days"`
	Earned   money.Quantity  `db:"earned_days"`
	Saved    json.RawMessage `db:"saved_days"`
}

// VacationYearStart is the first day of the vacation year holding day:
// 1 April under the law's year (semesterlagen 2 §), 1 January when the
// company keeps the calendar year.
func VacationYearStart(day time.Time, basis string) time.Time {
	if basis == "statutory_apr_mar" {
		y := day.Year()
		if day.Month() < time.April {
			y--
		}
		return time.Date(y, time.April, 1, 0, 0, 0, 0, time.UTC)
	}
	return time.Date(day.Year(), time.January, 1, 0, 0, 0, 0, time.UTC)
}

// basis is the company's vacation year: calendar unless it keeps the
// law's April–March.
func (p *Payroll) basis(ctx context.Context, company uuid.UUID) (string, error) {
	s, err := p.books.Settings(ctx, company)
	return vacationBasis(s), err
}

// VacationBalance answers the latest vacation year booked runs have
// reached, or before the first the opening balances' days;
// VACATION_BALANCE_NOT_FOUND with neither.
func (p *Payroll) VacationBalance(ctx context.Context, company, employee uuid.UUID) (VacationBalance, error) {
	e, err := p.Employee(ctx, company, employee, false)
	if err != nil {
		return VacationBalance{}, err
	}
	b, found, err := p.vacationBalance(ctx, e)
	if err == nil && !found {
		err = apierr.New(apierr.VacationBalanceNotFound, map[string]any{"employee_id": employee})
	}
	return b, err
}

func (p *Payroll) vacationBalance(ctx context.Context, e Employee) (VacationBalance, bool, error) {
	b := VacationBalance{EmployeeID: e.ID, Saved: map[string]*apd.Decimal{}}
	var years []vacationYear
	if err := p.db.Q(ctx).SelectContext(ctx, &years, `SELECT vacation_year_start, entitled_days, taken_days, earned_days,
		saved_days FROM employee_vacation_years WHERE company_id = $1 AND employee_id = $2
		ORDER BY vacation_year_start DESC LIMIT 1`, e.CompanyID, e.ID); err != nil {
		return b, false, err
	}
	switch {
	case len(years) > 0:
		y := years[0]
		b.YearStart, b.Entitled, b.Taken = y.Start, y.Entitled.Decimal(), y.Taken.Decimal()
		var saved map[string]money.Quantity
		if err := json.Unmarshal(y.Saved, &saved); err != nil {
			return b, false, err
		}
		for k, v := range saved {
			b.Saved[k] = v.Decimal()
		}
	default:
		o, found, err := p.opening(ctx, e.CompanyID, e.ID, false)
		if err != nil || !found {
			return b, false, err
		}
		basis, err := p.basis(ctx, e.CompanyID)
		if err != nil {
			return b, false, err
		}
		b.YearStart, b.Entitled, b.Taken = VacationYearStart(o.Cutover, basis), o.VacationDays.Decimal(), new(apd.Decimal)
	}
	value, _ := dayValue(e, VacationState{})
	days := b.SavedTotal()
	if r := b.Remaining(); r.Sign() > 0 {
		days = add(days, r)
	}
	b.Liability = öre(mul(days, of(value)))
	return b, true, nil
}
