package ledger

import (
	"context"
	"encoding/json"
	"time"

	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/store"
)

// ReverseJournalEntry posts a storno of a posted entry.
func (h *Handler) ReverseJournalEntry(ctx context.Context, req gen.ReverseJournalEntryRequestObject) (gen.ReverseJournalEntryResponseObject, error) {
	day := h.today()
	allow := false
	if b := req.Body; b != nil {
		if b.ReversalDate != nil {
			day = b.ReversalDate.Time
		}
		allow = b.AllowDeepChain != nil && *b.AllowDeepChain
	}
	r, err := h.ledger.Reverse(ctx, req.CompanyId, req.JournalEntryId, day, allow)
	if err != nil {
		return nil, err
	}
	out := gen.JournalReversal{ReversalId: r.Storno.ID, OriginalId: r.Original.ID, VoucherSeries: r.Storno.Series,
		VoucherNumber: r.Storno.Number, EntryDate: date(r.Storno.Date), Status: gen.JournalEntryStatus(r.Storno.Status)}
	var data gen.JournalReversalResult
	if store.IsDryRun(ctx) {
		err = data.FromJournalReversalDryRun(gen.JournalReversalDryRun{DryRun: true, Preview: out})
	} else {
		err = data.FromJournalReversal(out)
	}
	return gen.ReverseJournalEntry200JSONResponse{Meta: envelope.Meta(ctx), Data: data}, err
}

// CorrectJournalEntry replaces a posted entry by storno and a new entry.
func (h *Handler) CorrectJournalEntry(ctx context.Context, req gen.CorrectJournalEntryRequestObject) (gen.CorrectJournalEntryResponseObject, error) {
	b := req.Body
	c := Correction{Description: b.Description, Lines: linesIn(b.Lines), AllowDeep: b.AllowDeepChain != nil && *b.AllowDeepChain}
	r, err := h.ledger.Correct(ctx, req.CompanyId, req.JournalEntryId, c)
	if err != nil {
		return nil, err
	}
	out := gen.JournalCorrection{ReversalId: r.Storno.ID, CorrectedId: r.Replacement.ID, OriginalId: r.Original.ID,
		VoucherSeries: r.Storno.Series, ReversalVoucherNumber: r.Storno.Number, CorrectedVoucherNumber: r.Replacement.Number}
	var data gen.JournalCorrectionResult
	if store.IsDryRun(ctx) {
		err = data.FromJournalCorrectionDryRun(gen.JournalCorrectionDryRun{DryRun: true, Preview: out})
	} else {
		err = data.FromJournalCorrection(out)
	}
	return gen.CorrectJournalEntry200JSONResponse{Meta: envelope.Meta(ctx), Data: data}, err
}

// RedateJournalEntry moves a posted entry to another date.
func (h *Handler) RedateJournalEntry(ctx context.Context, req gen.RedateJournalEntryRequestObject) (gen.RedateJournalEntryResponseObject, error) {
	b := req.Body
	r, err := h.ledger.Redate(ctx, req.CompanyId, req.JournalEntryId, b.NewEntryDate.Time,
		b.AllowDeepChain != nil && *b.AllowDeepChain)
	if err != nil {
		return nil, err
	}
	out := gen.JournalRedate{OriginalId: r.Original.ID, ReversalId: r.Storno.ID, CorrectedId: r.Replacement.ID,
		VoucherSeries: r.Storno.Series, ReversalVoucherNumber: r.Storno.Number,
		CorrectedVoucherNumber: r.Replacement.Number, NewEntryDate: date(r.Replacement.Date)}
	var data gen.JournalRedateResult
	if store.IsDryRun(ctx) {
		err = data.FromJournalRedateDryRun(gen.JournalRedateDryRun{DryRun: true, Preview: out})
	} else {
		err = data.FromJournalRedate(out)
	}
	return gen.RedateJournalEntry200JSONResponse{Meta: envelope.Meta(ctx), Data: data}, err
}

// CorrectJournalEntryMetadata corrects description or date inline.
func (h *Handler) CorrectJournalEntryMetadata(ctx context.Context, req gen.CorrectJournalEntryMetadataRequestObject) (gen.CorrectJournalEntryMetadataResponseObject, error) {
	var day *time.Time
	if d := req.Body.EntryDate; d != nil {
		day = &d.Time
	}
	m, err := h.ledger.CorrectMetadata(ctx, req.CompanyId, req.JournalEntryId, req.Body.Description, day)
	if err != nil {
		return nil, err
	}
	out := gen.JournalMetadataCorrection{Changed: m.Log != nil, LogId: nullable.NewNullNullable[openapi_types.UUID]()}
	if l := m.Log; l != nil {
		out.LogId = nullable.NewNullableWithValue(l.ID)
		out.OldDescription, out.NewDescription = l.OldDescription, l.NewDescription
		if l.OldDate != nil {
			o, n := date(*l.OldDate), date(*l.NewDate)
			out.OldEntryDate, out.NewEntryDate = &o, &n
		}
	}
	var data gen.JournalMetadataCorrectionResult
	if store.IsDryRun(ctx) {
		err = data.FromJournalMetadataCorrectionDryRun(gen.JournalMetadataCorrectionDryRun{DryRun: true, Preview: out})
	} else {
		err = data.FromJournalMetadataCorrection(out)
	}
	return gen.CorrectJournalEntryMetadata200JSONResponse{Meta: envelope.Meta(ctx), Data: data}, err
}

// StrikeJournalEntryLines strikes and adds lines inline.
func (h *Handler) StrikeJournalEntryLines(ctx context.Context, req gen.StrikeJournalEntryLinesRequestObject) (gen.StrikeJournalEntryLinesResponseObject, error) {
	var strike []openapi_types.UUID
	var add []Line
	if req.Body.StrikeLineIds != nil {
		strike = *req.Body.StrikeLineIds
	}
	if req.Body.Lines != nil {
		add = linesIn(*req.Body.Lines)
	}
	s, err := h.ledger.StrikeLines(ctx, req.CompanyId, req.JournalEntryId, strike, add)
	if err != nil {
		return nil, err
	}
	out := gen.JournalStrike{LogId: s.Log.ID, StruckCount: s.Struck, AddedCount: s.Added, TotalDebit: s.Debit, TotalCredit: s.Credit}
	var data gen.JournalStrikeResult
	if store.IsDryRun(ctx) {
		err = data.FromJournalStrikeDryRun(gen.JournalStrikeDryRun{DryRun: true, Preview: out})
	} else {
		err = data.FromJournalStrike(out)
	}
	return gen.StrikeJournalEntryLines200JSONResponse{Meta: envelope.Meta(ctx), Data: data}, err
}

// GetRattelseLog lists an entry's inline corrections, newest first.
func (h *Handler) GetRattelseLog(ctx context.Context, req gen.GetRattelseLogRequestObject) (gen.GetRattelseLogResponseObject, error) {
	rows, err := h.ledger.Rattelser(ctx, req.CompanyId, req.JournalEntryId)
	if err != nil {
		return nil, err
	}
	entries := make([]gen.RattelseLogEntry, len(rows))
	for i, r := range rows {
		entries[i] = gen.RattelseLogEntry{RattelseId: r.ID, RattelseType: gen.RattelseLogEntryRattelseType(r.Type),
			OldDescription: envelope.Nullable(r.OldDescription), NewDescription: envelope.Nullable(r.NewDescription),
			OldEntryDate: envelope.Nullable(optDate(r.OldDate)), NewEntryDate: envelope.Nullable(optDate(r.NewDate)),
			StruckLines: objects(r.StruckLines), AddedLines: objects(r.AddedLines), Actor: r.ActorType,
			ActorLabel: envelope.Nullable(r.ActorLabel), ActorUserId: envelope.Nullable(r.ActorUserID),
			ActorEmail: envelope.Nullable(r.ActorEmail), CreatedAt: r.CreatedAt.UTC(),
			Source: gen.RattelseLogEntrySource(r.Source), ExternalSignature: envelope.Nullable(r.ExternalSignature)}
	}
	return gen.GetRattelseLog200JSONResponse{Meta: envelope.Meta(ctx),
		Data: gen.RattelseLog{JournalEntryId: req.JournalEntryId, Entries: entries}}, nil
}

// UpdateJournalEntryNotes sets or clears the internal note.
func (h *Handler) UpdateJournalEntryNotes(ctx context.Context, req gen.UpdateJournalEntryNotesRequestObject) (gen.UpdateJournalEntryNotesResponseObject, error) {
	e, err := h.ledger.SetNotes(ctx, req.CompanyId, req.JournalEntryId, envelope.Optional(req.Body.Notes))
	if err != nil {
		return nil, err
	}
	out := gen.JournalNotes{JournalEntryId: e.ID, Notes: envelope.Nullable(e.Notes),
		VoucherSeries: nullable.NewNullNullable[string](), VoucherNumber: nullable.NewNullNullable[int]()}
	if e.Number > 0 {
		out.VoucherSeries, out.VoucherNumber = nullable.NewNullableWithValue(e.Series), nullable.NewNullableWithValue(e.Number)
	}
	var data gen.JournalNotesResult
	if store.IsDryRun(ctx) {
		err = data.FromJournalNotesDryRun(gen.JournalNotesDryRun{DryRun: true, Preview: out})
	} else {
		err = data.FromJournalNotes(out)
	}
	return gen.UpdateJournalEntryNotes200JSONResponse{Meta: envelope.Meta(ctx), Data: data}, err
}

// MarkJournalEntryNoDocument marks a posted entry as needing no underlag.
func (h *Handler) MarkJournalEntryNoDocument(ctx context.Context, req gen.MarkJournalEntryNoDocumentRequestObject) (gen.MarkJournalEntryNoDocumentResponseObject, error) {
	var reason *string
	if req.Body != nil {
		reason = envelope.Optional(req.Body.Reason)
	}
	e, err := h.ledger.MarkNoDocument(ctx, req.CompanyId, req.JournalEntryId, reason)
	if err != nil {
		return nil, err
	}
	out := gen.NoDocumentMark{JournalEntryId: e.ID, Exempted: true, Reason: envelope.Nullable(e.NoDocumentReason)}
	var data gen.NoDocumentMarkResult
	if store.IsDryRun(ctx) {
		err = data.FromNoDocumentMarkDryRun(gen.NoDocumentMarkDryRun{DryRun: true, Preview: out})
	} else {
		err = data.FromNoDocumentMark(out)
	}
	return gen.MarkJournalEntryNoDocument200JSONResponse{Meta: envelope.Meta(ctx), Data: data}, err
}

// UnmarkJournalEntryNoDocument removes the no-underlag mark.
func (h *Handler) UnmarkJournalEntryNoDocument(ctx context.Context, req gen.UnmarkJournalEntryNoDocumentRequestObject) (gen.UnmarkJournalEntryNoDocumentResponseObject, error) {
	e, removed, err := h.ledger.UnmarkNoDocument(ctx, req.CompanyId, req.JournalEntryId)
	if err != nil {
		return nil, err
	}
	out := gen.NoDocumentUnmark{JournalEntryId: e.ID, Exempted: false, Removed: removed}
	var data gen.NoDocumentUnmarkResult
	if store.IsDryRun(ctx) {
		err = data.FromNoDocumentUnmarkDryRun(gen.NoDocumentUnmarkDryRun{DryRun: true, Preview: out})
	} else {
		err = data.FromNoDocumentUnmark(out)
	}
	return gen.UnmarkJournalEntryNoDocument200JSONResponse{Meta: envelope.Meta(ctx), Data: data}, err
}

// MarkJournalEntriesNoDocument marks many entries at once.
func (h *Handler) MarkJournalEntriesNoDocument(ctx context.Context, req gen.MarkJournalEntriesNoDocumentRequestObject) (gen.MarkJournalEntriesNoDocumentResponseObject, error) {
	m, err := h.ledger.MarkManyNoDocument(ctx, req.CompanyId, req.Body.JournalEntryIds, envelope.Optional(req.Body.Reason))
	if err != nil {
		return nil, err
	}
	out := gen.NoDocumentBulk{Exempted: len(m.Exempted), JournalEntryIds: m.Exempted, SkippedIds: m.Skipped}
	var data gen.NoDocumentBulkResult
	if store.IsDryRun(ctx) {
		err = data.FromNoDocumentBulkDryRun(gen.NoDocumentBulkDryRun{DryRun: true, Preview: out})
	} else {
		err = data.FromNoDocumentBulk(out)
	}
	return gen.MarkJournalEntriesNoDocument200JSONResponse{Meta: envelope.Meta(ctx), Data: data}, err
}

func optDate(t *time.Time) *openapi_types.Date {
	if t == nil {
		return nil
	}
	d := date(*t)
	return &d
}

func objects(raw []byte) nullable.Nullable[[]gen.RattelseLine] {
	var out []gen.RattelseLine
	if len(raw) == 0 || json.Unmarshal(raw, &out) != nil || out == nil {
		return nullable.NewNullNullable[[]gen.RattelseLine]()
	}
	return nullable.NewNullableWithValue(out)
}

// errorDetails is a refusal's details as the document types them: the
// known keys in their fields, the rest beside them.
func errorDetails(d map[string]any) gen.ErrorDetails {
	var out gen.ErrorDetails
	b, _ := json.Marshal(d)
	_ = json.Unmarshal(b, &out) // d came from apierr: plain JSON values
	return out
}
