package assets

import (
	"context"
	"encoding/json"
	"time"

	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/jobs"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// DepreciationOperation is the operation a large depreciation run is
// queued as.
const DepreciationOperation = "assets.depreciation"

// Large is how many asset-months a depreciation request books itself;
// more are queued as an operation (a register of hundreds of assets a
// year behind).
const Large = 500

// Handler serves the register's operations.
type Handler struct {
	r   *Register
	ops *jobs.Store
	// Large overrides Large (tests).
	Large int
}

// NewHandler returns the handler.
func NewHandler(r *Register, ops *jobs.Store) *Handler { return &Handler{r: r, ops: ops, Large: Large} }

type depreciationParams struct {
	Through string `json:"through_month"`
}

// Job runs a queued depreciation: what a request would answer, as the
// operation's result.
func (h *Handler) Job(ctx context.Context, run *jobs.Run) (any, error) {
	var p depreciationParams
	if err := json.Unmarshal(run.Params, &p); err != nil {
		return nil, err
	}
	through, err := time.Parse("2006-01", p.Through)
	if err != nil {
		return nil, err
	}
	booked, err := h.r.Depreciate(ctx, run.CompanyID, through)
	if err != nil {
		return nil, err
	}
	return runView(through, booked), nil
}

func day(d *openapi_types.Date) *time.Time {
	if d == nil {
		return nil
	}
	t := d.Time
	return &t
}

// ListAssets lists the register.
func (h *Handler) ListAssets(ctx context.Context, req gen.ListAssetsRequestObject) (gen.ListAssetsResponseObject, error) {
	status := ""
	if req.Params.Status != nil {
		status = string(*req.Params.Status)
	}
	rows, err := h.r.store.List(ctx, req.CompanyId, status)
	if err != nil {
		return nil, err
	}
	out := make([]gen.Asset, len(rows))
	for i, a := range rows {
		out[i] = view(a)
	}
	return gen.ListAssets200JSONResponse{Data: out, Meta: envelope.Meta(ctx)}, nil
}

// GetAsset answers one asset.
func (h *Handler) GetAsset(ctx context.Context, req gen.GetAssetRequestObject) (gen.GetAssetResponseObject, error) {
	a, err := h.r.store.Get(ctx, req.CompanyId, req.AssetId, false)
	if err != nil {
		return nil, err
	}
	return gen.GetAsset200JSONResponse{Data: view(a), Meta: envelope.Meta(ctx)}, nil
}

// CreateAsset adds an asset.
func (h *Handler) CreateAsset(ctx context.Context, req gen.CreateAssetRequestObject) (gen.CreateAssetResponseObject, error) {
	b := req.Body
	in := Input{Name: b.Name, Class: string(b.AssetClass), AcquisitionDate: b.AcquisitionDate.Time,
		AcquisitionValue: b.AcquisitionValue, AssetAccount: b.AssetAccount, AccumulatedAcct: b.DepreciationAccount,
		CostAccount: b.CostAccount, LifeMonths: b.UsefulLifeMonths, ResidualValue: b.ResidualValue,
		DepreciationStart: day(b.DepreciationStart), JournalEntryID: b.JournalEntryId, SupplierInvoiceID: b.SupplierInvoiceId}
	if b.DepreciationMethod != nil {
		m := string(*b.DepreciationMethod)
		in.Method = &m
	}
	if b.Dimensions != nil {
		in.Dimensions = ledger.Dimensions(*b.Dimensions)
	}
	a, err := h.r.Create(ctx, req.CompanyId, in)
	if err != nil {
		return nil, err
	}
	if store.IsDryRun(ctx) {
		return gen.CreateAsset200JSONResponse{Data: gen.AssetDryRun{DryRun: true, Preview: view(a)}, Meta: envelope.Meta(ctx)}, nil
	}
	return gen.CreateAsset201JSONResponse{Data: view(a), Meta: envelope.Meta(ctx)}, nil
}

// UpdateAsset changes an asset.
func (h *Handler) UpdateAsset(ctx context.Context, req gen.UpdateAssetRequestObject) (gen.UpdateAssetResponseObject, error) {
	b := req.Body
	ch := Change{Name: b.Name, AcquisitionDate: day(b.AcquisitionDate), AcquisitionValue: b.AcquisitionValue,
		LifeMonths: b.UsefulLifeMonths, ResidualValue: b.ResidualValue, DepreciationStart: day(b.DepreciationStart)}
	if b.Dimensions != nil {
		ch.Dimensions = ledger.Dimensions(*b.Dimensions)
	}
	a, err := h.r.Update(ctx, req.CompanyId, req.AssetId, ch)
	if err != nil {
		return nil, err
	}
	var data gen.AssetOutcome
	if store.IsDryRun(ctx) {
		err = data.FromAssetDryRun(gen.AssetDryRun{DryRun: true, Preview: view(a)})
	} else {
		err = data.FromAsset(view(a))
	}
	return gen.UpdateAsset200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// DeleteAsset removes an asset added by mistake.
func (h *Handler) DeleteAsset(ctx context.Context, req gen.DeleteAssetRequestObject) (gen.DeleteAssetResponseObject, error) {
	a, err := h.r.Delete(ctx, req.CompanyId, req.AssetId)
	if err != nil {
		return nil, err
	}
	res := gen.AssetDeleted{Deleted: true, AssetId: a.ID}
	var data gen.AssetDeletedOutcome
	if store.IsDryRun(ctx) {
		err = data.FromAssetDeletedDryRun(gen.AssetDeletedDryRun{DryRun: true, Preview: res})
	} else {
		err = data.FromAssetDeleted(res)
	}
	return gen.DeleteAsset200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// DepreciateAssets books the months due through a month.
func (h *Handler) DepreciateAssets(ctx context.Context, req gen.DepreciateAssetsRequestObject) (gen.DepreciateAssetsResponseObject, error) {
	through, err := time.Parse("2006-01", req.Body.ThroughMonth)
	if err != nil {
		return nil, apierr.Field("through_month", "pattern", "YYYY-MM")
	}
	if !store.IsDryRun(ctx) {
		n, err := h.r.Due(ctx, req.CompanyId, through)
		if err != nil {
			return nil, err
		}
		if n > h.Large {
			o, err := h.ops.Enqueue(ctx, req.CompanyId, DepreciationOperation, depreciationParams{Through: req.Body.ThroughMonth})
			if err != nil {
				return nil, err
			}
			return gen.DepreciateAssets202JSONResponse{Data: jobs.Wire(o), Meta: envelope.Meta(ctx)}, nil
		}
	}
	booked, err := h.r.Depreciate(ctx, req.CompanyId, through)
	if err != nil {
		return nil, err
	}
	run := runView(through, booked)
	var data gen.AssetDepreciationOutcome
	if store.IsDryRun(ctx) {
		err = data.FromAssetDepreciationRunDryRun(gen.AssetDepreciationRunDryRun{DryRun: true, Preview: run})
	} else {
		err = data.FromAssetDepreciationRun(run)
	}
	return gen.DepreciateAssets200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// DisposeAsset sells or scraps an asset.
func (h *Handler) DisposeAsset(ctx context.Context, req gen.DisposeAssetRequestObject) (gen.DisposeAssetResponseObject, error) {
	b := req.Body
	in := DisposeInput{Date: b.DisposalDate.Time, Price: b.Price, VAT: b.VatAmount, Settlement: "1930"}
	if b.SettlementAccount != nil {
		in.Settlement = *b.SettlementAccount
	}
	a, e, err := h.r.Dispose(ctx, req.CompanyId, req.AssetId, in)
	if err != nil {
		return nil, err
	}
	book := a.AcquisitionValue.Sub(a.Booked)
	res := gen.AssetDisposal{Asset: view(a), JournalEntryId: e.ID, VoucherSeries: e.Series, VoucherNumber: e.Number,
		BookValue: book, Result: b.Price.Sub(book)}
	var data gen.AssetDisposalOutcome
	if store.IsDryRun(ctx) {
		err = data.FromAssetDisposalDryRun(gen.AssetDisposalDryRun{DryRun: true, Preview: res})
	} else {
		err = data.FromAssetDisposal(res)
	}
	return gen.DisposeAsset200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// GetAssetSchedule answers an asset's months.
func (h *Handler) GetAssetSchedule(ctx context.Context, req gen.GetAssetScheduleRequestObject) (gen.GetAssetScheduleResponseObject, error) {
	a, months, err := h.r.Schedule(ctx, req.CompanyId, req.AssetId)
	if err != nil {
		return nil, err
	}
	out := gen.AssetSchedule{AssetId: a.ID, Months: make([]gen.AssetScheduleMonth, len(months))}
	for i, m := range months {
		out.Months[i] = gen.AssetScheduleMonth{Month: m.Month.Month.Format("2006-01"), Amount: m.Amount, Booked: m.Entry != nil,
			JournalEntryId: envelope.Nullable(m.Entry)}
		out.Total = out.Total.Add(m.Amount)
		if m.Entry != nil {
			out.Booked = out.Booked.Add(m.Amount)
		}
	}
	return gen.GetAssetSchedule200JSONResponse{Data: out, Meta: envelope.Meta(ctx)}, nil
}

// GetAssetRegister answers the register at a date.
func (h *Handler) GetAssetRegister(ctx context.Context, req gen.GetAssetRegisterRequestObject) (gen.GetAssetRegisterResponseObject, error) {
	held, checks, err := h.r.RegisterAt(ctx, req.CompanyId, req.Params.Date.Time)
	if err != nil {
		return nil, err
	}
	out := gen.AssetRegister{Date: req.Params.Date, Assets: make([]gen.AssetRegisterRow, len(held)),
		Accounts: make([]gen.AssetAccountCheck, len(checks))}
	for i, x := range held {
		a := x.Asset
		out.Assets[i] = gen.AssetRegisterRow{AssetId: a.ID, Name: a.Name, AssetClass: gen.AssetClass(a.Class),
			AssetAccount: a.AssetAccount, DepreciationAccount: envelope.Nullable(a.AccumulatedAccount),
			AcquisitionValue: a.AcquisitionValue, AccumulatedDepreciation: x.Accumulated, BookValue: x.BookValue()}
		out.Totals.AcquisitionValue = out.Totals.AcquisitionValue.Add(a.AcquisitionValue)
		out.Totals.AccumulatedDepreciation = out.Totals.AccumulatedDepreciation.Add(x.Accumulated)
		out.Totals.BookValue = out.Totals.BookValue.Add(x.BookValue())
	}
	for i, c := range checks {
		out.Accounts[i] = gen.AssetAccountCheck{Account: c.Account, Register: c.Register, Ledger: c.Ledger, Difference: c.Difference}
	}
	return gen.GetAssetRegister200JSONResponse{Data: out, Meta: envelope.Meta(ctx)}, nil
}

func view(a Asset) gen.Asset {
	v := gen.Asset{Id: a.ID, Name: a.Name, AssetClass: gen.AssetClass(a.Class), AcquisitionDate: openapi_types.Date{Time: a.AcquisitionDate},
		AcquisitionValue: a.AcquisitionValue, AssetAccount: a.AssetAccount, DepreciationAccount: envelope.Nullable(a.AccumulatedAccount),
		CostAccount: envelope.Nullable(a.CostAccount), DepreciationMethod: gen.AssetDepreciationMethod(a.Method),
		UsefulLifeMonths: envelope.Nullable(a.LifeMonths), ResidualValue: a.ResidualValue,
		DepreciationStart: openapi_types.Date{Time: a.DepreciationStart}, MonthlyDepreciation: nullable.NewNullNullable[money.Amount](),
		AccumulatedDepreciation: a.Booked, BookValue: a.AcquisitionValue.Sub(a.Booked), Dimensions: gen.Dimensions(a.Dimensions),
		JournalEntryId: envelope.Nullable(a.JournalEntryID), SupplierInvoiceId: envelope.Nullable(a.SupplierInvoiceID),
		Status: gen.AssetStatus(a.Status), DisposedOn: envelope.NullableDate(a.DisposedOn),
		DisposalPrice: envelope.Nullable(a.DisposalPrice), DisposalEntryId: envelope.Nullable(a.DisposalEntryID),
		CreatedAt: a.CreatedAt.UTC(), UpdatedAt: a.UpdatedAt.UTC()}
	if s := a.Schedule(); len(s) > 0 {
		v.MonthlyDepreciation = nullable.NewNullableWithValue(s[0].Amount)
	}
	return v
}

// runView is a depreciation run as it is answered and announced.
func runView(through time.Time, booked []MonthBooked) gen.AssetDepreciationRun {
	run := gen.AssetDepreciationRun{ThroughMonth: through.Format("2006-01"), Months: make([]gen.AssetDepreciationMonth, len(booked))}
	for i, m := range booked {
		run.Months[i] = gen.AssetDepreciationMonth{Month: m.Month.Format("2006-01"), JournalEntryId: m.Entry.ID,
			VoucherSeries: m.Entry.Series, VoucherNumber: m.Entry.Number, Amount: m.Amount, AssetCount: m.Assets}
		run.Total = run.Total.Add(m.Amount)
	}
	return run
}
