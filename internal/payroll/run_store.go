package payroll

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/money"
)

const runColumns = `r.company_id, r.id, r.period_year, r.period_month, r.payment_date, r.voucher_series, r.status,
	r.corrects_run_id, r.correction_run_id, r.calculated_at, r.approved_at, r.booked_at, r.corrected_at,
	r.journal_entry_ids, r.storno_entry_ids, r.gross_total, r.tax_total, r.net_total, r.avgifter_total, r.accrual_total,
	(SELECT count(*) FROM salary_run_employees e WHERE e.company_id = r.company_id AND e.run_id = r.id) AS employee_count,
	(SELECT max(generated_at) FROM agi_declarations a WHERE a.company_id = r.company_id AND a.run_id = r.id)
		AS agi_generated_at,
	r.created_at, r.updated_at`

// Run returns the company's salary run id; SALARY_RUN_NOT_FOUND when
// there is none. With lock the row is held until the transaction ends.
func (p *Payroll) Run(ctx context.Context, company, id uuid.UUID, lock bool) (Run, error) {
	var r Run
	q := `SELECT ` + runColumns + ` FROM salary_runs r WHERE r.company_id = $1 AND r.id = $2`
	if lock {
		q += ` FOR UPDATE OF r`
	}
	err := p.db.Q(ctx).GetContext(ctx, &r, q, company, id)
	return r, notFound(err, apierr.SalaryRunNotFound, map[string]any{"salary_run_id": id})
}

// RunFilter narrows the run list.
type RunFilter struct {
	Year   *int
	Status *string
}

// Runs returns up to limit+1 runs after the position after, oldest first.
func (p *Payroll) Runs(ctx context.Context, company uuid.UUID, f RunFilter, after *cursor.Position, limit int) ([]Run, error) {
	at, id := time.Time{}, uuid.Nil
	if after != nil {
		at, id = after.At, after.ID
	}
	out := []Run{}
	err := p.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+runColumns+` FROM salary_runs r
		WHERE r.company_id = $1 AND (r.created_at, r.id) > ($2, $3) AND ($5::int IS NULL OR r.period_year = $5)
		AND ($6::text IS NULL OR r.status = $6) ORDER BY r.created_at, r.id LIMIT $4`,
		company, at, id, limit+1, f.Year, f.Status)
	return out, err
}

// RunEmployee is an employee's row on a run: the payslip's totals, its
// overrides and the calculation behind them.
type RunEmployee struct {
	ID              uuid.UUID       `db:"id"`
	RunID           uuid.UUID       `db:"run_id"`
	EmployeeID      uuid.UUID       `db:"employee_id"`
	Spec            int             `db:"specification_number"`
	Gross           money.Amount    `db:"gross_salary"`
	Tax             money.Amount    `db:"tax_withheld"`
	Net             money.Amount    `db:"net_salary"`
	Avgifter        money.Amount    `db:"avgifter_amount"`
	TaxOverride     *money.Amount   `db:"tax_withheld_override"`
	AvgiftOverride  *money.Amount   `db:"avgifter_amount_override"`
	Accrual         money.Amount    `db:"vacation_accrual"`
	AccrualAvgifter money.Amount    `db:"vacation_accrual_avgifter"`
	VacationDays    money.Quantity  `db:"vacation_days_taken"`
	AbsenceDays     json.RawMessage `db:"absence_days"`
	Breakdown       json.RawMessage `db:"calculation_breakdown"`
	CalcError       json.RawMessage `db:"calculation_error"`
	CalculatedAt    *time.Time      `db:"calculated_at"`
	CreatedAt       time.Time       `db:"created_at"`
	FirstName       string          `db:"first_name"`
	LastName        string          `db:"last_name"`
	BirthDate       time.Time       `db:"birth_date"`
	SalaryType      string          `db:"salary_type"`
}

// EffectiveTax is the tax the payslip withholds: the override when set.
func (e RunEmployee) EffectiveTax() money.Amount {
	if e.TaxOverride != nil {
		return *e.TaxOverride
	}
	return e.Tax
}

// EffectiveAvgifter is the avgifter booked: the override when set.
func (e RunEmployee) EffectiveAvgifter() money.Amount {
	if e.AvgiftOverride != nil {
		return *e.AvgiftOverride
	}
	return e.Avgifter
}

// Payslip is the stored calculation, nil before calculate.
func (e RunEmployee) Payslip() (*Payslip, error) {
	if len(e.Breakdown) == 0 || string(e.Breakdown) == "null" {
		return nil, nil
	}
	var p Payslip
	return &p, json.Unmarshal(e.Breakdown, &p)
}

const runEmployeeColumns = `re.id, re.run_id, re.employee_id, re.specification_number, re.gross_salary, re.tax_withheld,
	re.net_salary, re.avgifter_amount, re.tax_withheld_override, re.avgifter_amount_override, re.vacation_accrual,
	re.vacation_accrual_avgifter, re.vacation_days_taken, re.absence_days, coalesce(re.calculation_breakdown, 'null') AS calculation_breakdown,
	coalesce(re.calculation_error, 'null') AS calculation_error,
	re.calculated_at, re.created_at, e.first_name, e.last_name, e.birth_date, e.salary_type`

const runEmployeeFrom = ` FROM salary_run_employees re JOIN employees e ON e.company_id = re.company_id AND e.id = re.employee_id`

// RunEmployees returns up to limit+1 of the run's rows after the
// position after (limit 0: all of them).
func (p *Payroll) RunEmployees(ctx context.Context, company, run uuid.UUID, after *cursor.Position, limit int) ([]RunEmployee, error) {
	at, id := time.Time{}, uuid.Nil
	if after != nil {
		at, id = after.At, after.ID
	}
	lim := any(nil)
	if limit > 0 {
		lim = limit + 1
	}
	out := []RunEmployee{}
	err := p.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+runEmployeeColumns+runEmployeeFrom+`
		WHERE re.company_id = $1 AND re.run_id = $2 AND (re.created_at, re.id) > ($3, $4)
		ORDER BY re.created_at, re.id LIMIT $5`, company, run, at, id, lim)
	return out, err
}

// RunEmployee returns the employee's row on the run; EMPLOYEE_NOT_FOUND
// when they are not on it.
func (p *Payroll) RunEmployee(ctx context.Context, company, run, employee uuid.UUID) (RunEmployee, error) {
	var out RunEmployee
	err := p.db.Q(ctx).GetContext(ctx, &out, `SELECT `+runEmployeeColumns+runEmployeeFrom+`
		WHERE re.company_id = $1 AND re.run_id = $2 AND re.employee_id = $3`, company, run, employee)
	return out, notFound(err, apierr.EmployeeNotFound, map[string]any{"employee_id": employee, "salary_run_id": run,
		"reason": "not_on_run"})
}

const lineColumns = `id, run_id, employee_id, item_type, description, quantity, unit_price, amount, one_off_tax_percent,
	created_at, updated_at`

// StoredLine is a payslip line a user added, as stored.
type StoredLine struct {
	Line
	RunID      uuid.UUID `db:"run_id"`
	EmployeeID uuid.UUID `db:"employee_id"`
	CreatedAt  time.Time `db:"created_at"`
	UpdatedAt  time.Time `db:"updated_at"`
}

// Lines returns the lines users added to the run, of one employee or
// (uuid.Nil) all.
func (p *Payroll) Lines(ctx context.Context, company, run, employee uuid.UUID) ([]StoredLine, error) {
	out := []StoredLine{}
	err := p.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+lineColumns+` FROM salary_lines
		WHERE company_id = $1 AND run_id = $2 AND ($3 = '00000000-0000-0000-0000-000000000000'::uuid OR employee_id = $3)
		ORDER BY created_at, id`, company, run, employee)
	return out, err
}

// line returns one of the run's lines; SALARY_LINE_NOT_FOUND otherwise.
func (p *Payroll) line(ctx context.Context, company, run, id uuid.UUID) (StoredLine, error) {
	var out StoredLine
	err := p.db.Q(ctx).GetContext(ctx, &out, `SELECT `+lineColumns+` FROM salary_lines
		WHERE company_id = $1 AND run_id = $2 AND id = $3 FOR UPDATE`, company, run, id)
	return out, notFound(err, apierr.SalaryLineNotFound, map[string]any{"line_id": id, "salary_run_id": run})
}

// toDraft returns a review run to draft after an edit: its calculation
// no longer holds, so the payslips' results and the days of absence
// they held go with it.
func (p *Payroll) toDraft(ctx context.Context, r *Run) error {
	if r.Status != Review {
		return nil
	}
	r.Status, r.CalculatedAt = Draft, nil
	r.Gross, r.Tax, r.Net, r.Avgifter, r.Accrual = money.Amount{}, money.Amount{}, money.Amount{}, money.Amount{}, money.Amount{}
	_, err := p.db.Q(ctx).ExecContext(ctx, `WITH reset AS (
			UPDATE salary_run_employees SET gross_salary = 0, tax_withheld = 0, net_salary = 0, avgifter_amount = 0,
				vacation_accrual = 0, vacation_accrual_avgifter = 0, vacation_days_taken = 0, absence_days = '{}',
				calculation_breakdown = NULL, calculation_error = NULL, calculated_at = NULL, absence_from = NULL,
				absence_to = NULL
			WHERE company_id = $1 AND run_id = $2)
		UPDATE salary_runs SET status = 'draft', calculated_at = NULL, gross_total = 0, tax_total = 0, net_total = 0,
			avgifter_total = 0, accrual_total = 0, updated_at = clock_timestamp()
		WHERE company_id = $1 AND id = $2`, r.CompanyID, r.ID)
	return err
}
