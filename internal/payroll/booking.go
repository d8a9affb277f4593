package payroll

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/outbox"
)

// Missing is what keeps one employee from approval.
type Missing struct {
	EmployeeID uuid.UUID `json:"employee_id"`
	Name       string    `json:"name"`
	Missing    []string  `json:"missing"`
}

// ApproveRun approves a review run whose every employee has a
// calculation, a bank account and (on A-skatt outside sidoinkomst) a tax
// table and column; emits salary_run.approved. The approver's note, if
// any, goes with the move into the audit trail.
func (p *Payroll) ApproveRun(ctx context.Context, company, id uuid.UUID, note *string) (Run, error) {
	r, err := p.Run(ctx, company, id, true)
	if err != nil {
		return r, err
	}
	if err := r.In(Review); err != nil {
		return r, err
	}
	var rows []struct {
		Employee
		Calculated bool `db:"calculated"`
	}
	if err := p.db.Q(ctx).SelectContext(ctx, &rows, `SELECT `+prefixed("e", employeeColumns)+`,
			re.calculation_breakdown IS NOT NULL AS calculated
		FROM salary_run_employees re JOIN employees e ON e.company_id = re.company_id AND e.id = re.employee_id
		WHERE re.company_id = $1 AND re.run_id = $2 ORDER BY re.created_at, re.id`, company, id); err != nil {
		return r, err
	}
	var problems []Missing
	for _, row := range rows {
		var miss []string
		if !row.Calculated {
			miss = append(miss, "calculation")
		}
		if row.BankAccount == nil {
			miss = append(miss, "bank_account")
		}
		if row.NeedsTable() && (row.TaxTable == nil || row.TaxColumn == nil) {
			miss = append(miss, "tax_table")
		}
		if len(miss) > 0 {
			problems = append(problems, Missing{EmployeeID: row.ID, Name: row.Name(), Missing: miss})
		}
	}
	if len(problems) > 0 {
		return r, apierr.New(apierr.SalaryRunApproveValidationFailed, map[string]any{"employees": problems})
	}
	if _, err := p.db.Q(ctx).ExecContext(ctx, `UPDATE salary_runs SET status = 'approved', approved_at = clock_timestamp(),
		approved_by = $3, updated_at = clock_timestamp() WHERE company_id = $1 AND id = $2`,
		company, id, actor(audit.ActorFrom(ctx))); err != nil {
		return r, err
	}
	desc := "Lönekörningen " + r.Period() + " godkändes"
	if note != nil && *note != "" {
		desc += ": " + *note
	}
	after, err := p.moved(ctx, r, desc)
	if err != nil {
		return after, err
	}
	_, err = outbox.Emit(ctx, p.db, company, "salary_run.approved", map[string]any{"salary_run": runView(after)})
	return after, err
}

// UnapproveRun returns an approved run to review while no AGI has been
// generated for it.
func (p *Payroll) UnapproveRun(ctx context.Context, company, id uuid.UUID) (Run, error) {
	r, err := p.Run(ctx, company, id, true)
	if err != nil {
		return r, err
	}
	if err := r.In(Approved); err != nil {
		return r, err
	}
	if r.AGIGeneratedAt != nil {
		return r, apierr.New(apierr.SalaryRunInvalidState, map[string]any{"salary_run_id": id, "status": r.Status,
			"reason": "agi_generated", "agi_generated_at": r.AGIGeneratedAt})
	}
	if _, err := p.db.Q(ctx).ExecContext(ctx, `UPDATE salary_runs SET status = 'review', approved_at = NULL,
		approved_by = NULL, updated_at = clock_timestamp() WHERE company_id = $1 AND id = $2`, company, id); err != nil {
		return r, err
	}
	return p.moved(ctx, r, "Godkännandet av lönekörningen "+r.Period()+" togs tillbaka")
}

// moved reads the run back after a move and audits it.
func (p *Payroll) moved(ctx context.Context, before Run, desc string) (Run, error) {
	after, err := p.Run(ctx, before.CompanyID, before.ID, false)
	if err != nil {
		return after, err
	}
	return after, p.record(ctx, before.CompanyID, audit.Update, "salary_runs", before.ID.String(), desc, before, after)
}

// BookedRun is a booked run and what it posted.
type BookedRun struct {
	Run         Run
	Entries     []ledger.Entry
	Inputs      []ledger.Input
	Declaration Declaration
}

// BookRun books an approved run through the ledger (see Entries), in the
// request's transaction: the run's verifikat, the employees' vacation
// years, the opening balances it builds on and the expense claims it
// pays back; emits salary_run.booked.
// A second booking while one runs is SALARY_RUN_BOOKING_IN_PROGRESS.
func (p *Payroll) BookRun(ctx context.Context, company, id uuid.UUID) (BookedRun, error) {
	var r Run
	err := p.db.Q(ctx).GetContext(ctx, &r, `SELECT `+runColumns+` FROM salary_runs r
		WHERE r.company_id = $1 AND r.id = $2 FOR UPDATE OF r NOWAIT`, company, id)
	if pe := (*pq.Error)(nil); errors.As(err, &pe) && pe.Code == "55P03" {
		return BookedRun{}, apierr.New(apierr.SalaryRunBookingInProgress, map[string]any{"salary_run_id": id})
	}
	if err != nil {
		return BookedRun{}, notFound(err, apierr.SalaryRunNotFound, map[string]any{"salary_run_id": id})
	}
	if err := r.In(Approved); err != nil {
		return BookedRun{Run: r}, err
	}
	rows, err := p.RunEmployees(ctx, company, id, nil, 0)
	if err != nil {
		return BookedRun{}, err
	}
	slips := make([]Slip, 0, len(rows))
	for _, row := range rows {
		s, err := row.Payslip()
		if err != nil || s == nil {
			return BookedRun{}, errors.Join(err, errors.New("payroll: an approved run's payslip has no calculation"))
		}
		slips = append(slips, Slip{Payslip: *s, Tax: row.EffectiveTax(), Avgifter: row.EffectiveAvgifter()})
	}
	s, err := p.settings(ctx, company, false)
	if err == nil {
		err = p.netPay(ctx, company, &s)
	}
	if err != nil {
		return BookedRun{}, err
	}
	inputs, d := Entries(r.Period(), slips, s.NetPay)
	out := BookedRun{Inputs: inputs, Declaration: d}
	source := id.String()
	ids := IDs{}
	for i := range inputs {
		in := inputs[i]
		in.Date, in.SourceType, in.SourceID = r.PaymentDate, SourceSalary, &source
		if r.Series != nil {
			in.Series = *r.Series
		}
		e, err := p.books.Post(ctx, company, in)
		if err != nil {
			return out, err
		}
		out.Entries = append(out.Entries, e)
		ids = append(ids, e.ID)
	}
	if err := p.bookVacation(ctx, r, rows, slips, 1, s.Basis); err != nil {
		return out, err
	}
	var claims []uuid.UUID
	for _, s := range slips {
		for _, l := range s.Payslip.Lines {
			if l.ExpenseClaimID != nil {
				claims = append(claims, *l.ExpenseClaimID)
			}
		}
	}
	if err := p.books.ClaimsPaid(ctx, company, id, claims); err != nil {
		return out, err
	}
	if _, err := p.db.Q(ctx).ExecContext(ctx, `UPDATE employee_opening_balances SET locked_by_run_id = $2, updated_at = now()
		WHERE company_id = $1 AND locked_by_run_id IS NULL AND employee_id IN (
			SELECT employee_id FROM salary_run_employees WHERE company_id = $1 AND run_id = $2)`, company, id); err != nil {
		return out, err
	}
	if _, err := p.db.Q(ctx).ExecContext(ctx, `UPDATE salary_runs SET status = 'booked', booked_at = clock_timestamp(),
		booked_by = $3, journal_entry_ids = $4, updated_at = clock_timestamp() WHERE company_id = $1 AND id = $2`,
		company, id, actor(audit.ActorFrom(ctx)), ids); err != nil {
		return out, err
	}
	if out.Run, err = p.moved(ctx, r, "Lönekörningen "+r.Period()+" bokfördes"); err != nil {
		return out, err
	}
	_, err = outbox.Emit(ctx, p.db, company, "salary_run.booked", map[string]any{"salary_run": runView(out.Run)})
	return out, err
}

// bookVacation adds (sign 1) or gives back (sign −1) the vacation days a
// run's payslips took and earned, in the vacation year of its payment
// date. A year first met starts from the opening balances' days when the
// cutover falls in it, else from the year's entitlement.
func (p *Payroll) bookVacation(ctx context.Context, r Run, rows []RunEmployee, slips []Slip, sign int64, basis string) error {
	start := VacationYearStart(r.PaymentDate, basis)
	type row struct {
		Employee uuid.UUID       `json:"employee_id"`
		Taken    json.RawMessage `json:"taken"`
		Earned   json.RawMessage `json:"earned"`
	}
	var days []row
	for i, s := range slips {
		a := s.Payslip.Accrual
		if a.EarnedDays == nil || a.EarnedDays.IsZero() && (s.Payslip.VacationDays == nil || s.Payslip.VacationDays.IsZero()) {
			continue
		}
		taken, earned := quantity(s.Payslip.VacationDays), quantity(a.EarnedDays)
		if sign < 0 {
			taken, earned = taken.Neg(), earned.Neg()
		}
		tb, _ := taken.MarshalJSON()
		eb, _ := earned.MarshalJSON()
		days = append(days, row{Employee: rows[i].EmployeeID, Taken: tb, Earned: eb})
	}
	if len(days) == 0 {
		return nil
	}
	body, err := json.Marshal(days)
	if err != nil {
		return err
	}
	end := start.AddDate(1, 0, 0)
	_, err = p.db.Q(ctx).ExecContext(ctx, `INSERT INTO employee_vacation_years AS v (company_id, employee_id,
			vacation_year_start, entitled_days, taken_days, earned_days)
		SELECT $1, x.employee_id, $2, coalesce(o.vacation_paid_days_remaining, e.vacation_days_per_year), x.taken, x.earned
		FROM jsonb_to_recordset($3::jsonb) AS x(employee_id uuid, taken numeric, earned numeric)
		JOIN employees e ON e.company_id = $1 AND e.id = x.employee_id
		LEFT JOIN employee_opening_balances o ON o.company_id = $1 AND o.employee_id = x.employee_id
			AND o.cutover_date >= $2 AND o.cutover_date < $4
		ON CONFLICT (company_id, employee_id, vacation_year_start) DO UPDATE SET
			taken_days = v.taken_days + EXCLUDED.taken_days, earned_days = v.earned_days + EXCLUDED.earned_days,
			updated_at = now()`, r.CompanyID, start, string(body), end)
	return err
}

// Correction is a corrected run and the run that replaces it.
type Correction struct {
	Run        Run
	Correction Run
	Stornos    IDs
}

// CorrectRun stornoes every verifikat of a booked run on its own date,
// gives its vacation days back, unlocks the opening balances it locked,
// makes the expense claims it paid owed again (the correction run pays
// them when calculated), marks it corrected and opens a draft correction run of the period with
// its roster (specification numbers kept) and lines; emits
// salary_run.created for the new run.
func (p *Payroll) CorrectRun(ctx context.Context, company, id uuid.UUID) (Correction, error) {
	r, err := p.Run(ctx, company, id, true)
	if err != nil {
		return Correction{}, err
	}
	if r.Status == Corrected {
		return Correction{Run: r}, apierr.New(apierr.SalaryRunAlreadyCorrected, map[string]any{"salary_run_id": id,
			"correction_run_id": r.CorrectionRunID})
	}
	if err := r.In(Booked); err != nil {
		return Correction{Run: r}, err
	}
	out := Correction{}
	for _, eid := range r.JournalEntryIDs {
		rev, err := p.books.Reverse(ctx, company, eid, r.PaymentDate, false)
		if err != nil {
			return out, err
		}
		out.Stornos = append(out.Stornos, rev.Storno.ID)
	}
	rows, err := p.RunEmployees(ctx, company, id, nil, 0)
	if err != nil {
		return out, err
	}
	slips := make([]Slip, 0, len(rows))
	for _, row := range rows {
		if s, err := row.Payslip(); err != nil {
			return out, err
		} else if s != nil {
			slips = append(slips, Slip{Payslip: *s})
		}
	}
	basis, err := p.basis(ctx, company)
	if err != nil {
		return out, err
	}
	if err := p.bookVacation(ctx, r, rows, slips, -1, basis); err != nil {
		return out, err
	}
	next := uuid.New()
	if _, err := p.db.Q(ctx).ExecContext(ctx, `WITH opened AS (
			UPDATE employee_opening_balances SET locked_by_run_id = NULL, updated_at = now()
			WHERE company_id = $1 AND locked_by_run_id = $2)
		UPDATE salary_runs SET status = 'corrected', corrected_at = clock_timestamp(), storno_entry_ids = $3,
			correction_run_id = $4, updated_at = clock_timestamp() WHERE company_id = $1 AND id = $2`,
		company, id, out.Stornos, next); err != nil {
		return out, err
	}
	if err := p.books.ClaimsOwed(ctx, company, id); err != nil {
		return out, err
	}
	if _, err := p.db.Q(ctx).ExecContext(ctx, `WITH run AS (
			INSERT INTO salary_runs (company_id, id, period_year, period_month, payment_date, voucher_series, corrects_run_id)
			VALUES ($1, $3, $4, $5, $6, $7, $2)),
		roster AS (
			INSERT INTO salary_run_employees (company_id, run_id, employee_id, specification_number, tax_withheld_override,
				avgifter_amount_override)
			SELECT company_id, $3, employee_id, specification_number, tax_withheld_override, avgifter_amount_override
			FROM salary_run_employees WHERE company_id = $1 AND run_id = $2)
		SELECT 1`, company, id, next, r.Year, r.Month, r.PaymentDate, r.Series); err != nil {
		return out, err
	}
	if _, err := p.db.Q(ctx).ExecContext(ctx, `INSERT INTO salary_lines (company_id, run_id, employee_id, item_type,
			description, quantity, unit_price, amount, one_off_tax_percent)
		SELECT company_id, $3, employee_id, item_type, description, quantity, unit_price, amount, one_off_tax_percent
		FROM salary_lines WHERE company_id = $1 AND run_id = $2 ORDER BY created_at, id`, company, id, next); err != nil {
		return out, err
	}
	if out.Run, err = p.moved(ctx, r, "Lönekörningen "+r.Period()+" rättades"); err != nil {
		return out, err
	}
	out.Correction, err = p.created(ctx, company, next, "Rättelsekörningen för "+r.Period()+" skapades")
	return out, err
}

// prefixed qualifies a column list with a table alias.
func prefixed(alias, columns string) string {
	parts := strings.Split(columns, ",")
	for i, c := range parts {
		parts[i] = alias + "." + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}
