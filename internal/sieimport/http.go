package sieimport

import (
	"context"
	"encoding/json"
	"io"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/jobs"
	"github.com/kontera/kontera/internal/sie"
	"github.com/kontera/kontera/internal/store"
)

// Handler serves the SIE import endpoints.
type Handler struct {
	im      *Importer
	signer  *Signer
	cursors *cursor.Codec
	baseURL string
	now     func() time.Time
}

// NewHandler returns the import handler; uploads are signed under
// secret and their URLs rooted at baseURL.
func NewHandler(im *Importer, secret []byte, cursors *cursor.Codec, baseURL string, now func() time.Time) (*Handler, error) {
	s, err := NewSigner(secret)
	if err != nil {
		return nil, err
	}
	return &Handler{im: im, signer: s, cursors: cursors, baseURL: baseURL, now: now}, nil
}

// Signer is the handler's upload signer, for the streamed PUT.
func (h *Handler) Signer() *Signer { return h.signer }

// CreateSieUpload answers a signed upload.
func (h *Handler) CreateSieUpload(ctx context.Context, req gen.CreateSieUploadRequestObject) (gen.CreateSieUploadResponseObject, error) {
	company := uuid.UUID(req.CompanyId)
	if err := CheckName(req.Body.Filename); err != nil {
		return nil, err
	}
	u, err := h.im.Uploads.Create(ctx, company, req.Body.Filename, int64(req.Body.Size), h.now())
	if err != nil {
		return nil, err
	}
	token, err := h.signer.Sign(u)
	if err != nil {
		return nil, err
	}
	return gen.CreateSieUpload201JSONResponse{Meta: envelope.Meta(ctx), Data: gen.SieUpload{StoragePath: u.StoragePath(),
		UploadUrl: h.baseURL + "/api/v1/uploads/" + token, Filename: u.Filename, Size: int(u.Size),
		ExpiresAt: u.ExpiresAt.UTC()}}, nil
}

// received is the file a PUT upload brought, spooled by the streamed
// reader.
type received struct {
	company, upload uuid.UUID
	file            File
	body            io.Reader
}

type receivedKey struct{}

// WithReceived carries a PUT upload's spooled body to its handler.
func WithReceived(ctx context.Context, company, upload uuid.UUID, f File, body io.Reader) context.Context {
	return context.WithValue(ctx, receivedKey{}, received{company: company, upload: upload, file: f, body: body})
}

// PutSieUpload keeps the uploaded file.
func (h *Handler) PutSieUpload(ctx context.Context, _ gen.PutSieUploadRequestObject) (gen.PutSieUploadResponseObject, error) {
	r, ok := ctx.Value(receivedKey{}).(received)
	if !ok {
		return nil, apierr.New(apierr.SIEUploadTokenInvalid, map[string]any{"reason": "invalid"})
	}
	u, err := h.im.Uploads.Receive(ctx, r.company, r.upload, r.file, r.body)
	if err != nil {
		return nil, err
	}
	return gen.PutSieUpload200JSONResponse{Meta: envelope.Meta(ctx), Data: gen.SieUploadReceived{
		StoragePath: u.StoragePath(), Filename: u.Filename, Size: int(u.Size), Sha256: *u.SHA256,
		UploadedAt: u.UploadedAt.UTC()}}, nil
}

// Posted is an import's request as the streamed reader read it: a
// spooled file, or a storage path, and the options.
type Posted struct {
	Filename    string
	File        File
	Body        io.ReadSeeker
	StoragePath string
	Options     Options
}

type postedKey struct{}

// WithPosted carries what the streamed reader read to ImportSie.
func WithPosted(ctx context.Context, p Posted) context.Context {
	return context.WithValue(ctx, postedKey{}, p)
}

// ImportSie keeps the file and queues its import.
func (h *Handler) ImportSie(ctx context.Context, req gen.ImportSieRequestObject) (gen.ImportSieResponseObject, error) {
	company := uuid.UUID(req.CompanyId)
	p, ok := ctx.Value(postedKey{}).(Posted)
	if !ok {
		return nil, apierr.Validation(apierr.Issue{Field: "file", In: "body", Rule: "required", Issue: "send file, or storagePath and filename"})
	}
	r := Request{Filename: p.Filename, File: p.File, Body: p.Body, Options: p.Options}
	if p.StoragePath != "" {
		u, f, err := h.im.Uploads.Stored(ctx, company, p.StoragePath, h.now())
		if err != nil {
			return nil, err
		}
		if p.Filename == "" {
			r.Filename = u.Filename
		}
		r.File, r.Body = f, nil
	}
	i, op, _, err := h.im.Start(ctx, company, r)
	if err != nil {
		return nil, err
	}
	// Just started: no result yet.
	w := jobs.Wire(op)
	return gen.ImportSie202JSONResponse{Meta: envelope.Meta(ctx), Data: gen.SieImportStarted{ImportId: i.ID,
		OperationId: w.OperationId, Type: gen.SieImportStartedType(w.Type), Status: w.Status, CompanyId: w.CompanyId,
		CreatedAt: w.CreatedAt, StartedAt: w.StartedAt, CompletedAt: w.CompletedAt, PollUrl: w.PollUrl,
		WebhookEvent: gen.SieImportStartedWebhookEvent(w.WebhookEvent), Progress: w.Progress,
		Result: nullable.NewNullNullable[gen.SieImportResult](), Error: w.Error}}, nil
}

const listName = "sie_imports"

// ListSieImports answers a page of the company's imports.
func (h *Handler) ListSieImports(ctx context.Context, req gen.ListSieImportsRequestObject) (gen.ListSieImportsResponseObject, error) {
	company := uuid.UUID(req.CompanyId)
	limit := cursor.Limit(req.Params.Limit, cursor.DefaultLimit, cursor.MaxLimit)
	var after *cursor.Position
	if pos := new(cursor.Position); h.cursors.DecodeParam(listName, req.Params.Cursor, pos) {
		after = pos
	}
	list, err := h.im.Imports.List(ctx, company, after, limit)
	if err != nil {
		return nil, err
	}
	list, next := cursor.Next(h.cursors, listName, list, limit, func(i Import) any {
		return cursor.Position{At: i.CreatedAt, ID: i.ID}
	})
	out := make([]gen.SieImport, len(list))
	for k, i := range list {
		out[k] = Wire(i)
	}
	return gen.ListSieImports200JSONResponse{Meta: envelope.Page(ctx, next), Data: out}, nil
}

// GetSieImport answers one import.
func (h *Handler) GetSieImport(ctx context.Context, req gen.GetSieImportRequestObject) (gen.GetSieImportResponseObject, error) {
	i, err := h.im.Imports.Get(ctx, uuid.UUID(req.CompanyId), uuid.UUID(req.ImportId), false)
	if err != nil {
		return nil, err
	}
	return gen.GetSieImport200JSONResponse{Meta: envelope.Meta(ctx), Data: Wire(i)}, nil
}

// ResumeSieImport re-queues a paused or interrupted run.
func (h *Handler) ResumeSieImport(ctx context.Context, req gen.ResumeSieImportRequestObject) (gen.ResumeSieImportResponseObject, error) {
	a, err := h.im.Resume(ctx, uuid.UUID(req.CompanyId), uuid.UUID(req.ImportId), store.IsDryRun(ctx))
	if err != nil {
		return nil, err
	}
	if a.Queued {
		return gen.ResumeSieImport202JSONResponse{Meta: envelope.Meta(ctx), Data: wireAction(a)}, nil
	}
	return gen.ResumeSieImport200JSONResponse{Meta: envelope.Meta(ctx), Data: wireAction(a)}, nil
}

// UndoSieImport queues the batch storno of an import.
func (h *Handler) UndoSieImport(ctx context.Context, req gen.UndoSieImportRequestObject) (gen.UndoSieImportResponseObject, error) {
	a, err := h.im.Undo(ctx, uuid.UUID(req.CompanyId), uuid.UUID(req.ImportId), store.IsDryRun(ctx))
	if err != nil {
		return nil, err
	}
	if a.Queued {
		return gen.UndoSieImport202JSONResponse{Meta: envelope.Meta(ctx), Data: wireAction(a)}, nil
	}
	return gen.UndoSieImport200JSONResponse{Meta: envelope.Meta(ctx), Data: wireAction(a)}, nil
}

func wireAction(a Action) gen.SieImportAction {
	out := gen.SieImportAction{ImportId: a.ImportID, Action: gen.SieImportActionAction(a.Action),
		State: gen.SieImportState(a.State), Phase: envelope.Nullable(a.Phase), Accepted: gen.SieImportActionAcceptedTrue,
		OperationId: envelope.Nullable(a.OperationID)}
	if a.WouldReverse != nil {
		out.WouldReverse = envelope.Nullable(a.WouldReverse)
	}
	return out
}

// Wire is an import as the API shows it.
func Wire(i Import) gen.SieImport {
	o := i.Options()
	cp := i.Checkpoint()
	out := gen.SieImport{ImportId: i.ID, State: gen.SieImportState(i.State), Phase: envelope.Nullable(i.Phase),
		Filename: i.Filename, Sha256: i.SHA256,
		Options: gen.SieImportOptions{OnExistingPeriod: gen.SieImportOptionsOnExistingPeriod(o.OnExistingPeriod),
			UpdateAccountNames: o.UpdateAccountNames, SupersedesImportId: o.SupersedesImportID},
		FiscalPeriodId: envelope.Nullable(i.PeriodID), OperationId: i.OperationID, JobVersion: i.JobVersion,
		SupersedesImportId: envelope.Nullable(i.Supersedes),
		Progress:           gen.SieImportProgress{NextVoucher: cp.Next, Posted: cp.Posted, Lines: cp.Lines, Reversed: cp.Reversed},
		Summary:            nullable.NewNullNullable[gen.SieImportSummary](), Result: nullable.NewNullNullable[gen.SieImportResult](),
		Errors: []gen.SieProblem{}, Warnings: []gen.SieImportWarning{}, CreatedAt: i.CreatedAt.UTC(),
		UpdatedAt: i.UpdatedAt.UTC(), CompletedAt: envelope.Nullable(i.CompletedAt), UndoneAt: envelope.Nullable(i.UndoneAt)}
	if len(cp.Offsets) > 0 {
		offs := cp.Offsets
		out.Progress.SeriesOffsets = &offs
	}
	if s := i.Summary(); s != nil {
		out.Summary.Set(wireSummary(*s))
	}
	if r := i.Result(); r != nil && i.State == Completed {
		out.Result.Set(wireResult(*r))
	}
	var probs []sie.Problem
	if len(i.ErrorsJSON) > 0 && json.Unmarshal(i.ErrorsJSON, &probs) == nil {
		for _, p := range probs {
			out.Errors = append(out.Errors, gen.SieProblem{Line: p.Line, Record: p.Record, Issue: p.Issue})
		}
	}
	out.Warnings = wireWarnings(i.Warnings())
	return out
}

// wireWarnings are an import's warnings as the API shows them.
func wireWarnings(ws []Warning) []gen.SieImportWarning {
	out := make([]gen.SieImportWarning, 0, len(ws))
	for _, w := range ws {
		gw := gen.SieImportWarning{Code: w.Code, Message: w.Message, MessageEn: w.MessageEn}
		if w.Details != nil {
			d := w.Details
			gw.Details = &d
		}
		out = append(out, gw)
	}
	return out
}

// wireSummary is what the first pass read, as the API shows it: the
// file's own facts, not the balances and accounts pass 2 works from.
func wireSummary(s Summary) gen.SieImportSummary {
	out := gen.SieImportSummary{Encoding: string(s.Encoding), Program: nonEmpty(s.Program),
		SieType: nonEmpty(s.Type), CompanyName: nonEmpty(s.Name), OrgNumber: nonEmpty(s.OrgNumber),
		Vouchers: s.Vouchers, Rows: s.Rows, ZeroRows: s.ZeroRows, EmptyVouchers: s.Empty, CorrectedVouchers: s.Corrected,
		Checksum: s.Checksum}
	if len(s.Years) > 0 {
		years := make(map[string]gen.SieYear, len(s.Years))
		for k, y := range s.Years {
			years[strconv.Itoa(k)] = gen.SieYear{Start: openapi_types.Date{Time: y.Start}, End: openapi_types.Date{Time: y.End}}
		}
		out.Years = &years
	}
	if len(s.Series) > 0 {
		series := make(map[string]gen.SieSeriesRead, len(s.Series))
		for name, st := range s.Series {
			w := gen.SieSeriesRead{Count: st.Count, Min: st.Min, Max: st.Max}
			if st.Unnumbered > 0 {
				w.Unnumbered = &st.Unnumbered
			}
			if st.Internal {
				w.Internal = &st.Internal
			}
			series[name] = w
		}
		out.Series = &series
	}
	if s.First != nil {
		out.FirstDate = &openapi_types.Date{Time: *s.First}
	}
	if s.Last != nil {
		out.LastDate = &openapi_types.Date{Time: *s.Last}
	}
	return out
}

// wireResult is what the import did, as the API shows it.
func wireResult(r Result) gen.SieImportResult {
	bc := gen.SieBalanceCheck{Checked: r.BalanceCheck.Checked, Balanced: r.BalanceCheck.Balanced,
		Mismatches: make([]gen.SieBalanceMismatch, len(r.BalanceCheck.Mismatches))}
	if bc.Checked == nil {
		bc.Checked = map[string]int{}
	}
	for k, m := range r.BalanceCheck.Mismatches {
		bc.Mismatches[k] = gen.SieBalanceMismatch{Check: gen.SieBalanceMismatchCheck(m.Check), Account: m.Account,
			Period: nonEmpty(m.Period), File: m.File, Books: m.Books}
	}
	series := make(map[string]gen.SieSeriesBooked, len(r.Series))
	for name, st := range r.Series {
		series[name] = gen.SieSeriesBooked{Vouchers: st.Vouchers, First: st.First, Last: st.Last, Offset: st.Offset}
	}
	warnings := wireWarnings(r.Warnings)
	opening := gen.SieImportResultOpeningBalance(r.OpeningBalance)
	enc := string(r.Encoding)
	return gen.SieImportResult{ImportId: r.ImportID, FiscalPeriodId: &r.PeriodID, Encoding: &enc,
		Vouchers: &r.Vouchers, VouchersPosted: &r.VouchersPosted, LinesPosted: &r.LinesPosted, ZeroRows: &r.ZeroRows,
		EmptyVouchers: &r.Empty, CorrectedVouchers: &r.Corrected, Series: &series, ChecksumVerified: &r.Checksum,
		BalanceCheck: &bc, Warnings: &warnings, ReplacedVouchersReversed: &r.Reversed,
		ReplacedBalancesOfImportId: r.ReplacedBalances, AccountsCreated: &r.AccountsCreated,
		AccountsRenamed: &r.AccountsRenamed, SruCodesFilled: &r.SRUCodesFilled, DimensionsCreated: &r.DimensionsCreated,
		ObjectsCreated: &r.ObjectsCreated, OpeningBalance: &opening, PreviousYearCreated: r.PreviousYear}
}
