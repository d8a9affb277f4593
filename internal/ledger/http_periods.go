package ledger

import (
	"context"
	"time"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/jobs"
	"github.com/kontera/kontera/internal/store"
)

// LockFiscalPeriod locks a period.
func (h *Handler) LockFiscalPeriod(ctx context.Context, req gen.LockFiscalPeriodRequestObject) (gen.LockFiscalPeriodResponseObject, error) {
	p, err := h.ledger.LockPeriod(ctx, req.CompanyId, req.FiscalPeriodId, releasing(req.Body))
	if err != nil {
		return nil, err
	}
	return gen.LockFiscalPeriod200JSONResponse{Meta: envelope.Meta(ctx), Data: fiscal.Wire(p)}, nil
}

// UnlockFiscalPeriod opens a locked period again.
func (h *Handler) UnlockFiscalPeriod(ctx context.Context, req gen.UnlockFiscalPeriodRequestObject) (gen.UnlockFiscalPeriodResponseObject, error) {
	p, err := h.ledger.UnlockPeriod(ctx, req.CompanyId, req.FiscalPeriodId)
	if err != nil {
		return nil, err
	}
	data, err := periodResult(ctx, p)
	return gen.UnlockFiscalPeriod200JSONResponse{Meta: envelope.Meta(ctx), Data: data}, err
}

// CloseFiscalPeriod closes a year for good.
func (h *Handler) CloseFiscalPeriod(ctx context.Context, req gen.CloseFiscalPeriodRequestObject) (gen.CloseFiscalPeriodResponseObject, error) {
	p, err := h.ledger.ClosePeriod(ctx, req.CompanyId, req.FiscalPeriodId)
	if err != nil {
		return nil, err
	}
	return gen.CloseFiscalPeriod200JSONResponse{Meta: envelope.Meta(ctx), Data: fiscal.Wire(p)}, nil
}

// RunFiscalYearEnd checks that the year-end may run and queues it; the
// worker checks again when it runs.
func (h *Handler) RunFiscalYearEnd(ctx context.Context, req gen.RunFiscalYearEndRequestObject) (gen.RunFiscalYearEndResponseObject, error) {
	company, id := uuid.UUID(req.CompanyId), uuid.UUID(req.FiscalPeriodId)
	release := releasing(req.Body)
	if err := h.ledger.CheckYearEnd(ctx, company, id, release); err != nil {
		return nil, err
	}
	for _, r := range []bool{false, true} {
		pending, err := h.ops.Pending(ctx, company, YearEndOperation, yearEndParams{PeriodID: id, ReleaseAccruals: r})
		if err != nil {
			return nil, err
		}
		if pending != nil {
			return nil, apierr.New(apierr.Conflict, map[string]any{"reason": "year_end_in_progress",
				"operation_id": pending.ID, "fiscal_period_id": id})
		}
	}
	o, err := h.ops.Enqueue(ctx, company, YearEndOperation, yearEndParams{PeriodID: id, ReleaseAccruals: release})
	if err != nil {
		return nil, err
	}
	return gen.RunFiscalYearEnd202JSONResponse{Meta: envelope.Meta(ctx), Data: jobs.Wire(o)}, nil
}

// SetManualOpeningBalances posts a first year's opening balance.
func (h *Handler) SetManualOpeningBalances(ctx context.Context, req gen.SetManualOpeningBalancesRequestObject) (gen.SetManualOpeningBalancesResponseObject, error) {
	in := make([]OpeningInput, len(req.Body.Lines))
	for i, l := range req.Body.Lines {
		in[i] = OpeningInput{Account: l.AccountNumber, Debit: l.DebitAmount, Credit: l.CreditAmount, Amount: l.Amount}
	}
	e, err := h.ledger.SetOpeningBalances(ctx, req.CompanyId, req.FiscalPeriodId, in)
	if err != nil {
		return nil, err
	}
	d, c := Totals(e.Lines)
	out := gen.OpeningBalanceResult{JournalEntryId: e.ID, VoucherSeries: e.Series, VoucherNumber: e.Number,
		FiscalPeriodId: e.PeriodID, EntryDate: openapi_types.Date{Time: e.Date}, LinesCreated: len(e.Lines),
		TotalDebit: d, TotalCredit: c}
	meta := envelope.Meta(ctx)
	if store.IsDryRun(ctx) {
		return gen.SetManualOpeningBalances200JSONResponse{Meta: meta, Data: gen.OpeningBalanceDryRun{DryRun: true, Preview: out}}, nil
	}
	meta = envelope.WithAudit(meta, e.Number, "/api/v1/companies/"+e.CompanyID.String()+"/journal-entries/"+e.ID.String(), e.PostedAt)
	return gen.SetManualOpeningBalances201JSONResponse{Meta: meta, Data: out}, nil
}

// CloseFiscalPeriodExternally marks a year kept elsewhere as closed.
func (h *Handler) CloseFiscalPeriodExternally(ctx context.Context, req gen.CloseFiscalPeriodExternallyRequestObject) (gen.CloseFiscalPeriodExternallyResponseObject, error) {
	p, err := h.ledger.CloseExternally(ctx, req.CompanyId, req.FiscalPeriodId, h.today())
	if err != nil {
		return nil, err
	}
	data, err := periodResult(ctx, p)
	return gen.CloseFiscalPeriodExternally200JSONResponse{Meta: envelope.Meta(ctx), Data: data}, err
}

// ReopenFiscalPeriodExternally re-opens a year closed outside Kontera.
func (h *Handler) ReopenFiscalPeriodExternally(ctx context.Context, req gen.ReopenFiscalPeriodExternallyRequestObject) (gen.ReopenFiscalPeriodExternallyResponseObject, error) {
	p, err := h.ledger.ReopenExternal(ctx, req.CompanyId, req.FiscalPeriodId)
	if err != nil {
		return nil, err
	}
	data, err := periodResult(ctx, p)
	return gen.ReopenFiscalPeriodExternally200JSONResponse{Meta: envelope.Meta(ctx), Data: data}, err
}

// periodResult is p after an action, or its dry-run preview.
func periodResult(ctx context.Context, p fiscal.Period) (gen.FiscalPeriodActionResult, error) {
	var data gen.FiscalPeriodActionResult
	if store.IsDryRun(ctx) {
		return data, data.FromFiscalPeriodActionDryRun(gen.FiscalPeriodActionDryRun{DryRun: true, Preview: fiscal.Wire(p)})
	}
	return data, data.FromFiscalPeriod(fiscal.Wire(p))
}

// releasing is release_accruals of an optional body.
func releasing(b *gen.ReleaseAccrualsOption) bool {
	return b != nil && b.ReleaseAccruals != nil && *b.ReleaseAccruals
}

// RevalueFiscalPeriodCurrencies checks that a revaluation may run and
// queues it; a dry run answers the revaluation that would be booked.
func (h *Handler) RevalueFiscalPeriodCurrencies(ctx context.Context, req gen.RevalueFiscalPeriodCurrenciesRequestObject) (gen.RevalueFiscalPeriodCurrenciesResponseObject, error) {
	company, id := uuid.UUID(req.CompanyId), uuid.UUID(req.FiscalPeriodId)
	var day *time.Time
	if req.Body != nil && req.Body.AsOfDate != nil {
		day = &req.Body.AsOfDate.Time
	}
	if store.IsDryRun(ctx) {
		r, err := h.ledger.RunRevaluation(ctx, company, id, day)
		if err != nil {
			return nil, err
		}
		return gen.RevalueFiscalPeriodCurrencies200JSONResponse{Meta: envelope.Meta(ctx),
			Data: gen.CurrencyRevaluationDryRun{DryRun: true, Preview: WireRevaluation(r)}}, nil
	}
	p, d, err := h.ledger.CheckRevaluation(ctx, company, id, day)
	if err != nil {
		return nil, err
	}
	// The rates are read now, so a missing one is refused at once.
	if _, _, err := h.ledger.revalue(ctx, company, p, d); err != nil {
		return nil, err
	}
	pending, err := h.ops.Pending(ctx, company, RevaluationOperation, map[string]any{"fiscal_period_id": id})
	if err != nil {
		return nil, err
	}
	if pending != nil {
		return nil, apierr.New(apierr.Conflict, map[string]any{"reason": "revaluation_in_progress",
			"operation_id": pending.ID, "fiscal_period_id": id})
	}
	o, err := h.ops.Enqueue(ctx, company, RevaluationOperation, revaluationParams{PeriodID: id, Day: d})
	if err != nil {
		return nil, err
	}
	return gen.RevalueFiscalPeriodCurrencies202JSONResponse{Meta: envelope.Meta(ctx), Data: jobs.Wire(o)}, nil
}
