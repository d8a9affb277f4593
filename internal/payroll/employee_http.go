package payroll

import (
	"context"
	"time"

	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/store"
)

// Handler serves the payroll operations.
type Handler struct {
	p       *Payroll
	cursors *cursor.Codec
}

// NewHandler returns the handler.
func NewHandler(p *Payroll, cursors *cursor.Codec) *Handler { return &Handler{p: p, cursors: cursors} }

const employeeList = "employees"

// ListEmployees lists the company's employees, personnummer masked.
func (h *Handler) ListEmployees(ctx context.Context, req gen.ListEmployeesRequestObject) (gen.ListEmployeesResponseObject, error) {
	f := EmployeeFilter{}
	if req.Params.IncludeInactive != nil {
		f.IncludeInactive = *req.Params.IncludeInactive
	}
	if req.Params.Search != nil {
		f.Search = *req.Params.Search
	}
	limit := cursor.Limit(req.Params.Limit, cursor.DefaultLimit, cursor.MaxLimit)
	var after *cursor.Position
	if pos := new(cursor.Position); h.cursors.DecodeParam(employeeList, req.Params.Cursor, pos) {
		after = pos
	}
	rows, err := h.p.Employees(ctx, req.CompanyId, f, after, limit)
	if err != nil {
		return nil, err
	}
	rows, next := cursor.Next(h.cursors, employeeList, rows, limit, func(e Employee) any {
		return cursor.Position{At: e.CreatedAt, ID: e.ID}
	})
	data := make(gen.EmployeeList, len(rows))
	for i, e := range rows {
		data[i] = gen.EmployeeListItem{Id: e.ID, FirstName: e.FirstName, LastName: e.LastName,
			PersonnummerMasked: e.MaskedPersonnummer(), EmploymentType: gen.EmploymentType(e.EmploymentType),
			EmploymentStart: openapi_types.Date{Time: e.Start}, EmploymentEnd: envelope.NullableDate(e.End),
			SalaryType: gen.SalaryType(e.SalaryType), MonthlySalary: envelope.Nullable(e.MonthlySalary),
			HourlyRate: envelope.Nullable(e.HourlyRate), FSkattStatus: gen.FSkattStatus(e.FSkattStatus),
			IsActive: e.IsActive, CreatedAt: e.CreatedAt.UTC()}
	}
	return gen.ListEmployees200JSONResponse{Data: data, Meta: envelope.Page(ctx, next)}, nil
}

// GetEmployee returns one employee with the full personnummer.
func (h *Handler) GetEmployee(ctx context.Context, req gen.GetEmployeeRequestObject) (gen.GetEmployeeResponseObject, error) {
	e, err := h.p.Employee(ctx, req.CompanyId, req.EmployeeId, false)
	if err != nil {
		return nil, err
	}
	pn, err := h.p.Personnummer(ctx, req.CompanyId, req.EmployeeId)
	if err != nil {
		return nil, err
	}
	return gen.GetEmployee200JSONResponse{Data: employeeView(e, pn), Meta: envelope.Meta(ctx)}, nil
}

// CreateEmployee registers an employee.
func (h *Handler) CreateEmployee(ctx context.Context, req gen.CreateEmployeeRequestObject) (gen.CreateEmployeeResponseObject, error) {
	b := *req.Body
	e := NewEmployee(req.CompanyId, string(b.SalaryType))
	st := b.SalaryType
	typ := b.EmploymentType
	start := b.EmploymentStart
	apply(&e, gen.EmployeePatch{FirstName: &b.FirstName, LastName: &b.LastName, EmploymentType: &typ,
		PersonnelCategory: b.PersonnelCategory, EmploymentStart: &start, EmploymentEnd: b.EmploymentEnd,
		EmploymentDegree: b.EmploymentDegree, HoursPerWeek: b.HoursPerWeek, SalaryType: &st, MonthlySalary: b.MonthlySalary,
		HourlyRate: b.HourlyRate, TaxTableNumber: b.TaxTableNumber, TaxColumn: b.TaxColumn, IsSidoinkomst: b.IsSidoinkomst,
		JamkningPercentage: b.JamkningPercentage, JamkningValidFrom: b.JamkningValidFrom, JamkningValidTo: b.JamkningValidTo,
		FSkattStatus: b.FSkattStatus, ClearingNumber: b.ClearingNumber, BankAccountNumber: b.BankAccountNumber,
		VacationRule: b.VacationRule, VacationDaysPerYear: b.VacationDaysPerYear, Email: b.Email, Phone: b.Phone,
		AddressLine1: b.AddressLine1, PostalCode: b.PostalCode, City: b.City, Dimensions: b.Dimensions})
	e, err := h.p.CreateEmployee(ctx, e, b.Personnummer)
	if err != nil {
		return nil, err
	}
	pn, err := h.p.Personnummer(ctx, e.CompanyID, e.ID)
	if err != nil {
		return nil, err
	}
	v := employeeView(e, pn)
	if store.IsDryRun(ctx) {
		return gen.CreateEmployee200JSONResponse{Meta: envelope.Meta(ctx),
			Data: gen.EmployeeDryRun{DryRun: true, Preview: preview(v, true)}}, nil
	}
	return gen.CreateEmployee201JSONResponse{Data: v, Meta: envelope.Meta(ctx)}, nil
}

// UpdateEmployee changes the fields a body sends; the personnummer stays.
func (h *Handler) UpdateEmployee(ctx context.Context, req gen.UpdateEmployeeRequestObject) (gen.UpdateEmployeeResponseObject, error) {
	var stored string
	e, err := h.p.UpdateEmployee(ctx, req.CompanyId, req.EmployeeId, func(e *Employee, pn string) error {
		stored = pn
		if s := req.Body.Personnummer; s != nil && !h.p.SamePersonnummer(*s, pn) {
			return apierr.Field("personnummer", "immutable", "the personnummer of an employee never changes; register the person anew")
		}
		apply(e, *req.Body)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var data gen.EmployeeOutcome
	if store.IsDryRun(ctx) {
		err = data.FromEmployeeDryRun(gen.EmployeeDryRun{DryRun: true, Preview: preview(employeeView(e, stored), false)})
	} else {
		err = data.FromEmployee(employeeView(e, stored))
	}
	return gen.UpdateEmployee200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// DeactivateEmployee marks an employee inactive.
func (h *Handler) DeactivateEmployee(ctx context.Context, req gen.DeactivateEmployeeRequestObject) (gen.DeactivateEmployeeResponseObject, error) {
	var stored string
	e, err := h.p.UpdateEmployee(ctx, req.CompanyId, req.EmployeeId, func(e *Employee, pn string) error {
		stored, e.IsActive = pn, false
		return nil
	})
	if err != nil {
		return nil, err
	}
	if store.IsDryRun(ctx) {
		return gen.DeactivateEmployee200JSONResponse{Meta: envelope.Meta(ctx),
			Data: gen.EmployeeDryRun{DryRun: true, Preview: preview(employeeView(e, stored), false)}}, nil
	}
	return gen.DeactivateEmployee204Response{}, nil
}

// apply sets the fields a body sends on e; null clears.
func apply(e *Employee, b gen.EmployeePatch) {
	set(&e.FirstName, b.FirstName)
	set(&e.LastName, b.LastName)
	setAs(&e.EmploymentType, b.EmploymentType)
	setAs(&e.Category, b.PersonnelCategory)
	if b.EmploymentStart != nil {
		e.Start = b.EmploymentStart.Time
	}
	if b.EmploymentEnd.IsSpecified() {
		e.End = dateOf(b.EmploymentEnd)
	}
	set(&e.Degree, b.EmploymentDegree)
	set(&e.HoursPerWeek, b.HoursPerWeek)
	if b.SalaryType != nil && string(*b.SalaryType) != e.SalaryType {
		e.SalaryType = string(*b.SalaryType)
		// The other kind of pay goes with the old type, unless sent.
		if e.SalaryType == Monthly && !b.HourlyRate.IsSpecified() {
			e.HourlyRate = nil
		}
		if e.SalaryType == Hourly && !b.MonthlySalary.IsSpecified() {
			e.MonthlySalary = nil
		}
	}
	setNullable(&e.MonthlySalary, b.MonthlySalary)
	setNullable(&e.HourlyRate, b.HourlyRate)
	setNullable(&e.TaxTable, b.TaxTableNumber)
	setNullable(&e.TaxColumn, b.TaxColumn)
	set(&e.Sidoinkomst, b.IsSidoinkomst)
	setNullable(&e.JamkningPercent, b.JamkningPercentage)
	if b.JamkningValidFrom.IsSpecified() {
		e.JamkningFrom = dateOf(b.JamkningValidFrom)
	}
	if b.JamkningValidTo.IsSpecified() {
		e.JamkningTo = dateOf(b.JamkningValidTo)
	}
	setAs(&e.FSkattStatus, b.FSkattStatus)
	setNullable(&e.Clearing, b.ClearingNumber)
	setNullable(&e.BankAccount, b.BankAccountNumber)
	setAs(&e.VacationRule, b.VacationRule)
	set(&e.VacationDays, b.VacationDaysPerYear)
	setNullable(&e.Email, b.Email)
	setNullable(&e.Phone, b.Phone)
	setNullable(&e.AddressLine1, b.AddressLine1)
	setNullable(&e.PostalCode, b.PostalCode)
	setNullable(&e.City, b.City)
	if b.Dimensions != nil {
		e.Dimensions = ledger.Dimensions(*b.Dimensions)
	}
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

func setAs[T ~string](dst *string, v *T) {
	if v != nil {
		*dst = string(*v)
	}
}

// setNullable sets *dst from a nullable field that was sent: null clears it.
func setNullable[T any](dst **T, n nullable.Nullable[T]) {
	if !n.IsSpecified() {
		return
	}
	if n.IsNull() {
		*dst = nil
		return
	}
	v := n.MustGet()
	*dst = &v
}

func dateOf(n nullable.Nullable[openapi_types.Date]) *time.Time {
	if n.IsNull() {
		return nil
	}
	d := n.MustGet().Time
	return &d
}

func gdate(t time.Time) openapi_types.Date { return openapi_types.Date{Time: t} }

// employeeView is the employee as the detail shows it, pn in full.
func employeeView(e Employee, pn string) gen.Employee {
	return gen.Employee{Id: e.ID, Personnummer: pn, PersonnummerMasked: e.MaskedPersonnummer(), BirthDate: gdate(e.BirthDate),
		FirstName: e.FirstName, LastName: e.LastName, EmploymentType: gen.EmploymentType(e.EmploymentType),
		PersonnelCategory: gen.PersonnelCategory(e.Category), EmploymentStart: gdate(e.Start),
		EmploymentEnd: envelope.NullableDate(e.End), EmploymentDegree: e.Degree, HoursPerWeek: e.HoursPerWeek,
		SalaryType: gen.SalaryType(e.SalaryType), MonthlySalary: envelope.Nullable(e.MonthlySalary),
		HourlyRate: envelope.Nullable(e.HourlyRate), TaxTableNumber: envelope.Nullable(e.TaxTable),
		TaxColumn: envelope.Nullable(e.TaxColumn), IsSidoinkomst: e.Sidoinkomst,
		JamkningPercentage: envelope.Nullable(e.JamkningPercent), JamkningValidFrom: envelope.NullableDate(e.JamkningFrom),
		JamkningValidTo: envelope.NullableDate(e.JamkningTo), FSkattStatus: gen.FSkattStatus(e.FSkattStatus),
		ClearingNumber: envelope.Nullable(e.Clearing), BankAccountNumber: envelope.Nullable(e.BankAccount),
		VacationRule: gen.VacationRule(e.VacationRule), VacationDaysPerYear: e.VacationDays,
		Email: envelope.Nullable(e.Email), Phone: envelope.Nullable(e.Phone), AddressLine1: envelope.Nullable(e.AddressLine1),
		PostalCode: envelope.Nullable(e.PostalCode), City: envelope.Nullable(e.City), IsActive: e.IsActive,
		Dimensions: dimensionsView(e.Dimensions),
		CreatedAt:  e.CreatedAt.UTC(), UpdatedAt: e.UpdatedAt.UTC()}
}

func dimensionsView(d ledger.Dimensions) gen.Dimensions {
	out := gen.Dimensions{}
	for k, v := range d {
		out[k] = v
	}
	return out
}

// preview is a dry run's employee; fresh, it has no id and no
// timestamps, since nothing was stored.
func preview(v gen.Employee, fresh bool) gen.EmployeePreview {
	out := envelope.Reshape[gen.EmployeePreview](v)
	if fresh {
		out.Id = nullable.NewNullNullable[openapi_types.UUID]()
		out.CreatedAt, out.UpdatedAt = nullable.NewNullNullable[time.Time](), nullable.NewNullNullable[time.Time]()
	}
	return out
}
