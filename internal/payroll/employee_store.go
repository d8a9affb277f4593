package payroll

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/store"
)

const employeeColumns = `company_id, id, first_name, last_name, birth_date, personnummer_last4, employment_type,
	personnel_category, employment_start, employment_end, employment_degree, hours_per_week, salary_type, monthly_salary,
	hourly_rate, tax_table_number, tax_column, is_sidoinkomst, jamkning_percentage, jamkning_valid_from, jamkning_valid_to,
	f_skatt_status, clearing_number, bank_account_number, vacation_rule, vacation_days_per_year, email, phone,
	address_line1, postal_code, city, dimensions, is_active, created_at, updated_at`

// kindPersonnummer is the kind of an employee's personnummer token.
const kindPersonnummer = "EP"

// sealContext binds a sealed personnummer to its employee's row.
func sealContext(company, id uuid.UUID) string {
	return "employees/" + company.String() + "/" + id.String()
}

// Employee returns the company's employee id, active or not;
// EMPLOYEE_NOT_FOUND when there is none. With lock the row is held until
// the transaction ends.
func (p *Payroll) Employee(ctx context.Context, company, id uuid.UUID, lock bool) (Employee, error) {
	var e Employee
	q := `SELECT ` + employeeColumns + ` FROM employees WHERE company_id = $1 AND id = $2`
	if lock {
		q += ` FOR UPDATE`
	}
	err := p.db.Q(ctx).GetContext(ctx, &e, q, company, id)
	return e, notFound(err, apierr.EmployeeNotFound, map[string]any{"employee_id": id})
}

// Personnummer opens the employee's sealed personnummer: its 12 digits.
func (p *Payroll) Personnummer(ctx context.Context, company, id uuid.UUID) (string, error) {
	var sealed []byte
	if err := p.db.Q(ctx).GetContext(ctx, &sealed, `SELECT personnummer_sealed FROM employees
		WHERE company_id = $1 AND id = $2`, company, id); err != nil {
		return "", notFound(err, apierr.EmployeeNotFound, map[string]any{"employee_id": id})
	}
	plain, err := p.box.Open(sealed, sealContext(company, id))
	if err != nil {
		return "", apierr.Wrap(apierr.CustomerPersonalNumberUnreadable, err)
	}
	return string(plain), nil
}

// EmployeeFilter narrows the employee list.
type EmployeeFilter struct {
	IncludeInactive bool
	Search          string
}

// Employees returns up to limit+1 employees after the position after,
// oldest first.
func (p *Payroll) Employees(ctx context.Context, company uuid.UUID, f EmployeeFilter, after *cursor.Position, limit int) ([]Employee, error) {
	at, id := time.Time{}, uuid.Nil
	if after != nil {
		at, id = after.At, after.ID
	}
	q := `SELECT ` + employeeColumns + ` FROM employees WHERE company_id = $1 AND (created_at, id) > ($2, $3)
		AND ($5 OR is_active) AND ($6 = '' OR strpos(search_name, $6) > 0) ORDER BY created_at, id LIMIT $4`
	out := []Employee{}
	err := p.db.Q(ctx).SelectContext(ctx, &out, q, company, at, id, limit+1, f.IncludeInactive,
		store.Fold(strings.TrimSpace(f.Search)))
	return out, err
}

// insertEmployee stores a new employee with the personnummer pn (12
// digits) sealed and audits it; a personnummer the company has is
// EMPLOYEE_DUPLICATE_PERSONNUMMER.
func (p *Payroll) insertEmployee(ctx context.Context, e Employee, pn string) (Employee, error) {
	token := p.box.Token(kindPersonnummer, pn)
	var taken []uuid.UUID
	if err := p.db.Q(ctx).SelectContext(ctx, &taken, `SELECT id FROM employees WHERE company_id = $1
		AND personnummer_token = $2`, e.CompanyID, token); err != nil {
		return e, err
	}
	if len(taken) > 0 {
		return e, apierr.New(apierr.EmployeeDuplicatePersonnummer, map[string]any{"existing_employee_id": taken[0],
			"field": "personnummer"})
	}
	err := p.db.Q(ctx).GetContext(ctx, &e, `INSERT INTO employees (company_id, id, first_name, last_name, search_name,
			personnummer_sealed, personnummer_token, personnummer_last4, birth_date, employment_type, personnel_category,
			employment_start, employment_end, employment_degree, hours_per_week, salary_type, monthly_salary, hourly_rate,
			tax_table_number, tax_column, is_sidoinkomst, jamkning_percentage, jamkning_valid_from, jamkning_valid_to,
			f_skatt_status, clearing_number, bank_account_number, vacation_rule, vacation_days_per_year, email, phone,
			address_line1, postal_code, city, dimensions)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23,
			$24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, $35)
		RETURNING `+employeeColumns,
		e.CompanyID, e.ID, e.FirstName, e.LastName, searchName(e), p.box.Seal([]byte(pn), sealContext(e.CompanyID, e.ID)),
		token, pn[8:], e.BirthDate, e.EmploymentType, e.Category, e.Start, e.End, e.Degree, e.HoursPerWeek, e.SalaryType,
		e.MonthlySalary, e.HourlyRate, e.TaxTable, e.TaxColumn, e.Sidoinkomst, e.JamkningPercent, e.JamkningFrom,
		e.JamkningTo, e.FSkattStatus, e.Clearing, e.BankAccount, e.VacationRule, e.VacationDays, e.Email, e.Phone,
		e.AddressLine1, e.PostalCode, e.City, e.Dimensions)
	if store.UniqueViolation(err, "employees_company_id_personnummer_token_key") {
		return e, apierr.New(apierr.EmployeeDuplicatePersonnummer, map[string]any{"field": "personnummer"})
	}
	if err != nil {
		return e, err
	}
	return e, p.record(ctx, e.CompanyID, audit.Insert, "employees", e.ID.String(), "Den anställda "+e.Name()+" lades till", nil, e)
}

// updateEmployee stores e over old and audits the change.
func (p *Payroll) updateEmployee(ctx context.Context, old, e Employee, desc string) (Employee, error) {
	err := p.db.Q(ctx).GetContext(ctx, &e, `UPDATE employees SET first_name = $3, last_name = $4, search_name = $5,
			employment_type = $6, personnel_category = $7, employment_start = $8, employment_end = $9,
			employment_degree = $10, hours_per_week = $11, salary_type = $12, monthly_salary = $13, hourly_rate = $14,
			tax_table_number = $15, tax_column = $16, is_sidoinkomst = $17, jamkning_percentage = $18,
			jamkning_valid_from = $19, jamkning_valid_to = $20, f_skatt_status = $21, clearing_number = $22,
			bank_account_number = $23, vacation_rule = $24, vacation_days_per_year = $25, email = $26, phone = $27,
			address_line1 = $28, postal_code = $29, city = $30, is_active = $31, dimensions = $32,
			updated_at = clock_timestamp()
		WHERE company_id = $1 AND id = $2 RETURNING `+employeeColumns,
		e.CompanyID, e.ID, e.FirstName, e.LastName, searchName(e), e.EmploymentType, e.Category, e.Start, e.End, e.Degree,
		e.HoursPerWeek, e.SalaryType, e.MonthlySalary, e.HourlyRate, e.TaxTable, e.TaxColumn, e.Sidoinkomst,
		e.JamkningPercent, e.JamkningFrom, e.JamkningTo, e.FSkattStatus, e.Clearing, e.BankAccount, e.VacationRule,
		e.VacationDays, e.Email, e.Phone, e.AddressLine1, e.PostalCode, e.City, e.IsActive, e.Dimensions)
	if err != nil {
		return e, err
	}
	return e, p.record(ctx, e.CompanyID, audit.Update, "employees", e.ID.String(), desc, old, e)
}

func searchName(e Employee) string { return store.Fold(e.FirstName + " " + e.LastName) }
