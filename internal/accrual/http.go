package accrual

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/jobs"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/store"
)

// listName names the cursors of the list of months.
const listName = "accruals"

// ReleaseOperation is the type of the operation that books the due
// months when there are more than a request books itself (Large).
const ReleaseOperation = "accruals.release"

// Large is how many waiting months (by invoice and month) a release
// request books itself by default; more are booked by an operation.
const Large = 500

// releaseParams are the parameters of a release operation.
type releaseParams struct {
	Through time.Time `json:"through"`
}

// Handler serves the accrued months of both registers.
type Handler struct {
	book    Book
	ops     *jobs.Store
	cursors *cursor.Codec
	now     func() time.Time
	// Large is how many waiting months a request books itself (Large
	// unless set).
	Large int
}

// NewHandler returns the handler over book, queueing large releases on
// ops.
func NewHandler(book Book, ops *jobs.Store, cursors *cursor.Codec, now func() time.Time) *Handler {
	return &Handler{book: book, ops: ops, cursors: cursors, now: now, Large: Large}
}

// ListAccruals answers a page of months.
func (h *Handler) ListAccruals(ctx context.Context, req gen.ListAccrualsRequestObject) (gen.ListAccrualsResponseObject, error) {
	today := ledger.Today(h.now())
	f := Filter{Limit: cursor.Limit(req.Params.Limit, cursor.DefaultLimit, cursor.MaxLimit), Today: today}
	if req.Params.State != nil {
		f.State = string(*req.Params.State)
	}
	if req.Params.Kind != nil {
		f.Kind = string(*req.Params.Kind)
	}
	if pos := new(Position); h.cursors.DecodeParam(listName, req.Params.Cursor, pos) {
		f.After = pos
	}
	page := f
	page.Limit++ // one more, to learn whether a page follows
	months, err := h.book.ListAccruals(ctx, uuid.UUID(req.CompanyId), page)
	if err != nil {
		return nil, err
	}
	months, next := cursor.Next(h.cursors, listName, months, f.Limit, func(m Month) any { return PositionOf(m) })
	out := make([]gen.AccrualMonth, len(months))
	for i, m := range months {
		out[i] = gen.AccrualMonth{Kind: gen.AccrualMonthKind(m.Kind), InvoiceId: m.InvoiceID, InvoiceNumber: m.InvoiceNumber,
			ItemId: m.ItemID, Month: m.Month.Format("2006-01"), ReleaseDate: openapi_types.Date{Time: m.ReleaseDate},
			Amount: m.Amount, BalanceAccount: m.BalanceAccount, Account: m.Account, State: gen.AccrualState(m.State(today)),
			JournalEntryId: nullable.NewNullNullable[openapi_types.UUID](), RefusedCode: nullable.NewNullNullable[string](),
			RefusedAt: nullable.NewNullNullable[time.Time]()}
		if m.EntryID != nil {
			out[i].JournalEntryId = nullable.NewNullableWithValue(*m.EntryID)
		}
		if m.RefusedCode != nil && m.RefusedAt != nil {
			out[i].RefusedCode, out[i].RefusedAt = nullable.NewNullableWithValue(*m.RefusedCode),
				nullable.NewNullableWithValue(m.RefusedAt.UTC())
		}
	}
	return gen.ListAccruals200JSONResponse{Meta: envelope.Page(ctx, next), Data: out}, nil
}

// ReleaseAccruals books the months due through the day asked (default
// today; never a later day: a month is not released before its day) and
// answers what was booked and what the ledger left waiting.
func (h *Handler) ReleaseAccruals(ctx context.Context, req gen.ReleaseAccrualsRequestObject) (gen.ReleaseAccrualsResponseObject, error) {
	company, today := uuid.UUID(req.CompanyId), ledger.Today(h.now())
	through := today
	if req.Body != nil && req.Body.Through != nil {
		through = req.Body.Through.Time
		if through.After(today) {
			return nil, apierr.Field("through", "not_after_today",
				"a month is released on its day, not before: through is at most today, "+today.Format(time.DateOnly))
		}
	}
	before, err := h.book.Waiting(ctx, company, through)
	if err != nil {
		return nil, err
	}
	if len(before) > h.Large && !store.IsDryRun(ctx) {
		o, err := h.ops.Enqueue(ctx, company, ReleaseOperation, releaseParams{Through: through})
		if err != nil {
			return nil, err
		}
		return gen.ReleaseAccruals202JSONResponse{Meta: envelope.Meta(ctx), Data: jobs.Wire(o)}, nil
	}
	out, err := h.release(ctx, company, through, before)
	if err != nil {
		return nil, err
	}
	return gen.ReleaseAccruals200JSONResponse{Meta: envelope.Meta(ctx), Data: out}, nil
}

// Job runs a queued release operation: what a request would answer, as
// the operation's result.
func (h *Handler) Job(ctx context.Context, run *jobs.Run) (any, error) {
	var p releaseParams
	if err := json.Unmarshal(run.Params, &p); err != nil {
		return nil, err
	}
	before, err := h.book.Waiting(ctx, run.CompanyID, p.Through)
	if err != nil {
		return nil, err
	}
	return h.release(ctx, run.CompanyID, p.Through, before)
}

// release books the company's months due through the day, before being
// those waiting, and answers what was booked and what the ledger left.
func (h *Handler) release(ctx context.Context, company uuid.UUID, through time.Time, before []Waiting) (gen.AccrualRelease,
	error) {
	posted, _, err := h.book.ReleaseAccruals(ctx, company, through)
	if err != nil {
		return gen.AccrualRelease{}, err
	}
	after, err := h.book.Waiting(ctx, company, through)
	if err != nil {
		return gen.AccrualRelease{}, err
	}
	type key struct {
		kind, month, day string
		invoice          uuid.UUID
	}
	left := map[key]bool{}
	for _, w := range after {
		left[key{w.Kind, w.Month, w.ReleaseDate, w.InvoiceID}] = true
	}
	var released []Waiting
	for _, w := range before {
		if !left[key{w.Kind, w.Month, w.ReleaseDate, w.InvoiceID}] {
			released = append(released, w)
		}
	}
	return gen.AccrualRelease{Through: openapi_types.Date{Time: through}, VerifikatPosted: posted, Released: wire(released),
		StillWaiting: wire(after)}, nil
}

// wire is months waiting as the document shows them.
func wire(ws []Waiting) []gen.AccrualWaiting {
	out := make([]gen.AccrualWaiting, len(ws))
	for i, w := range ws {
		day, _ := time.Parse(time.DateOnly, w.ReleaseDate)
		out[i] = gen.AccrualWaiting{Kind: gen.AccrualWaitingKind(w.Kind), InvoiceId: w.InvoiceID, InvoiceNumber: w.InvoiceNumber,
			Month: w.Month, ReleaseDate: openapi_types.Date{Time: day}, Amount: w.Amount}
	}
	return out
}
