package ledger

import (
	"context"
	"sort"
	"time"

	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/jobs"
	"github.com/kontera/kontera/internal/store"
)

// Handler serves the journal-entry operations.
type Handler struct {
	ledger  *Store
	ops     *jobs.Store
	cursors *cursor.Codec
	now     func() time.Time
}

// NewHandler returns the ledger's handler; ops queues the year-end runs.
func NewHandler(s *Store, ops *jobs.Store, c *cursor.Codec, now func() time.Time) *Handler {
	return &Handler{ledger: s, ops: ops, cursors: c, now: now}
}

const listName = "journal-entries"

// stockholm is the time zone a "today" of Swedish books is in.
var stockholm = func() *time.Location {
	l, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		return time.FixedZone("CET", 3600)
	}
	return l
}()

// today is the date in Sweden now.
func (h *Handler) today() time.Time { return Today(h.now()) }

// Today is the date in Sweden at now, as a UTC midnight: the "today" of
// Swedish books.
func Today(now time.Time) time.Time {
	t := now.In(stockholm)
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// ListJournalEntries lists a page of the company's entries.
func (h *Handler) ListJournalEntries(ctx context.Context, req gen.ListJournalEntriesRequestObject) (gen.ListJournalEntriesResponseObject, error) {
	p := req.Params
	f := Filter{PeriodID: p.FiscalPeriodId, Limit: cursor.Limit(p.Limit, cursor.DefaultLimit, cursor.MaxLimit)}
	if p.Status != nil {
		f.Statuses = []Status{Status(*p.Status)}
	}
	if p.DateFrom != nil {
		f.From = &p.DateFrom.Time
	}
	if p.DateTo != nil {
		f.To = &p.DateTo.Time
	}
	if pos := new(cursor.Position); h.cursors.DecodeParam(listName, p.Cursor, pos) {
		f.After = pos
	}
	rows, err := h.ledger.List(ctx, req.CompanyId, f)
	if err != nil {
		return nil, err
	}
	rows, next := cursor.Next(h.cursors, listName, rows, f.Limit, func(e Entry) any { return cursor.Position{At: e.CreatedAt, ID: e.ID} })
	items := make([]gen.JournalEntryListItem, len(rows))
	for i, e := range rows {
		items[i] = gen.JournalEntryListItem{Id: e.ID, FiscalPeriodId: e.PeriodID, VoucherSeries: e.Series,
			VoucherNumber: e.Number, EntryDate: date(e.Date), Description: e.Description,
			Status: gen.JournalEntryStatus(e.Status), SourceType: gen.SourceType(e.SourceType), CreatedAt: e.CreatedAt.UTC(),
			HasDocument: e.HasDocument}
	}
	return gen.ListJournalEntries200JSONResponse{Meta: envelope.Page(ctx, next),
		Data: gen.JournalEntryList{JournalEntries: items}}, nil
}

// GetJournalEntry returns an entry with its lines.
func (h *Handler) GetJournalEntry(ctx context.Context, req gen.GetJournalEntryRequestObject) (gen.GetJournalEntryResponseObject, error) {
	e, err := h.ledger.Get(ctx, req.CompanyId, req.JournalEntryId)
	if err != nil {
		return nil, err
	}
	return gen.GetJournalEntry200JSONResponse{Meta: envelope.Meta(ctx), Data: Wire(e)}, nil
}

// CreateJournalEntry stores a draft.
func (h *Handler) CreateJournalEntry(ctx context.Context, req gen.CreateJournalEntryRequestObject) (gen.CreateJournalEntryResponseObject, error) {
	e, err := h.ledger.CreateDraft(ctx, req.CompanyId, createInput(*req.Body))
	if err != nil {
		return nil, err
	}
	if store.IsDryRun(ctx) {
		return gen.CreateJournalEntry200JSONResponse{Meta: envelope.Meta(ctx),
			Data: gen.JournalEntryDryRun{DryRun: true, Preview: preview(e)}}, nil
	}
	return gen.CreateJournalEntry201JSONResponse{Meta: envelope.Meta(ctx), Data: Wire(e)}, nil
}

// UpdateJournalEntry replaces a draft.
func (h *Handler) UpdateJournalEntry(ctx context.Context, req gen.UpdateJournalEntryRequestObject) (gen.UpdateJournalEntryResponseObject, error) {
	b := req.Body
	in := Input{PeriodID: b.FiscalPeriodId, Date: b.EntryDate.Time, Description: b.Description,
		Series: envelope.OptionalOr(b.VoucherSeries, ""), Notes: envelope.Optional(b.Notes), Lines: linesIn(b.Lines),
		Counterparty: counterpartyIn(b.Counterparty)}
	e, err := h.ledger.UpdateDraft(ctx, req.CompanyId, req.JournalEntryId, in)
	if err != nil {
		return nil, err
	}
	data, err := entryResult(ctx, e)
	return gen.UpdateJournalEntry200JSONResponse{Meta: envelope.Meta(ctx), Data: data}, err
}

// CancelJournalEntry cancels a draft.
func (h *Handler) CancelJournalEntry(ctx context.Context, req gen.CancelJournalEntryRequestObject) (gen.CancelJournalEntryResponseObject, error) {
	e, err := h.ledger.Cancel(ctx, req.CompanyId, req.JournalEntryId)
	if err != nil {
		return nil, err
	}
	data, err := entryResult(ctx, e)
	return gen.CancelJournalEntry200JSONResponse{Meta: envelope.Meta(ctx), Data: data}, err
}

// CommitJournalEntry posts a draft.
func (h *Handler) CommitJournalEntry(ctx context.Context, req gen.CommitJournalEntryRequestObject) (gen.CommitJournalEntryResponseObject, error) {
	e, err := h.ledger.Commit(ctx, req.CompanyId, req.JournalEntryId)
	if err != nil {
		return nil, err
	}
	data, err := entryResult(ctx, e)
	meta := envelope.Meta(ctx)
	if !store.IsDryRun(ctx) {
		meta = envelope.WithAudit(meta, e.Number, "/api/v1/companies/"+e.CompanyID.String()+"/journal-entries/"+e.ID.String(), e.PostedAt)
	}
	return gen.CommitJournalEntry200JSONResponse{Meta: meta, Data: data}, err
}

// BatchCreateJournalEntries creates drafts one by one; each succeeds or
// fails on its own.
func (h *Handler) BatchCreateJournalEntries(ctx context.Context, req gen.BatchCreateJournalEntriesRequestObject) (gen.BatchCreateJournalEntriesResponseObject, error) {
	if b := req.Body.AllOrNothing; b != nil && *b {
		return nil, apierr.New(apierr.NotImplemented, map[string]any{"field": "all_or_nothing",
			"reason": "items are created one by one; send all_or_nothing false"})
	}
	out := gen.JournalBatch{Results: make([]gen.JournalBatchItem, len(req.Body.JournalEntries))}
	for i, item := range req.Body.JournalEntries {
		var e Entry
		err := h.ledger.db.Attempt(ctx, func(ctx context.Context) error {
			var err error
			e, err = h.ledger.CreateDraft(ctx, req.CompanyId, createInput(item))
			return err
		})
		res := gen.JournalBatchItem{RequestIndex: i}
		if ae, ok := apierr.As(err); ok {
			res.Error = &gen.BatchItemError{Code: gen.ErrorCode(ae.Code), Message: ae.Message, MessageEn: ae.MessageEn,
				Details: errorDetails(ae.Details)}
			out.Summary.Failed++
		} else if err != nil {
			return nil, err
		} else {
			res.Ok = true
			res.Data = &gen.BatchItemCreated{Id: e.ID, Status: gen.JournalEntryStatus(e.Status)}
			out.Summary.Succeeded++
		}
		out.Results[i] = res
	}
	out.Summary.Total = len(out.Results)
	var data gen.JournalBatchResult
	var err error
	if store.IsDryRun(ctx) {
		err = data.FromJournalBatchDryRun(gen.JournalBatchDryRun{DryRun: true, Preview: out})
	} else {
		err = data.FromJournalBatch(out)
	}
	return gen.BatchCreateJournalEntries200JSONResponse{Meta: envelope.Meta(ctx), Data: data}, err
}

func entryResult(ctx context.Context, e Entry) (gen.JournalEntryResult, error) {
	var data gen.JournalEntryResult
	if store.IsDryRun(ctx) {
		return data, data.FromJournalEntryDryRun(gen.JournalEntryDryRun{DryRun: true, Preview: preview(e)})
	}
	return data, data.FromJournalEntry(Wire(e))
}

func createInput(b gen.JournalEntryCreate) Input {
	in := Input{PeriodID: b.FiscalPeriodId, Date: b.EntryDate.Time, Description: b.Description,
		Series: envelope.OptionalOr(b.VoucherSeries, ""), SourceID: envelope.Optional(b.SourceId),
		Notes: envelope.Optional(b.Notes), Lines: linesIn(b.Lines), Counterparty: counterpartyIn(b.Counterparty)}
	if b.SourceType != nil {
		in.SourceType = string(*b.SourceType)
	}
	return in
}

// linesIn turns request lines into ledger lines: sort_order first where
// given, then the order sent; cost_center and project into dimensions.
func linesIn(in []gen.JournalLineInput) []Line {
	idx := make([]int, len(in))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		oa, ob := in[idx[a]].SortOrder, in[idx[b]].SortOrder
		return oa != nil && (ob == nil || *oa < *ob)
	})
	out := make([]Line, len(in))
	for i, j := range idx {
		l := in[j]
		dims := Dimensions{}
		if l.Dimensions != nil {
			for k, v := range *l.Dimensions {
				dims[k] = v
			}
		}
		if cc := envelope.Optional(l.CostCenter); cc != nil {
			dims["1"] = *cc
		}
		if pr := envelope.Optional(l.Project); pr != nil {
			dims["6"] = *pr
		}
		out[i] = Line{Account: l.AccountNumber, Description: envelope.Optional(l.LineDescription),
			Currency: envelope.Optional(l.Currency), AmountInCurrency: envelope.Optional(l.AmountInCurrency),
			ExchangeRate: envelope.Optional(l.ExchangeRate), TaxCode: envelope.Optional(l.TaxCode), Dimensions: dims}
		if l.DebitAmount != nil {
			out[i].Debit = *l.DebitAmount
		}
		if l.CreditAmount != nil {
			out[i].Credit = *l.CreditAmount
		}
	}
	return out
}

// counterpartyIn is the counterparty of a request; absent or null is none.
func counterpartyIn(n nullable.Nullable[gen.CounterpartyInput]) Counterparty {
	c := envelope.Optional(n)
	if c == nil {
		return Counterparty{}
	}
	return Counterparty{CounterpartyName: c.Name, CounterpartyCustomerID: c.CustomerId, CounterpartySupplierID: c.SupplierId}
}

// WireCounterparty is c as the API shows it: null when none is named.
func WireCounterparty(c Counterparty) nullable.Nullable[gen.Counterparty] {
	if !c.Named() {
		return nullable.NewNullNullable[gen.Counterparty]()
	}
	return nullable.NewNullableWithValue(gen.Counterparty{Name: envelope.Nullable(c.CounterpartyName),
		CustomerId: envelope.Nullable(c.CounterpartyCustomerID), SupplierId: envelope.Nullable(c.CounterpartySupplierID)})
}

// WirePoster is who posted an entry as the API shows it: null when
// unknown.
func WirePoster(p Poster) nullable.Nullable[gen.PostedBy] {
	if p.PostedByType == nil {
		return nullable.NewNullNullable[gen.PostedBy]()
	}
	return nullable.NewNullableWithValue(gen.PostedBy{Type: *p.PostedByType, UserId: envelope.Nullable(p.PostedByUserID),
		Email: envelope.Nullable(p.PostedByEmail), Label: envelope.Nullable(p.PostedByLabel)})
}

func wireLines(lines []Line) []gen.JournalLine {
	out := make([]gen.JournalLine, len(lines))
	for i, l := range lines {
		p := linePreview(l)
		out[i] = gen.JournalLine{Id: l.ID, SortOrder: p.SortOrder, AccountNumber: p.AccountNumber,
			DebitAmount: p.DebitAmount, CreditAmount: p.CreditAmount, LineDescription: p.LineDescription,
			Currency: p.Currency, AmountInCurrency: p.AmountInCurrency, ExchangeRate: p.ExchangeRate,
			TaxCode: p.TaxCode, Dimensions: p.Dimensions, CostCenter: p.CostCenter, Project: p.Project,
			AddedByRattelseId: envelope.Nullable(l.AddedBy), StruckByRattelseId: envelope.Nullable(l.StruckBy)}
	}
	return out
}

// Wire is e as the API shows it.
func Wire(e Entry) gen.JournalEntry {
	d, c := Totals(e.Lines)
	lines := wireLines(e.Lines)
	return gen.JournalEntry{
		Id: e.ID, FiscalPeriodId: e.PeriodID, VoucherSeries: e.Series, VoucherNumber: e.Number,
		EntryDate: date(e.Date), Description: e.Description, Status: gen.JournalEntryStatus(e.Status),
		SourceType: gen.SourceType(e.SourceType), SourceId: envelope.Nullable(e.SourceID), Notes: envelope.Nullable(e.Notes),
		ReversesId: envelope.Nullable(e.ReversesID), ReversedById: envelope.Nullable(e.ReversedByID),
		CorrectionOfId: envelope.Nullable(e.CorrectionOfID), NoDocumentRequired: e.NoDocumentRequired,
		HasDocument:      e.HasDocument,
		NoDocumentReason: envelope.Nullable(e.NoDocumentReason), PostedAt: envelope.Nullable(utc(e.PostedAt)),
		CancelledAt: envelope.Nullable(utc(e.CancelledAt)), TotalDebit: d, TotalCredit: c, Lines: lines,
		CreatedAt: e.CreatedAt.UTC(), UpdatedAt: e.UpdatedAt.UTC(), Counterparty: WireCounterparty(e.Counterparty),
		PostedBy: WirePoster(e.Poster), RattelseCount: e.RattelseCount, HasRattelse: e.RattelseCount > 0,
		StruckLines: wireLines(e.Struck),
	}
}

func preview(e Entry) gen.JournalEntryPreview {
	w := Wire(e)
	lines := make([]gen.JournalLinePreview, len(e.Lines))
	for i, l := range e.Lines {
		lines[i] = linePreview(l)
	}
	return gen.JournalEntryPreview{
		FiscalPeriodId: w.FiscalPeriodId, VoucherSeries: w.VoucherSeries, VoucherNumber: w.VoucherNumber,
		EntryDate: w.EntryDate, Description: w.Description, Status: w.Status, SourceType: w.SourceType,
		SourceId: w.SourceId, Notes: w.Notes, ReversesId: w.ReversesId, ReversedById: w.ReversedById,
		CorrectionOfId: w.CorrectionOfId, NoDocumentRequired: w.NoDocumentRequired,
		NoDocumentReason: w.NoDocumentReason, TotalDebit: w.TotalDebit, TotalCredit: w.TotalCredit, Lines: lines,
		Counterparty: w.Counterparty,
	}
}

func linePreview(l Line) gen.JournalLinePreview {
	dims := gen.HeldDimensions{}
	for k, v := range l.Dimensions {
		dims[k] = v
	}
	var cc, pr *string
	if v, ok := l.Dimensions["1"]; ok {
		cc = &v
	}
	if v, ok := l.Dimensions["6"]; ok {
		pr = &v
	}
	return gen.JournalLinePreview{SortOrder: l.SortOrder, AccountNumber: l.Account, DebitAmount: l.Debit,
		CreditAmount: l.Credit, LineDescription: envelope.Nullable(l.Description), Currency: envelope.Nullable(l.Currency),
		AmountInCurrency: envelope.Nullable(l.AmountInCurrency), ExchangeRate: envelope.Nullable(l.ExchangeRate),
		TaxCode: envelope.Nullable(l.TaxCode), Dimensions: dims, CostCenter: envelope.Nullable(cc),
		Project: envelope.Nullable(pr)}
}

func date(t time.Time) openapi_types.Date { return openapi_types.Date{Time: t} }

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// PostingLines are the lines of a verifikat as a write that posts one
// (an invoice, a payment, a supplier invoice) answers them.
func PostingLines(lines []Line) []gen.PostingLine {
	out := make([]gen.PostingLine, len(lines))
	for i, l := range lines {
		tags := l.Dimensions
		if tags == nil {
			tags = Dimensions{}
		}
		out[i] = gen.PostingLine{AccountNumber: l.Account, DebitAmount: l.Debit, CreditAmount: l.Credit,
			Dimensions: gen.HeldDimensions(tags)}
	}
	return out
}
