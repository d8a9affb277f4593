package payroll

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/outbox"
	"github.com/kontera/kontera/internal/store"
)

// NewRun is a run to open.
type NewRun struct {
	Year, Month int
	PaymentDate *time.Time
	Series      *string
}

// CreateRun opens the period's run in draft with every active employee
// employed in the month on its roster, and emits salary_run.created.
func (p *Payroll) CreateRun(ctx context.Context, company uuid.UUID, n NewRun) (Run, error) {
	r := Run{CompanyID: company, ID: uuid.New(), Year: n.Year, Month: n.Month, Series: n.Series, Status: Draft}
	if n.PaymentDate != nil {
		r.PaymentDate = *n.PaymentDate
	} else {
		s, err := p.settings(ctx, company, false)
		if err != nil {
			return r, err
		}
		r.PaymentDate = time.Date(n.Year, time.Month(n.Month), s.PayDay, 0, 0, 0, 0, time.UTC)
	}
	if err := p.periodFree(ctx, company, n.Year, n.Month); err != nil {
		return r, err
	}
	_, err := p.db.Q(ctx).ExecContext(ctx, `INSERT INTO salary_runs (company_id, id, period_year, period_month,
		payment_date, voucher_series) VALUES ($1, $2, $3, $4, $5, $6)`, company, r.ID, r.Year, r.Month, r.PaymentDate, r.Series)
	if store.UniqueViolation(err, "salary_runs_period") {
		return r, apierr.New(apierr.SalaryRunDuplicatePeriod, map[string]any{"period": r.Period()})
	}
	if err != nil {
		return r, err
	}
	if _, err := p.db.Q(ctx).ExecContext(ctx, `INSERT INTO salary_run_employees (company_id, run_id, employee_id,
			specification_number)
		SELECT company_id, $2, id, row_number() OVER (ORDER BY created_at, id) FROM employees
		WHERE company_id = $1 AND is_active AND employment_start <= $4 AND (employment_end IS NULL OR employment_end >= $3)`,
		company, r.ID, r.First(), r.Last()); err != nil {
		return r, err
	}
	return p.created(ctx, company, r.ID, "Lönekörningen "+r.Period()+" skapades")
}

// created reads a new run back, audits it and emits salary_run.created.
func (p *Payroll) created(ctx context.Context, company, id uuid.UUID, desc string) (Run, error) {
	r, err := p.Run(ctx, company, id, false)
	if err != nil {
		return r, err
	}
	if err := p.record(ctx, company, audit.Insert, "salary_runs", r.ID.String(), desc, nil, r); err != nil {
		return r, err
	}
	_, err = outbox.Emit(ctx, p.db, company, "salary_run.created", map[string]any{"salary_run": runView(r)})
	return r, err
}

// periodFree refuses a period that has a run already, other than one a
// correction replaced.
func (p *Payroll) periodFree(ctx context.Context, company uuid.UUID, year, month int) error {
	var ids []uuid.UUID
	if err := p.db.Q(ctx).SelectContext(ctx, &ids, `SELECT id FROM salary_runs WHERE company_id = $1
		AND period_year = $2 AND period_month = $3 AND status <> 'corrected'`, company, year, month); err != nil {
		return err
	}
	if len(ids) > 0 {
		return apierr.New(apierr.SalaryRunDuplicatePeriod, map[string]any{"existing_salary_run_id": ids[0],
			"period": Run{Year: year, Month: month}.Period()})
	}
	return nil
}

// RunChange is a PATCH of a run.
type RunChange struct {
	PaymentDate *time.Time
	SetSeries   bool
	Series      *string
}

// editRun holds the run for an edit: it must be draft or review, and
// goes back to draft.
func (p *Payroll) editRun(ctx context.Context, company, id uuid.UUID) (Run, error) {
	r, err := p.Run(ctx, company, id, true)
	if err != nil {
		return r, err
	}
	if err := r.Editable(); err != nil {
		return r, err
	}
	return r, p.toDraft(ctx, &r)
}

// UpdateRun changes a draft or review run's payment date or series.
func (p *Payroll) UpdateRun(ctx context.Context, company, id uuid.UUID, ch RunChange) (Run, error) {
	old, err := p.Run(ctx, company, id, true)
	if err != nil {
		return old, err
	}
	if err := old.Editable(); err != nil {
		return old, err
	}
	r := old
	if err := p.toDraft(ctx, &r); err != nil {
		return r, err
	}
	if ch.PaymentDate != nil {
		r.PaymentDate = *ch.PaymentDate
	}
	if ch.SetSeries {
		r.Series = ch.Series
	}
	if _, err := p.db.Q(ctx).ExecContext(ctx, `UPDATE salary_runs SET payment_date = $3, voucher_series = $4,
		updated_at = clock_timestamp() WHERE company_id = $1 AND id = $2`, company, id, r.PaymentDate, r.Series); err != nil {
		return r, err
	}
	if r, err = p.Run(ctx, company, id, false); err != nil {
		return r, err
	}
	return r, p.record(ctx, company, audit.Update, "salary_runs", id.String(), "Lönekörningen "+r.Period()+" ändrades", old, r)
}

// DeleteRun deletes a draft run with its roster and lines.
func (p *Payroll) DeleteRun(ctx context.Context, company, id uuid.UUID) (Run, error) {
	r, err := p.Run(ctx, company, id, true)
	if err != nil {
		return r, err
	}
	if err := r.In(Draft); err != nil {
		return r, err
	}
	if _, err := p.db.Q(ctx).ExecContext(ctx, `DELETE FROM salary_runs WHERE company_id = $1 AND id = $2`, company, id); err != nil {
		return r, err
	}
	return r, p.record(ctx, company, audit.Delete, "salary_runs", id.String(), "Lönekörningen "+r.Period()+" togs bort", r, nil)
}

// AddRunEmployee puts an active employee on a draft or review run.
func (p *Payroll) AddRunEmployee(ctx context.Context, company, run, employee uuid.UUID) (RunEmployee, error) {
	r, err := p.editRun(ctx, company, run)
	if err != nil {
		return RunEmployee{}, err
	}
	e, err := p.Employee(ctx, company, employee, false)
	if err != nil {
		return RunEmployee{}, apierr.WithField(err, "employee_id")
	}
	if !e.IsActive {
		return RunEmployee{}, apierr.Field("employee_id", "active", "the employee is inactive")
	}
	res, err := p.db.Q(ctx).ExecContext(ctx, `INSERT INTO salary_run_employees (company_id, run_id, employee_id,
			specification_number)
		SELECT $1, $2, $3, coalesce(max(specification_number), 0) + 1 FROM salary_run_employees
		WHERE company_id = $1 AND run_id = $2
		ON CONFLICT (company_id, run_id, employee_id) DO NOTHING`, company, run, employee)
	if err != nil {
		return RunEmployee{}, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err == nil {
			err = apierr.Field("employee_id", "unique", "the employee is on the run already")
		}
		return RunEmployee{}, err
	}
	out, err := p.RunEmployee(ctx, company, run, employee)
	if err != nil {
		return out, err
	}
	return out, p.record(ctx, company, audit.Insert, "salary_run_employees", out.ID.String(),
		e.Name()+" lades till på lönekörningen "+r.Period(), nil, map[string]any{"salary_run_id": run, "employee_id": employee})
}

// RemoveRunEmployee takes an employee and their lines off a draft or
// review run.
func (p *Payroll) RemoveRunEmployee(ctx context.Context, company, run, employee uuid.UUID) (RunEmployee, error) {
	r, err := p.editRun(ctx, company, run)
	if err != nil {
		return RunEmployee{}, err
	}
	out, err := p.RunEmployee(ctx, company, run, employee)
	if err != nil {
		return out, err
	}
	if _, err := p.db.Q(ctx).ExecContext(ctx, `DELETE FROM salary_run_employees WHERE company_id = $1 AND run_id = $2
		AND employee_id = $3`, company, run, employee); err != nil {
		return out, err
	}
	if err := p.books.ClaimsOff(ctx, company, run, &employee); err != nil {
		return out, err
	}
	return out, p.record(ctx, company, audit.Delete, "salary_run_employees", out.ID.String(),
		out.FirstName+" "+out.LastName+" togs bort från lönekörningen "+r.Period(), map[string]any{"salary_run_id": run,
			"employee_id": employee}, nil)
}

// Overrides are a payslip's tax and avgifter set by hand: Set says which
// were sent, nil removes one.
type Overrides struct {
	SetTax, SetAvgifter bool
	Tax, Avgifter       *money.Amount
}

// OverrideRunEmployee sets or removes the overrides of an employee on a
// draft or review run.
func (p *Payroll) OverrideRunEmployee(ctx context.Context, company, run, employee uuid.UUID, o Overrides) (RunEmployee, error) {
	if _, err := p.editRun(ctx, company, run); err != nil {
		return RunEmployee{}, err
	}
	old, err := p.RunEmployee(ctx, company, run, employee)
	if err != nil {
		return old, err
	}
	tax, avg := old.TaxOverride, old.AvgiftOverride
	if o.SetTax {
		tax = o.Tax
	}
	if o.SetAvgifter {
		avg = o.Avgifter
	}
	if _, err := p.db.Q(ctx).ExecContext(ctx, `UPDATE salary_run_employees SET tax_withheld_override = $4,
		avgifter_amount_override = $5 WHERE company_id = $1 AND run_id = $2 AND employee_id = $3`,
		company, run, employee, tax, avg); err != nil {
		return old, err
	}
	out, err := p.RunEmployee(ctx, company, run, employee)
	if err != nil {
		return out, err
	}
	return out, p.record(ctx, company, audit.Update, "salary_run_employees", out.ID.String(),
		"Skatt eller avgifter sattes för hand för "+out.FirstName+" "+out.LastName,
		map[string]any{"tax_withheld_override": old.TaxOverride, "avgifter_amount_override": old.AvgiftOverride},
		map[string]any{"tax_withheld_override": tax, "avgifter_amount_override": avg})
}
