package payroll

import (
	"context"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// NewEmployee is an employee with the defaults a create body leaves out:
// a full-time tjänsteman on A-skatt with 25 vacation days, on
// sammalöneregeln when monthly paid and semesterersättning when hourly.
func NewEmployee(company uuid.UUID, salaryType string) Employee {
	rule := SammaLon
	if salaryType == Hourly {
		rule = Ersattning
	}
	return Employee{CompanyID: company, ID: uuid.New(), Category: Tjansteman, Degree: money.Kr(100),
		HoursPerWeek: money.Kr(40), SalaryType: salaryType, FSkattStatus: ASkatt, VacationRule: rule,
		VacationDays: MinVacationDays, IsActive: true}
}

// CreateEmployee registers e with the personnummer pn (10 or 12 digits,
// any separator).
func (p *Payroll) CreateEmployee(ctx context.Context, e Employee, pn string) (Employee, error) {
	num, err := ParsePersonnummer(pn, p.today())
	if err != nil {
		return e, apierr.Field("personnummer", "personnummer", err.Error())
	}
	e.BirthDate, e.Last4 = num.Birth, num.Digits[8:]
	if err := p.checkEmployee(ctx, e); err != nil {
		return e, err
	}
	return p.insertEmployee(ctx, e, num.Digits)
}

// UpdateEmployee changes the company's employee id by change, which gets
// the row as stored (held until the transaction ends) and the stored
// personnummer, and checks the result.
func (p *Payroll) UpdateEmployee(ctx context.Context, company, id uuid.UUID, change func(e *Employee, pn string) error) (Employee, error) {
	old, err := p.Employee(ctx, company, id, true)
	if err != nil {
		return old, err
	}
	pn, err := p.Personnummer(ctx, company, id)
	if err != nil {
		return old, err
	}
	e := old
	if err := change(&e, pn); err != nil {
		return old, err
	}
	if err := p.checkEmployee(ctx, e); err != nil {
		return old, err
	}
	desc := "Den anställda " + e.Name() + " ändrades"
	if old.IsActive && !e.IsActive {
		desc = "Den anställda " + e.Name() + " avslutades (inaktiv)"
	}
	return p.updateEmployee(ctx, old, e, desc)
}

// SamePersonnummer reports whether sent is the stored personnummer pn in
// any of its forms: a PATCH may send it back unchanged.
func (p *Payroll) SamePersonnummer(sent, pn string) bool {
	num, err := ParsePersonnummer(sent, p.today())
	return err == nil && num.Digits == pn
}

// checkEmployee checks e's rules and its dimensions against the
// company's registers.
func (p *Payroll) checkEmployee(ctx context.Context, e Employee) error {
	if err := e.Check(); err != nil {
		return err
	}
	if len(e.Dimensions) == 0 || p.books.CheckDimensions == nil {
		return nil
	}
	return p.books.CheckDimensions(ctx, e.CompanyID, p.today(), []ledger.Dimensions{e.Dimensions})
}
