package payroll

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

const (
	runList         = "salary_runs"
	runEmployeeList = "salary_run_employees"
)

func ids(in IDs) []openapi_types.UUID {
	out := make([]openapi_types.UUID, len(in))
	copy(out, in)
	return out
}

// runView is a run as answers and events show it.
func runView(r Run) gen.SalaryRun {
	return gen.SalaryRun{Id: r.ID, PeriodYear: r.Year, PeriodMonth: r.Month, Period: r.Period(), PaymentDate: gdate(r.PaymentDate),
		VoucherSeries: envelope.Nullable(r.Series), Status: gen.SalaryRunStatus(r.Status),
		CorrectsRunId: envelope.Nullable(r.CorrectsRunID), CorrectionRunId: envelope.Nullable(r.CorrectionRunID),
		EmployeeCount: r.EmployeeCount, Totals: gen.SalaryRunTotals{Gross: r.Gross, Tax: r.Tax, Net: r.Net,
			Avgifter: r.Avgifter, VacationAccrual: r.Accrual},
		CalculatedAt: envelope.NullableTime(r.CalculatedAt), ApprovedAt: envelope.NullableTime(r.ApprovedAt),
		BookedAt: envelope.NullableTime(r.BookedAt), CorrectedAt: envelope.NullableTime(r.CorrectedAt),
		JournalEntryIds: ids(r.JournalEntryIDs), StornoEntryIds: ids(r.StornoEntryIDs),
		AgiGeneratedAt: envelope.NullableTime(r.AGIGeneratedAt), CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

// runPreview is a dry run's run; fresh, it has no id or timestamps.
func runPreview(r Run, fresh bool) gen.SalaryRunPreview {
	out := envelope.Reshape[gen.SalaryRunPreview](runView(r))
	if fresh {
		out.Id = nullable.NewNullNullable[openapi_types.UUID]()
		out.CreatedAt, out.UpdatedAt = nullable.NewNullNullable[time.Time](), nullable.NewNullNullable[time.Time]()
	}
	return out
}

func runOutcome(ctx context.Context, r Run) (gen.SalaryRunOutcomeResponse_Data, error) {
	var data gen.SalaryRunOutcomeResponse_Data
	var err error
	if store.IsDryRun(ctx) {
		err = data.FromSalaryRunDryRun(gen.SalaryRunDryRun{DryRun: true, Preview: runPreview(r, false)})
	} else {
		err = data.FromSalaryRun(runView(r))
	}
	return data, err
}

// ListSalaryRuns lists the company's runs.
func (h *Handler) ListSalaryRuns(ctx context.Context, req gen.ListSalaryRunsRequestObject) (gen.ListSalaryRunsResponseObject, error) {
	f := RunFilter{Year: req.Params.PeriodYear}
	if req.Params.Status != nil {
		s := string(*req.Params.Status)
		f.Status = &s
	}
	limit := cursor.Limit(req.Params.Limit, cursor.DefaultLimit, cursor.MaxLimit)
	var after *cursor.Position
	if pos := new(cursor.Position); h.cursors.DecodeParam(runList, req.Params.Cursor, pos) {
		after = pos
	}
	rows, err := h.p.Runs(ctx, req.CompanyId, f, after, limit)
	if err != nil {
		return nil, err
	}
	rows, next := cursor.Next(h.cursors, runList, rows, limit, func(r Run) any { return cursor.Position{At: r.CreatedAt, ID: r.ID} })
	data := make(gen.SalaryRunList, len(rows))
	for i, r := range rows {
		data[i] = runView(r)
	}
	return gen.ListSalaryRuns200JSONResponse{Data: data, Meta: envelope.Page(ctx, next)}, nil
}

// CreateSalaryRun opens a period's run.
func (h *Handler) CreateSalaryRun(ctx context.Context, req gen.CreateSalaryRunRequestObject) (gen.CreateSalaryRunResponseObject, error) {
	b := req.Body
	n := NewRun{Year: b.PeriodYear, Month: b.PeriodMonth, Series: envelope.Optional(b.VoucherSeries)}
	if b.PaymentDate != nil {
		d := b.PaymentDate.Time
		n.PaymentDate = &d
	}
	r, err := h.p.CreateRun(ctx, req.CompanyId, n)
	if err != nil {
		return nil, err
	}
	if store.IsDryRun(ctx) {
		return gen.CreateSalaryRun200JSONResponse{Meta: envelope.Meta(ctx),
			Data: gen.SalaryRunDryRun{DryRun: true, Preview: runPreview(r, true)}}, nil
	}
	return gen.CreateSalaryRun201JSONResponse{Data: runView(r), Meta: envelope.Meta(ctx)}, nil
}

// GetSalaryRun answers one run.
func (h *Handler) GetSalaryRun(ctx context.Context, req gen.GetSalaryRunRequestObject) (gen.GetSalaryRunResponseObject, error) {
	r, err := h.p.Run(ctx, req.CompanyId, req.RunId, false)
	if err != nil {
		return nil, err
	}
	return gen.GetSalaryRun200JSONResponse{Data: runView(r), Meta: envelope.Meta(ctx)}, nil
}

// UpdateSalaryRun changes a run's payment date or series.
func (h *Handler) UpdateSalaryRun(ctx context.Context, req gen.UpdateSalaryRunRequestObject) (gen.UpdateSalaryRunResponseObject, error) {
	ch := RunChange{SetSeries: req.Body.VoucherSeries.IsSpecified(), Series: envelope.Optional(req.Body.VoucherSeries)}
	if req.Body.PaymentDate != nil {
		d := req.Body.PaymentDate.Time
		ch.PaymentDate = &d
	}
	r, err := h.p.UpdateRun(ctx, req.CompanyId, req.RunId, ch)
	if err != nil {
		return nil, err
	}
	data, err := runOutcome(ctx, r)
	return gen.UpdateSalaryRun200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// DeleteSalaryRun deletes a draft run.
func (h *Handler) DeleteSalaryRun(ctx context.Context, req gen.DeleteSalaryRunRequestObject) (gen.DeleteSalaryRunResponseObject, error) {
	r, err := h.p.DeleteRun(ctx, req.CompanyId, req.RunId)
	if err != nil {
		return nil, err
	}
	if store.IsDryRun(ctx) {
		return gen.DeleteSalaryRun200JSONResponse{Meta: envelope.Meta(ctx),
			Data: gen.SalaryRunDryRun{DryRun: true, Preview: runPreview(r, false)}}, nil
	}
	return gen.DeleteSalaryRun204Response{}, nil
}

// runEmployeeView is a run's employee row.
func runEmployeeView(e RunEmployee) gen.SalaryRunEmployee {
	absence := map[string]int{}
	_ = json.Unmarshal(e.AbsenceDays, &absence)
	v := gen.SalaryRunEmployee{SalaryRunEmployeeId: e.ID, EmployeeId: e.EmployeeID, FirstName: e.FirstName, LastName: e.LastName,
		PersonnummerMasked: Employee{BirthDate: e.BirthDate}.MaskedPersonnummer(), SalaryType: gen.SalaryType(e.SalaryType),
		SpecificationNumber: e.Spec, GrossSalary: e.Gross, TaxWithheld: e.Tax, NetSalary: e.Net, AvgifterAmount: e.Avgifter,
		TaxWithheldOverride: envelope.Nullable(e.TaxOverride), AvgifterAmountOverride: envelope.Nullable(e.AvgiftOverride),
		VacationAccrual: e.Accrual, VacationDaysTaken: e.VacationDays, AbsenceDays: absence,
		Calculated: len(e.Breakdown) > 0 && string(e.Breakdown) != "null", CreatedAt: e.CreatedAt.UTC()}
	v.CalculationError = nullable.NewNullNullable[gen.SalaryCalculationError]()
	if len(e.CalcError) > 0 && string(e.CalcError) != "null" {
		var ce CalcError
		if json.Unmarshal(e.CalcError, &ce) == nil {
			g := gen.SalaryCalculationError{Code: ce.Code, Message: ce.Message}
			if ce.Field != "" {
				g.Field = &ce.Field
			}
			v.CalculationError = nullable.NewNullableWithValue(g)
		}
	}
	return v
}

func runEmployeeOutcome(ctx context.Context, e RunEmployee) (gen.SalaryRunEmployeeOutcomeResponse_Data, error) {
	var data gen.SalaryRunEmployeeOutcomeResponse_Data
	var err error
	if store.IsDryRun(ctx) {
		err = data.FromSalaryRunEmployeeDryRun(gen.SalaryRunEmployeeDryRun{DryRun: true, Preview: runEmployeeView(e)})
	} else {
		err = data.FromSalaryRunEmployee(runEmployeeView(e))
	}
	return data, err
}

// ListSalaryRunEmployees lists a run's employees.
func (h *Handler) ListSalaryRunEmployees(ctx context.Context, req gen.ListSalaryRunEmployeesRequestObject) (gen.ListSalaryRunEmployeesResponseObject, error) {
	if _, err := h.p.Run(ctx, req.CompanyId, req.RunId, false); err != nil {
		return nil, err
	}
	limit := cursor.Limit(req.Params.Limit, cursor.DefaultLimit, cursor.MaxLimit)
	var after *cursor.Position
	if pos := new(cursor.Position); h.cursors.DecodeParam(runEmployeeList, req.Params.Cursor, pos) {
		after = pos
	}
	rows, err := h.p.RunEmployees(ctx, req.CompanyId, req.RunId, after, limit)
	if err != nil {
		return nil, err
	}
	rows, next := cursor.Next(h.cursors, runEmployeeList, rows, limit, func(e RunEmployee) any {
		return cursor.Position{At: e.CreatedAt, ID: e.ID}
	})
	data := make(gen.SalaryRunEmployeeList, len(rows))
	for i, e := range rows {
		data[i] = runEmployeeView(e)
	}
	return gen.ListSalaryRunEmployees200JSONResponse{Data: data, Meta: envelope.Page(ctx, next)}, nil
}

// AddSalaryRunEmployee puts an employee on a run.
func (h *Handler) AddSalaryRunEmployee(ctx context.Context, req gen.AddSalaryRunEmployeeRequestObject) (gen.AddSalaryRunEmployeeResponseObject, error) {
	e, err := h.p.AddRunEmployee(ctx, req.CompanyId, req.RunId, req.Body.EmployeeId)
	if err != nil {
		return nil, err
	}
	if store.IsDryRun(ctx) {
		data, err := runEmployeeOutcome(ctx, e)
		return gen.AddSalaryRunEmployee200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
	}
	return gen.AddSalaryRunEmployee201JSONResponse{Data: runEmployeeView(e), Meta: envelope.Meta(ctx)}, nil
}

// GetPayslip answers an employee's payslip on a run.
func (h *Handler) GetPayslip(ctx context.Context, req gen.GetPayslipRequestObject) (gen.GetPayslipResponseObject, error) {
	r, err := h.p.Run(ctx, req.CompanyId, req.RunId, false)
	if err != nil {
		return nil, err
	}
	e, err := h.p.RunEmployee(ctx, req.CompanyId, req.RunId, req.EmployeeId)
	if err != nil {
		return nil, err
	}
	v := payslipView(r, e)
	slip, err := e.Payslip()
	if err != nil {
		return nil, err
	}
	if slip == nil {
		lines, err := h.p.Lines(ctx, req.CompanyId, req.RunId, req.EmployeeId)
		if err != nil {
			return nil, err
		}
		for _, l := range lines {
			id := l.ID
			desc := string(l.ItemType)
			if l.Description != nil {
				desc = *l.Description
			}
			v.Lines = append(v.Lines, payslipLine(PayLine{ItemType: l.ItemType, Description: desc, Quantity: l.Quantity,
				UnitPrice: l.UnitPrice, Amount: lineAmount(l.Line), LineID: &id}))
		}
	} else {
		for _, l := range slip.Lines {
			v.Lines = append(v.Lines, payslipLine(l))
		}
		var m map[string]any
		if err := json.Unmarshal(e.Breakdown, &m); err != nil {
			return nil, err
		}
		delete(m, "lines") // they are the payslip's lines above
		v.CalculationBreakdown = nullable.NewNullableWithValue(m)
	}
	return gen.GetPayslip200JSONResponse{Data: v, Meta: envelope.Meta(ctx)}, nil
}

func payslipView(r Run, e RunEmployee) gen.Payslip {
	row := runEmployeeView(e)
	return gen.Payslip{SalaryRunEmployeeId: row.SalaryRunEmployeeId, EmployeeId: row.EmployeeId, FirstName: row.FirstName,
		LastName: row.LastName, PersonnummerMasked: row.PersonnummerMasked, SalaryType: row.SalaryType,
		SpecificationNumber: row.SpecificationNumber, GrossSalary: row.GrossSalary, TaxWithheld: row.TaxWithheld,
		NetSalary: row.NetSalary, AvgifterAmount: row.AvgifterAmount, TaxWithheldOverride: row.TaxWithheldOverride,
		AvgifterAmountOverride: row.AvgifterAmountOverride, VacationAccrual: row.VacationAccrual,
		VacationDaysTaken: row.VacationDaysTaken, AbsenceDays: row.AbsenceDays, Calculated: row.Calculated,
		CalculationError: row.CalculationError, CreatedAt: row.CreatedAt, SalaryRunId: r.ID, Period: r.Period(),
		PaymentDate: gdate(r.PaymentDate), Lines: []gen.PayslipLine{},
		CalculationBreakdown: nullable.NewNullNullable[map[string]any]()}
}

func payslipLine(l PayLine) gen.PayslipLine {
	return gen.PayslipLine{LineId: envelope.Nullable(l.LineID), ItemType: gen.SalaryItemType(l.ItemType),
		Description: l.Description, Quantity: envelope.Nullable(l.Quantity), UnitPrice: envelope.Nullable(l.UnitPrice),
		Amount: l.Amount, Calculated: l.Calculated, Account: l.Account, ExpenseClaimId: envelope.Nullable(l.ExpenseClaimID)}
}

// UpdateSalaryRunEmployee sets or removes a payslip's overrides.
func (h *Handler) UpdateSalaryRunEmployee(ctx context.Context, req gen.UpdateSalaryRunEmployeeRequestObject) (gen.UpdateSalaryRunEmployeeResponseObject, error) {
	b := req.Body
	e, err := h.p.OverrideRunEmployee(ctx, req.CompanyId, req.RunId, req.EmployeeId, Overrides{
		SetTax: b.TaxWithheldOverride.IsSpecified(), Tax: envelope.Optional(b.TaxWithheldOverride),
		SetAvgifter: b.AvgifterAmountOverride.IsSpecified(), Avgifter: envelope.Optional(b.AvgifterAmountOverride)})
	if err != nil {
		return nil, err
	}
	data, err := runEmployeeOutcome(ctx, e)
	return gen.UpdateSalaryRunEmployee200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// RemoveSalaryRunEmployee takes an employee off a run.
func (h *Handler) RemoveSalaryRunEmployee(ctx context.Context, req gen.RemoveSalaryRunEmployeeRequestObject) (gen.RemoveSalaryRunEmployeeResponseObject, error) {
	e, err := h.p.RemoveRunEmployee(ctx, req.CompanyId, req.RunId, req.EmployeeId)
	if err != nil {
		return nil, err
	}
	if store.IsDryRun(ctx) {
		data, err := runEmployeeOutcome(ctx, e)
		return gen.RemoveSalaryRunEmployee200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
	}
	return gen.RemoveSalaryRunEmployee204Response{}, nil
}

func lineView(l StoredLine) gen.SalaryLine {
	return gen.SalaryLine{Id: l.ID, SalaryRunId: l.RunID, EmployeeId: l.EmployeeID, ItemType: gen.SalaryItemType(l.ItemType),
		Description: envelope.Nullable(l.Description), Quantity: envelope.Nullable(l.Quantity),
		UnitPrice: envelope.Nullable(l.UnitPrice), Amount: l.Amount, OneOffTaxPercent: envelope.Nullable(l.OneOffTaxPercent),
		CreatedAt: l.CreatedAt.UTC(), UpdatedAt: l.UpdatedAt.UTC()}
}

func lineOutcome(ctx context.Context, l StoredLine, fresh bool) (gen.SalaryLineOutcomeResponse_Data, error) {
	var data gen.SalaryLineOutcomeResponse_Data
	if !store.IsDryRun(ctx) {
		return data, data.FromSalaryLine(lineView(l))
	}
	p := envelope.Reshape[gen.SalaryLinePreview](lineView(l))
	if fresh {
		p.Id = nullable.NewNullNullable[openapi_types.UUID]()
		p.CreatedAt, p.UpdatedAt = nullable.NewNullNullable[time.Time](), nullable.NewNullNullable[time.Time]()
	}
	return data, data.FromSalaryLineDryRun(gen.SalaryLineDryRun{DryRun: true, Preview: p})
}

func lineChange(desc nullable.Nullable[string], qty nullable.Nullable[money.Quantity], unit, amount, pct nullable.Nullable[money.Amount]) LineChange {
	return LineChange{SetDescription: desc.IsSpecified(), Description: envelope.Optional(desc),
		SetQuantity: qty.IsSpecified(), Quantity: envelope.Optional(qty), SetUnit: unit.IsSpecified(),
		UnitPrice: envelope.Optional(unit), SetAmount: amount.IsSpecified(), Amount: envelope.Optional(amount),
		SetPercent: pct.IsSpecified(), OneOffTaxPercent: envelope.Optional(pct)}
}

// AddSalaryLine adds a line to a payslip.
func (h *Handler) AddSalaryLine(ctx context.Context, req gen.AddSalaryLineRequestObject) (gen.AddSalaryLineResponseObject, error) {
	b := req.Body
	ch := lineChange(b.Description, b.Quantity, b.UnitPrice, b.Amount, b.OneOffTaxPercent)
	t := ItemType(b.ItemType)
	ch.ItemType = &t
	l, err := h.p.AddLine(ctx, req.CompanyId, req.RunId, req.EmployeeId, ch)
	if err != nil {
		return nil, err
	}
	if store.IsDryRun(ctx) {
		data, err := lineOutcome(ctx, l, true)
		return gen.AddSalaryLine200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
	}
	return gen.AddSalaryLine201JSONResponse{Data: lineView(l), Meta: envelope.Meta(ctx)}, nil
}

// UpdateSalaryLine changes a payslip line.
func (h *Handler) UpdateSalaryLine(ctx context.Context, req gen.UpdateSalaryLineRequestObject) (gen.UpdateSalaryLineResponseObject, error) {
	b := req.Body
	l, err := h.p.UpdateLine(ctx, req.CompanyId, req.RunId, req.LineId, lineChange(b.Description, b.Quantity, b.UnitPrice,
		b.Amount, b.OneOffTaxPercent))
	if err != nil {
		return nil, err
	}
	data, err := lineOutcome(ctx, l, false)
	return gen.UpdateSalaryLine200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// DeleteSalaryLine deletes a payslip line.
func (h *Handler) DeleteSalaryLine(ctx context.Context, req gen.DeleteSalaryLineRequestObject) (gen.DeleteSalaryLineResponseObject, error) {
	l, err := h.p.DeleteLine(ctx, req.CompanyId, req.RunId, req.LineId)
	if err != nil {
		return nil, err
	}
	if store.IsDryRun(ctx) {
		data, err := lineOutcome(ctx, l, false)
		return gen.DeleteSalaryLine200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
	}
	return gen.DeleteSalaryLine204Response{}, nil
}

// CalculateSalaryRun calculates a run.
func (h *Handler) CalculateSalaryRun(ctx context.Context, req gen.CalculateSalaryRunRequestObject) (gen.CalculateSalaryRunResponseObject, error) {
	r, err := h.p.CalculateRun(ctx, req.CompanyId, req.RunId)
	if err != nil {
		return nil, err
	}
	data, err := runOutcome(ctx, r)
	return gen.CalculateSalaryRun200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// ApproveSalaryRun approves a run.
func (h *Handler) ApproveSalaryRun(ctx context.Context, req gen.ApproveSalaryRunRequestObject) (gen.ApproveSalaryRunResponseObject, error) {
	var note *string
	if req.Body != nil {
		note = envelope.Text(envelope.Optional(req.Body.Note))
	}
	r, err := h.p.ApproveRun(ctx, req.CompanyId, req.RunId, note)
	if err != nil {
		return nil, err
	}
	data, err := runOutcome(ctx, r)
	return gen.ApproveSalaryRun200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// UnapproveSalaryRun returns an approved run to review.
func (h *Handler) UnapproveSalaryRun(ctx context.Context, req gen.UnapproveSalaryRunRequestObject) (gen.UnapproveSalaryRunResponseObject, error) {
	r, err := h.p.UnapproveRun(ctx, req.CompanyId, req.RunId)
	if err != nil {
		return nil, err
	}
	data, err := runOutcome(ctx, r)
	return gen.UnapproveSalaryRun200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// BookSalaryRun books a run.
func (h *Handler) BookSalaryRun(ctx context.Context, req gen.BookSalaryRunRequestObject) (gen.BookSalaryRunResponseObject, error) {
	b, err := h.p.BookRun(ctx, req.CompanyId, req.RunId)
	if err != nil {
		return nil, err
	}
	out := gen.SalaryRunBooking{SalaryRun: runView(b.Run), AvgifterDeclared: map[string]int{}}
	for c, v := range b.Declaration.Avgift {
		out.AvgifterDeclared[string(c)] = int(v)
	}
	for i, in := range b.Inputs {
		v := gen.SalaryBookingVerifikat{Description: in.Description, EntryDate: gdate(b.Run.PaymentDate),
			VoucherSeries: envelope.Nullable(b.Run.Series), JournalEntryId: nullable.NewNullNullable[openapi_types.UUID](),
			VoucherNumber: nullable.NewNullNullable[int]()}
		if i < len(b.Entries) {
			e := b.Entries[i]
			v.VoucherSeries = nullable.NewNullableWithValue(e.Series)
			if !store.IsDryRun(ctx) {
				v.JournalEntryId = nullable.NewNullableWithValue(e.ID)
				v.VoucherNumber = nullable.NewNullableWithValue(e.Number)
			}
		}
		for _, l := range in.Lines {
			v.Lines = append(v.Lines, gen.SalaryBookingLine{Account: l.Account, Debit: l.Debit, Credit: l.Credit,
				Description: envelope.Nullable(l.Description)})
		}
		out.Verifikat = append(out.Verifikat, v)
	}
	var data gen.SalaryRunBookingResponse_Data
	meta := envelope.Meta(ctx)
	if store.IsDryRun(ctx) {
		err = data.FromSalaryRunBookingDryRun(gen.SalaryRunBookingDryRun{DryRun: true, Preview: out})
	} else {
		err = data.FromSalaryRunBooking(out)
		if len(b.Entries) > 0 {
			e := b.Entries[0]
			meta = envelope.WithAudit(meta, e.Number, fmt.Sprintf("/api/v1/companies/%s/journal-entries/%s", req.CompanyId, e.ID),
				b.Run.BookedAt)
		}
	}
	return gen.BookSalaryRun200JSONResponse{Data: data, Meta: meta}, err
}

// CorrectSalaryRun corrects a booked run.
func (h *Handler) CorrectSalaryRun(ctx context.Context, req gen.CorrectSalaryRunRequestObject) (gen.CorrectSalaryRunResponseObject, error) {
	c, err := h.p.CorrectRun(ctx, req.CompanyId, req.RunId)
	if err != nil {
		return nil, err
	}
	var data gen.SalaryRunCorrectionResponse_Data
	meta := envelope.Meta(ctx)
	if store.IsDryRun(ctx) {
		err = data.FromSalaryRunCorrectionDryRun(gen.SalaryRunCorrectionDryRun{DryRun: true,
			Preview: gen.SalaryRunCorrectionPreview{SalaryRun: runPreview(c.Run, false), StornoEntryIds: ids(c.Stornos)}})
	} else {
		err = data.FromSalaryRunCorrection(gen.SalaryRunCorrection{SalaryRun: runView(c.Run),
			CorrectionRun: runView(c.Correction), StornoEntryIds: ids(c.Stornos)})
		url := fmt.Sprintf("/api/v1/companies/%s/salary-runs/%s", req.CompanyId, req.RunId)
		meta.Audit = &gen.MetaAudit{AuditTrailUrl: &url, ImmutableAt: c.Run.CorrectedAt}
	}
	return gen.CorrectSalaryRun200JSONResponse{Data: data, Meta: meta}, err
}
