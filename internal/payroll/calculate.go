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

// sickLookback is how far back sick days are read: a sjuklöneperiod
// running on into the month, and the karensavdrag of twelve months.
const sickLookback = 15

// CalculateRun calculates every payslip of a draft or review run and
// moves it to review. It reads the run's employees, lines, absence,
// earlier sick days, the year's earlier pay and the vacation years in a
// query each, whatever the roster's size, and writes the results in one
// statement.
func (p *Payroll) CalculateRun(ctx context.Context, company, id uuid.UUID) (Run, error) {
	r, err := p.Run(ctx, company, id, true)
	if err != nil {
		return r, err
	}
	if err := r.Editable(); err != nil {
		return r, err
	}
	rows, err := p.RunEmployees(ctx, company, id, nil, 0)
	if err != nil {
		return r, err
	}
	if len(rows) == 0 {
		return r, apierr.New(apierr.SalaryRunNoEmployees, map[string]any{"salary_run_id": id})
	}
	in, err := p.inputs(ctx, r, rows)
	if err != nil {
		return r, err
	}
	results := make([]calculated, len(rows))
	for i, row := range rows {
		out := calculated{ID: row.ID, AbsenceFrom: in[i].AbsenceMonth, AbsenceTo: in[i].AbsenceMonth.AddDate(0, 1, -1)}
		slip, err := Calculate(in[i])
		switch e, _ := apierr.As(err); {
		case err == nil:
			slip.applyOverrides(row)
			out.slip = &slip
		case e != nil && e.Code == apierr.SalaryRunApproveValidationFailed:
			out.Error = &CalcError{Code: "tax_table_missing", Field: "tax_table_number",
				Message: "Skattetabell och kolumn saknas för den anställda / the employee has no tax table and column"}
		default:
			return r, err
		}
		results[i] = out
	}
	if err := p.storeCalculation(ctx, r, results); err != nil {
		return r, err
	}
	after, err := p.Run(ctx, company, id, false)
	if err != nil {
		return after, err
	}
	return after, p.record(ctx, company, audit.Update, "salary_runs", id.String(),
		"Lönekörningen "+r.Period()+" beräknades", r, after)
}

// CalcError is why an employee has no calculation.
type CalcError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
}

type calculated struct {
	ID                     uuid.UUID
	AbsenceFrom, AbsenceTo time.Time
	Error                  *CalcError
	slip                   *Payslip
}

// applyOverrides puts the overrides of the row in place of the tax and
// avgifter reckoned: the net follows the tax withheld.
func (s *Payslip) applyOverrides(row RunEmployee) {
	if row.TaxOverride != nil {
		s.Net = s.Net.Add(s.Tax).Sub(*row.TaxOverride)
		s.Warnings = append(s.Warnings, "Skatteavdraget är satt för hand.")
	}
	if row.AvgiftOverride != nil {
		s.Warnings = append(s.Warnings, "Arbetsgivaravgifterna är satta för hand.")
	}
}

// inputs gathers every payslip's input of run r.
func (p *Payroll) inputs(ctx context.Context, r Run, rows []RunEmployee) ([]Input, error) {
	company := r.CompanyID
	ids := make([]uuid.UUID, len(rows))
	for i, row := range rows {
		ids[i] = row.EmployeeID
	}
	arr := IDs(ids)
	var emps []Employee
	if err := p.db.Q(ctx).SelectContext(ctx, &emps, `SELECT `+employeeColumns+` FROM employees
		WHERE company_id = $1 AND id = ANY($2::uuid[])`, company, arr); err != nil {
		return nil, err
	}
	byID := map[uuid.UUID]Employee{}
	table := false
	for _, e := range emps {
		byID[e.ID] = e
		table = table || e.NeedsTable() && e.TaxTable != nil
	}
	s, err := p.settings(ctx, company, false)
	if err != nil {
		return nil, err
	}
	month := r.First()
	if s.DeviationPeriod == "previous" {
		month = month.AddDate(0, -1, 0)
	}
	// The period's absence and the sick days before it, in one read.
	var absence []struct {
		Absence
		EmployeeID uuid.UUID `db:"employee_id"`
	}
	if err := p.db.Q(ctx).SelectContext(ctx, &absence, `SELECT employee_id, `+absenceColumns+` FROM employee_absence
		WHERE company_id = $1 AND employee_id = ANY($2::uuid[]) AND (absence_date BETWEEN $3 AND $4
			OR absence_type = 'sick' AND absence_date >= $5 AND absence_date < $3)
		ORDER BY absence_date`, company, arr, month, month.AddDate(0, 1, -1), month.AddDate(0, -sickLookback, 0)); err != nil {
		return nil, err
	}
	lines, err := p.Lines(ctx, company, r.ID, uuid.Nil)
	if err != nil {
		return nil, err
	}
	prior, err := p.priorBases(ctx, r, arr)
	if err != nil {
		return nil, err
	}
	vacation, err := p.vacationStates(ctx, company, arr)
	if err != nil {
		return nil, err
	}
	claims, err := p.books.Claims(ctx, company, r.ID, ids, r.PaymentDate)
	if err != nil {
		return nil, err
	}
	owed := map[uuid.UUID][]Claim{}
	for _, c := range claims {
		owed[c.EmployeeID] = append(owed[c.EmployeeID], c)
	}
	var tables *TaxTables
	if table {
		if tables, err = p.tables.For(ctx, r.PaymentDate.Year()); err != nil {
			return nil, err
		}
	}
	// Each employee's rows, in one pass over each list.
	absent, before, added := map[uuid.UUID][]Absence{}, map[uuid.UUID][]time.Time{}, map[uuid.UUID][]Line{}
	for _, a := range absence {
		if a.Day.Before(month) {
			before[a.EmployeeID] = append(before[a.EmployeeID], a.Day)
		} else {
			absent[a.EmployeeID] = append(absent[a.EmployeeID], a.Absence)
		}
	}
	for _, l := range lines {
		added[l.EmployeeID] = append(added[l.EmployeeID], l.Line)
	}
	out := make([]Input, len(rows))
	for i, row := range rows {
		id := row.EmployeeID
		in := Input{Employee: byID[id], Year: r.Year, Month: time.Month(r.Month), Payment: r.PaymentDate,
			Tables: tables, AbsenceMonth: month, Vacation: vacation[id], Absence: absent[id], SickBefore: before[id],
			Lines: added[id], Claims: owed[id]}
		pb := prior[row.EmployeeID]
		in.PriorBase, in.PriorUncharged = pb.Base, pb.Uncharged
		out[i] = in
	}
	return out, nil
}

type priorBase struct {
	Base, Uncharged money.Amount
}

// priorBases is each employee's avgift base of the payment year before
// run r: booked runs, and the opening balances' pay before the cutover.
func (p *Payroll) priorBases(ctx context.Context, r Run, ids IDs) (map[uuid.UUID]priorBase, error) {
	var rows []struct {
		EmployeeID uuid.UUID    `db:"employee_id"`
		Base       money.Amount `db:"base"`
		Uncharged  money.Amount `db:"uncharged"`
	}
	y := r.PaymentDate.Year()
	if err := p.db.Q(ctx).SelectContext(ctx, &rows, `SELECT employee_id, sum(base) AS base, sum(uncharged) AS uncharged
		FROM (SELECT re.employee_id, re.avgift_base AS base, re.uncharged_base AS uncharged
				FROM salary_run_employees re JOIN salary_runs r ON r.company_id = re.company_id AND r.id = re.run_id
				WHERE re.company_id = $1 AND re.employee_id = ANY($2::uuid[]) AND r.status = 'booked' AND r.id <> $3
				AND r.payment_date >= $4 AND r.payment_date < $5
			UNION ALL
			SELECT employee_id, ytd_gross, 0 FROM employee_opening_balances
				WHERE company_id = $1 AND employee_id = ANY($2::uuid[]) AND cutover_date >= $4 AND cutover_date < $5) x
		GROUP BY employee_id`, r.CompanyID, ids, r.ID, time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(y+1, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		return nil, err
	}
	out := map[uuid.UUID]priorBase{}
	for _, row := range rows {
		out[row.EmployeeID] = priorBase{Base: row.Base, Uncharged: row.Uncharged}
	}
	return out, nil
}

// vacationStates is each employee's latest vacation year, or before the
// first booked run the opening balances' days.
func (p *Payroll) vacationStates(ctx context.Context, company uuid.UUID, ids IDs) (map[uuid.UUID]VacationState, error) {
	var rows []struct {
		EmployeeID uuid.UUID       `db:"employee_id"`
		Entitled   *money.Quantity `db:"entitled_days"`
		Taken      *money.Quantity `db:"taken_days"`
		Opening    *money.Quantity `db:"opening_days"`
	}
	if err := p.db.Q(ctx).SelectContext(ctx, &rows, `SELECT e.id AS employee_id, y.entitled_days, y.taken_days,
			o.vacation_paid_days_remaining AS opening_days
		FROM unnest($2::uuid[]) e(id)
		LEFT JOIN LATERAL (SELECT entitled_days, taken_days FROM employee_vacation_years v
			WHERE v.company_id = $1 AND v.employee_id = e.id ORDER BY vacation_year_start DESC LIMIT 1) y ON true
		LEFT JOIN employee_opening_balances o ON o.company_id = $1 AND o.employee_id = e.id`, company, ids); err != nil {
		return nil, err
	}
	out := map[uuid.UUID]VacationState{}
	for _, row := range rows {
		switch {
		case row.Entitled != nil:
			out[row.EmployeeID] = VacationState{Known: true, RemainingDays: sub(row.Entitled.Decimal(), row.Taken.Decimal())}
		case row.Opening != nil:
			out[row.EmployeeID] = VacationState{Known: true, RemainingDays: row.Opening.Decimal()}
		default:
			out[row.EmployeeID] = VacationState{RemainingDays: new(apd.Decimal)}
		}
	}
	return out, nil
}

// storeCalculation writes the payslips' results and the run's totals,
// and moves the run to review.
func (p *Payroll) storeCalculation(ctx context.Context, r Run, results []calculated) error {
	type row struct {
		ID              uuid.UUID       `json:"id"`
		Gross           money.Amount    `json:"gross"`
		Tax             money.Amount    `json:"tax"`
		Net             money.Amount    `json:"net"`
		Avgifter        money.Amount    `json:"avgifter"`
		Base            money.Amount    `json:"base"`
		Uncharged       money.Amount    `json:"uncharged"`
		Accrual         money.Amount    `json:"accrual"`
		AccrualAvgifter money.Amount    `json:"accrual_avgifter"`
		Days            money.Quantity  `json:"days"`
		Absence         map[string]int  `json:"absence"`
		Breakdown       json.RawMessage `json:"breakdown"`
		Error           *CalcError      `json:"error"`
		From            string          `json:"absence_from"`
		To              string          `json:"absence_to"`
	}
	out := make([]row, len(results))
	for i, c := range results {
		o := row{ID: c.ID, Absence: map[string]int{}, Error: c.Error, From: c.AbsenceFrom.Format(time.DateOnly),
			To: c.AbsenceTo.Format(time.DateOnly), Days: quantity(new(apd.Decimal))}
		if s := c.slip; s != nil {
			b, err := json.Marshal(s)
			if err != nil {
				return err
			}
			o.Gross, o.Tax, o.Net, o.Avgifter, o.Base, o.Uncharged = s.Gross, s.Tax, s.Net, s.AvgiftTotal, s.AvgiftBase, s.Uncharged
			o.Accrual, o.AccrualAvgifter, o.Days, o.Absence, o.Breakdown = s.Accrual.Amount, s.Accrual.Avgifter,
				quantity(s.VacationDays), s.AbsenceDays, b
		}
		out[i] = o
	}
	body, err := json.Marshal(out)
	if err != nil {
		return err
	}
	_, err = p.db.Q(ctx).ExecContext(ctx, `WITH x AS (
			SELECT * FROM jsonb_to_recordset($3::jsonb) AS x(id uuid, gross numeric, tax numeric, net numeric,
				avgifter numeric, base numeric, uncharged numeric, accrual numeric, accrual_avgifter numeric, days numeric,
				absence jsonb, breakdown jsonb, error jsonb, absence_from date, absence_to date)),
		u AS (
			UPDATE salary_run_employees re SET gross_salary = x.gross, tax_withheld = x.tax, net_salary = x.net,
				avgifter_amount = x.avgifter, avgift_base = x.base, uncharged_base = x.uncharged,
				vacation_accrual = x.accrual, vacation_accrual_avgifter = x.accrual_avgifter, vacation_days_taken = x.days,
				absence_days = x.absence, calculation_breakdown = x.breakdown, calculation_error = x.error,
				calculated_at = CASE WHEN x.breakdown IS NULL THEN NULL ELSE clock_timestamp() END,
				absence_from = x.absence_from, absence_to = x.absence_to
			FROM x WHERE re.company_id = $1 AND re.run_id = $2 AND re.id = x.id
			RETURNING re.net_salary, coalesce(re.tax_withheld_override, re.tax_withheld) AS tax, re.gross_salary,
				coalesce(re.avgifter_amount_override, re.avgifter_amount) AS avgifter, re.vacation_accrual)
		UPDATE salary_runs SET status = 'review', calculated_at = clock_timestamp(), updated_at = clock_timestamp(),
			gross_total = (SELECT coalesce(sum(gross_salary), 0) FROM u), tax_total = (SELECT coalesce(sum(tax), 0) FROM u),
			net_total = (SELECT coalesce(sum(net_salary), 0) FROM u),
			avgifter_total = (SELECT coalesce(sum(avgifter), 0) FROM u),
			accrual_total = (SELECT coalesce(sum(vacation_accrual), 0) FROM u)
		WHERE company_id = $1 AND id = $2`, r.CompanyID, r.ID, string(body))
	return err
}
