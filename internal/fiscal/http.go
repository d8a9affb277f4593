package fiscal

import (
	"context"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/store"
)

// Handler serves the fiscal-period operations.
type Handler struct {
	periods *Store
	// changed runs after a period is opened or its dates move, in the same
	// transaction: the company's tax deadlines follow its years.
	changed func(ctx context.Context, company uuid.UUID) error
}

// NewHandler returns the fiscal-period handler; changed is called in the
// transaction of every change of the company's years.
func NewHandler(s *Store, changed func(context.Context, uuid.UUID) error) *Handler {
	return &Handler{periods: s, changed: changed}
}

// ListFiscalPeriods lists the company's periods, newest first.
func (h *Handler) ListFiscalPeriods(ctx context.Context, req gen.ListFiscalPeriodsRequestObject) (gen.ListFiscalPeriodsResponseObject, error) {
	rows, err := h.periods.List(ctx, uuid.UUID(req.CompanyId))
	if err != nil {
		return nil, err
	}
	out := make([]gen.FiscalPeriod, len(rows))
	for i, p := range rows {
		out[i] = Wire(p)
	}
	return gen.ListFiscalPeriods200JSONResponse{Meta: envelope.Meta(ctx), Data: gen.FiscalPeriodList{FiscalPeriods: out}}, nil
}

// CreateFiscalPeriod opens a fiscal year.
func (h *Handler) CreateFiscalPeriod(ctx context.Context, req gen.CreateFiscalPeriodRequestObject) (gen.CreateFiscalPeriodResponseObject, error) {
	company := uuid.UUID(req.CompanyId)
	name := ""
	if req.Body.Name != nil {
		name = *req.Body.Name
	}
	p, prev, err := h.periods.Open(ctx, company, name, Span{Start: req.Body.PeriodStart.Time, End: req.Body.PeriodEnd.Time})
	if err != nil {
		return nil, err
	}
	if err := h.changed(ctx, company); err != nil {
		return nil, err
	}
	meta := envelope.Meta(ctx)
	if prev != nil && prev.State() != Closed {
		meta = envelope.WithWarning(meta, "PRIOR_FISCAL_YEAR_STILL_OPEN",
			"Föregående räkenskapsår ("+prev.Name+") är inte stängt.",
			"The previous fiscal year ("+prev.Name+") is not closed yet.")
	}
	if store.IsDryRun(ctx) {
		return gen.CreateFiscalPeriod200JSONResponse{Meta: meta,
			Data: gen.FiscalPeriodDryRun{DryRun: true, Preview: preview(Wire(p))}}, nil
	}
	return gen.CreateFiscalPeriod201JSONResponse{Meta: meta, Data: gen.FiscalPeriodEnvelope{FiscalPeriod: Wire(p)}}, nil
}

// UpdateFiscalPeriod renames a period or moves its dates.
func (h *Handler) UpdateFiscalPeriod(ctx context.Context, req gen.UpdateFiscalPeriodRequestObject) (gen.UpdateFiscalPeriodResponseObject, error) {
	company := uuid.UUID(req.CompanyId)
	patch := Patch{Name: req.Body.Name}
	if d := req.Body.PeriodStart; d != nil {
		patch.Start = &d.Time
	}
	if d := req.Body.PeriodEnd; d != nil {
		patch.End = &d.Time
	}
	p, moved, err := h.periods.Update(ctx, company, uuid.UUID(req.FiscalPeriodId), patch)
	if err != nil {
		return nil, err
	}
	if moved {
		if err := h.changed(ctx, company); err != nil {
			return nil, err
		}
	}
	var data gen.FiscalPeriodUpdateResult
	if store.IsDryRun(ctx) {
		err = data.FromFiscalPeriodDryRun(gen.FiscalPeriodDryRun{DryRun: true, Preview: preview(Wire(p))})
	} else {
		err = data.FromFiscalPeriodEnvelope(gen.FiscalPeriodEnvelope{FiscalPeriod: Wire(p)})
	}
	return gen.UpdateFiscalPeriod200JSONResponse{Meta: envelope.Meta(ctx), Data: data}, err
}

// Wire is p as the API shows it.
func Wire(p Period) gen.FiscalPeriod {
	s := p.Span()
	return gen.FiscalPeriod{
		Id: p.ID, Name: p.Name, PeriodStart: openapi_types.Date{Time: p.Start}, PeriodEnd: openapi_types.Date{Time: p.End},
		State: gen.FiscalPeriodState(p.State()), IsClosed: p.Closed, ClosedAt: envelope.Nullable(p.ClosedAt),
		ClosedExternally: p.ClosedExternally, LockedAt: envelope.Nullable(p.LockedAt),
		PreviousPeriodId: envelope.Nullable(p.PreviousID), CreatedAt: p.CreatedAt.UTC(),
		DurationDays: s.Days(), Exceeds18Months: s.Months() > MaxMonths,
	}
}

func preview(p gen.FiscalPeriod) gen.FiscalPeriodPreview {
	return gen.FiscalPeriodPreview{
		Name: p.Name, PeriodStart: p.PeriodStart, PeriodEnd: p.PeriodEnd, State: gen.FiscalPeriodPreviewState(p.State),
		IsClosed: p.IsClosed, ClosedExternally: p.ClosedExternally, PreviousPeriodId: p.PreviousPeriodId,
		DurationDays: p.DurationDays, Exceeds18Months: p.Exceeds18Months,
	}
}
