package payroll

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// GenerateAgi writes, stores and answers a run's AGI.
func (h *Handler) GenerateAgi(ctx context.Context, req gen.GenerateAgiRequestObject) (gen.GenerateAgiResponseObject, error) {
	f, err := h.p.GenerateAGI(ctx, req.CompanyId, req.RunId)
	if err != nil {
		return nil, err
	}
	v := gen.AgiDeclaration{AgiDeclarationId: f.ID, SalaryRunId: f.RunID, Period: f.Period, IsCorrection: f.Correction,
		Xml: f.XML, XmlFilename: f.Filename, DueDate: gdate(f.Due), GeneratedAt: f.GeneratedAt.UTC(),
		Totals: gen.AgiTotals{Persons: f.Totals.Persons, CashGross: int(f.Totals.Cash), Tax: int(f.Totals.Tax),
			Avgifter: int(f.Totals.Avgifter), AbsenceDays: f.Totals.Absence}}
	var data gen.AgiDeclarationResponse_Data
	if store.IsDryRun(ctx) {
		err = data.FromAgiDeclarationDryRun(gen.AgiDeclarationDryRun{DryRun: true, Preview: v})
	} else {
		err = data.FromAgiDeclaration(v)
	}
	return gen.GenerateAgi200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// GetPayslipPdf renders a payslip.
func (h *Handler) GetPayslipPdf(ctx context.Context, req gen.GetPayslipPdfRequestObject) (gen.GetPayslipPdfResponseObject, error) {
	b, name, err := h.p.PayslipPDF(ctx, req.CompanyId, req.RunId, req.EmployeeId)
	if err != nil {
		return nil, err
	}
	disposition, nosniff := `attachment; filename="`+name+`"`, "nosniff"
	return gen.GetPayslipPdf200ApplicationpdfResponse{Body: bytes.NewReader(b), ContentLength: int64(len(b)),
		Headers: gen.GetPayslipPdf200ResponseHeaders{ContentDisposition: &disposition, XContentTypeOptions: &nosniff}}, nil
}

func masked(p ReportPerson) string { return Employee{BirthDate: p.BirthDate}.MaskedPersonnummer() }

// GetSalaryJournal answers the salary journal.
func (h *Handler) GetSalaryJournal(ctx context.Context, req gen.GetSalaryJournalRequestObject) (gen.GetSalaryJournalResponseObject, error) {
	from, to := 1, 12
	if req.Params.MonthFrom != nil {
		from = *req.Params.MonthFrom
	}
	if req.Params.MonthTo != nil {
		to = *req.Params.MonthTo
	}
	j, err := h.p.SalaryJournal(ctx, req.CompanyId, req.Params.Year, from, to)
	if err != nil {
		return nil, err
	}
	out := gen.SalaryJournal{Year: req.Params.Year, MonthFrom: from, MonthTo: to, Runs: []gen.SalaryJournalRun{},
		Employees: []gen.SalaryJournalEmployee{}, Totals: gen.SalaryJournalTotals{Runs: j.Totals.Runs, Gross: j.Totals.Gross,
			Benefits: j.Totals.Benefits, Tax: j.Totals.Tax, Net: j.Totals.Net, Avgifter: j.Totals.Avgifter,
			VacationAccrual: j.Totals.Accrual}}
	for _, r := range j.Runs {
		out.Runs = append(out.Runs, gen.SalaryJournalRun{Period: r.Period, SalaryRunId: r.RunID, PaymentDate: gdate(r.Payment),
			Gross: r.Gross, Tax: r.Tax, Net: r.Net, Avgifter: r.Avgifter})
	}
	for _, e := range j.Employees {
		out.Employees = append(out.Employees, gen.SalaryJournalEmployee{EmployeeId: e.ID, FirstName: e.FirstName,
			LastName: e.LastName, PersonnummerMasked: masked(e.ReportPerson), Runs: e.Runs, Gross: e.Gross,
			Benefits: e.Benefits, Tax: e.Tax, Net: e.Net, Avgifter: e.Avgifter, VacationAccrual: e.Accrual})
	}
	return gen.GetSalaryJournal200JSONResponse{Body: gen.SalaryJournalResponse{Data: out, Meta: envelope.Meta(ctx)}}, nil
}

// percent is a rate (0.3142) as a percentage (31.42).
func percent(r *apd.Decimal) money.Amount {
	if r == nil {
		return money.Amount{}
	}
	return öre(mul(r, hundred))
}

func categories(in []CategorySum) []gen.AvgifterCategory {
	out := []gen.AvgifterCategory{}
	for _, c := range in {
		out = append(out, gen.AvgifterCategory{Category: gen.AvgifterCategoryCategory(c.Category), Rate: percent(c.Rate),
			Basis: c.Basis, Avgift: c.Avgift})
	}
	return out
}

// GetAvgifterBasis answers the year's avgiftsunderlag.
func (h *Handler) GetAvgifterBasis(ctx context.Context, req gen.GetAvgifterBasisRequestObject) (gen.GetAvgifterBasisResponseObject, error) {
	b, err := h.p.AvgifterBasis(ctx, req.CompanyId, req.Params.Year)
	if err != nil {
		return nil, err
	}
	out := gen.AvgifterBasis{Year: req.Params.Year, Employees: []gen.AvgifterBasisEmployee{},
		Totals: gen.AvgifterBasisTotals{Basis: b.Basis, Avgift: b.Avgift, Declared: int(b.Declared), Categories: categories(b.Categories)}}
	for _, e := range b.Employees {
		out.Employees = append(out.Employees, gen.AvgifterBasisEmployee{EmployeeId: e.ID, FirstName: e.FirstName,
			LastName: e.LastName, PersonnummerMasked: masked(e.ReportPerson), Basis: e.Basis, Avgift: e.Avgift,
			Uncharged: e.Uncharged, Categories: categories(e.Categories)})
	}
	return gen.GetAvgifterBasis200JSONResponse{Body: gen.AvgifterBasisResponse{Data: out, Meta: envelope.Meta(ctx)}}, nil
}

// GetVacationLiability answers the vacation liability.
func (h *Handler) GetVacationLiability(ctx context.Context, req gen.GetVacationLiabilityRequestObject) (gen.GetVacationLiabilityResponseObject, error) {
	l, err := h.p.VacationLiability(ctx, req.CompanyId, req.Params.Year)
	if err != nil {
		return nil, err
	}
	out := gen.VacationLiability{Year: req.Params.Year, AsOf: gdate(l.AsOf), Employees: []gen.VacationLiabilityEmployee{},
		TotalLiability: l.Total, TotalAvgifter: l.Avgifter}
	for _, e := range l.Employees {
		out.Employees = append(out.Employees, gen.VacationLiabilityEmployee{EmployeeId: e.ID, FirstName: e.FirstName,
			LastName: e.LastName, PersonnummerMasked: masked(e.ReportPerson), VacationRule: gen.VacationRule(e.Rule),
			VacationYearStart: gdate(e.YearStart), RemainingDays: quantity(e.Remaining), SavedDays: quantity(e.Saved),
			EarnedDays: quantity(e.Earned), Days: quantity(e.Days), DayValue: e.DayValue, Liability: e.Liability,
			Avgifter: e.Avgifter})
	}
	return gen.GetVacationLiability200JSONResponse{Body: gen.VacationLiabilityResponse{Data: out, Meta: envelope.Meta(ctx)}}, nil
}

// CloseVacationYear closes a vacation year.
func (h *Handler) CloseVacationYear(ctx context.Context, req gen.CloseVacationYearRequestObject) (gen.CloseVacationYearResponseObject, error) {
	book := true
	var start *time.Time
	if req.Body != nil {
		if req.Body.BookAdjustment != nil {
			book = *req.Body.BookAdjustment
		}
		if d := req.Body.VacationYearStart; d != nil {
			start = &d.Time
		}
	}
	y, err := h.p.CloseVacationYear(ctx, req.CompanyId, start, book)
	if err != nil {
		return nil, err
	}
	var v gen.VacationYearClose
	b, err := json.Marshal(closeView(y))
	if err == nil {
		err = json.Unmarshal(b, &v)
	}
	if err != nil {
		return nil, err
	}
	var data gen.VacationYearCloseResponse_Data
	if store.IsDryRun(ctx) {
		err = data.FromVacationYearCloseDryRun(gen.VacationYearCloseDryRun{DryRun: true, Preview: v})
	} else {
		err = data.FromVacationYearClose(v)
	}
	return gen.CloseVacationYear200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}
