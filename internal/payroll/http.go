package payroll

import (
	"context"
	"sort"

	"github.com/oapi-codegen/nullable"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/store"
)

func absenceView(in []Absence) gen.AbsenceDayList {
	out := make(gen.AbsenceDayList, len(in))
	for i, a := range in {
		out[i] = gen.AbsenceDay{SalaryAbsenceDayId: a.ID, AbsenceDate: gdate(a.Day), AbsenceType: gen.AbsenceType(a.Type),
			Hours: a.Hours, Notes: envelope.Nullable(a.Notes)}
	}
	return out
}

func typeOf(t *gen.AbsenceType) string {
	if t == nil {
		return ""
	}
	return string(*t)
}

// ListEmployeeAbsence lists an employee's absence in a range.
func (h *Handler) ListEmployeeAbsence(ctx context.Context, req gen.ListEmployeeAbsenceRequestObject) (gen.ListEmployeeAbsenceResponseObject, error) {
	rows, err := h.p.Absence(ctx, req.CompanyId, req.EmployeeId, req.Params.From.Time, req.Params.To.Time, typeOf(req.Params.Type))
	if err != nil {
		return nil, err
	}
	return gen.ListEmployeeAbsence200JSONResponse{Data: absenceView(rows), Meta: envelope.Meta(ctx)}, nil
}

// PutEmployeeAbsence registers absence for a range.
func (h *Handler) PutEmployeeAbsence(ctx context.Context, req gen.PutEmployeeAbsenceRequestObject) (gen.PutEmployeeAbsenceResponseObject, error) {
	b := req.Body
	rows, err := h.p.PutAbsence(ctx, req.CompanyId, req.EmployeeId, AbsenceWrite{From: b.From.Time, To: b.To.Time,
		Type: string(b.AbsenceType), Hours: b.Hours, Notes: envelope.Optional(b.Notes)})
	if err != nil {
		return nil, err
	}
	res := gen.AbsencePutResult{EmployeeId: req.EmployeeId, Written: len(rows), Days: absenceView(rows)}
	var data gen.AbsencePutResponse_Data
	if store.IsDryRun(ctx) {
		err = data.FromAbsencePutDryRun(gen.AbsencePutDryRun{DryRun: true, Preview: res})
	} else {
		err = data.FromAbsencePutResult(res)
	}
	return gen.PutEmployeeAbsence200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// DeleteEmployeeAbsence deletes absence in a range.
func (h *Handler) DeleteEmployeeAbsence(ctx context.Context, req gen.DeleteEmployeeAbsenceRequestObject) (gen.DeleteEmployeeAbsenceResponseObject, error) {
	n, err := h.p.DeleteAbsence(ctx, req.CompanyId, req.EmployeeId, req.Params.From.Time, req.Params.To.Time, typeOf(req.Params.Type))
	if err != nil {
		return nil, err
	}
	res := gen.AbsenceDeleteResult{DeletedCount: n}
	if store.IsDryRun(ctx) {
		t := true
		res.DryRun = &t
	}
	return gen.DeleteEmployeeAbsence200JSONResponse{Data: res, Meta: envelope.Meta(ctx)}, nil
}

func openingView(o Opening) gen.OpeningBalances {
	return gen.OpeningBalances{EmployeeId: o.EmployeeID, CutoverDate: gdate(o.Cutover), YtdGross: o.YTDGross,
		VacationPaidDaysRemaining: o.VacationDays, Locked: o.LockedByRunID != nil, LockedByRunId: envelope.Nullable(o.LockedByRunID)}
}

// GetEmployeeOpeningBalances answers an employee's opening balances.
func (h *Handler) GetEmployeeOpeningBalances(ctx context.Context, req gen.GetEmployeeOpeningBalancesRequestObject) (gen.GetEmployeeOpeningBalancesResponseObject, error) {
	o, err := h.p.OpeningBalances(ctx, req.CompanyId, req.EmployeeId)
	if err != nil {
		return nil, err
	}
	return gen.GetEmployeeOpeningBalances200JSONResponse{Data: openingView(o), Meta: envelope.Meta(ctx)}, nil
}

// PutEmployeeOpeningBalances sets an employee's opening balances.
func (h *Handler) PutEmployeeOpeningBalances(ctx context.Context, req gen.PutEmployeeOpeningBalancesRequestObject) (gen.PutEmployeeOpeningBalancesResponseObject, error) {
	o, err := h.p.PutOpeningBalances(ctx, req.CompanyId, req.EmployeeId, Opening{EmployeeID: req.EmployeeId,
		Cutover: req.Body.CutoverDate.Time, YTDGross: req.Body.YtdGross, VacationDays: req.Body.VacationPaidDaysRemaining})
	if err != nil {
		return nil, err
	}
	var data gen.OpeningBalancesOutcomeResponse_Data
	if store.IsDryRun(ctx) {
		err = data.FromOpeningBalancesDryRun(gen.OpeningBalancesDryRun{DryRun: true, Preview: openingView(o)})
	} else {
		err = data.FromOpeningBalances(openingView(o))
	}
	return gen.PutEmployeeOpeningBalances200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// GetEmployeeVacationBalance answers an employee's vacation year.
func (h *Handler) GetEmployeeVacationBalance(ctx context.Context, req gen.GetEmployeeVacationBalanceRequestObject) (gen.GetEmployeeVacationBalanceResponseObject, error) {
	b, err := h.p.VacationBalance(ctx, req.CompanyId, req.EmployeeId)
	if err != nil {
		return nil, err
	}
	saved := map[string]gen.Days{}
	keys := make([]string, 0, len(b.Saved))
	for k := range b.Saved {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		saved[k] = quantity(b.Saved[k])
	}
	return gen.GetEmployeeVacationBalance200JSONResponse{Meta: envelope.Meta(ctx), Data: gen.VacationBalance{
		EmployeeId: b.EmployeeID, VacationYearStart: gdate(b.YearStart), EntitledDays: quantity(b.Entitled),
		TakenDays: quantity(b.Taken), RemainingDays: quantity(b.Remaining()), SavedDays: saved,
		SavedDaysTotal: quantity(b.SavedTotal()), EstimatedLiabilitySek: b.Liability}}, nil
}

func settingsView(s Settings) gen.SalarySettings {
	return gen.SalarySettings{PayDay: s.PayDay, DeviationPeriod: gen.SalarySettingsDeviationPeriod(s.DeviationPeriod),
		SickRate: gen.SalarySettingsSickRate(s.SickRate), VoucherSeries: envelope.Nullable(s.Series), NetPayAccount: s.NetPay,
		AgiContactName: envelope.Nullable(s.ContactName), AgiContactPhone: envelope.Nullable(s.ContactPhone),
		AgiContactEmail: envelope.Nullable(s.ContactEmail)}
}

// GetSalarySettings answers the payroll settings.
func (h *Handler) GetSalarySettings(ctx context.Context, req gen.GetSalarySettingsRequestObject) (gen.GetSalarySettingsResponseObject, error) {
	s, err := h.p.Settings(ctx, req.CompanyId)
	if err != nil {
		return nil, err
	}
	return gen.GetSalarySettings200JSONResponse{Data: settingsView(s), Meta: envelope.Meta(ctx)}, nil
}

// UpdateSalarySettings changes the payroll settings.
func (h *Handler) UpdateSalarySettings(ctx context.Context, req gen.UpdateSalarySettingsRequestObject) (gen.UpdateSalarySettingsResponseObject, error) {
	b := req.Body
	ch := SettingsChange{PayDay: b.PayDay, SetSeries: b.VoucherSeries.IsSpecified(), Series: envelope.Optional(b.VoucherSeries),
		SetNetPay: b.NetPayAccount.IsSpecified(), NetPayAccount: envelope.Optional(b.NetPayAccount)}
	if b.DeviationPeriod != nil {
		v := string(*b.DeviationPeriod)
		ch.DeviationPeriod = &v
	}
	if b.SickRate != nil {
		v := string(*b.SickRate)
		ch.SickRate = &v
	}
	for i, n := range []nullable.Nullable[string]{b.AgiContactName, b.AgiContactPhone, b.AgiContactEmail} {
		ch.SetContact[i], ch.Contact[i] = n.IsSpecified(), envelope.Optional(n)
	}
	s, err := h.p.UpdateSettings(ctx, req.CompanyId, ch)
	if err != nil {
		return nil, err
	}
	var data gen.SalarySettingsOutcomeResponse_Data
	if store.IsDryRun(ctx) {
		err = data.FromSalarySettingsDryRun(gen.SalarySettingsDryRun{DryRun: true, Preview: settingsView(s)})
	} else {
		err = data.FromSalarySettings(settingsView(s))
	}
	return gen.UpdateSalarySettings200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}
