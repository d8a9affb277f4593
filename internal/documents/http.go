package documents

import (
	"context"
	"net/url"
	"strconv"
	"time"

	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/envelope"
)

// Handler serves the documents endpoints.
type Handler struct {
	store   *Store
	archive *Archive
	blobs   Blobs
	cursors *cursor.Codec
	urls    URLs
}

// URLs is what signed download URLs need: the signer, the server's public
// base URL, the clock, and the audit trail each download call is written to.
type URLs struct {
	Signer  *Signer
	BaseURL string
	Now     func() time.Time
	Audit   *audit.Store
}

// NewHandler returns the documents handler; b keeps the bytes.
func NewHandler(a *Archive, b Blobs, c *cursor.Codec, u URLs) *Handler {
	return &Handler{store: a.store, archive: a, blobs: b, cursors: c, urls: u}
}

// DeleteDocument deletes a document nothing holds.
func (h *Handler) DeleteDocument(ctx context.Context, req gen.DeleteDocumentRequestObject) (gen.DeleteDocumentResponseObject, error) {
	d, err := h.archive.Delete(ctx, req.CompanyId, req.DocumentId)
	if err != nil {
		return nil, err
	}
	return gen.DeleteDocument200JSONResponse{Meta: envelope.Meta(ctx), Data: gen.DocumentDeleted{
		DocumentId: d.ID, Deleted: gen.DocumentDeletedDeletedTrue}}, nil
}

// LinkDocument makes a document underlag of a verifikat.
func (h *Handler) LinkDocument(ctx context.Context, req gen.LinkDocumentRequestObject) (gen.LinkDocumentResponseObject, error) {
	b := req.Body
	d, err := h.archive.Link(ctx, req.CompanyId, req.DocumentId, LinkTo{EntryID: b.JournalEntryId,
		LineID: b.JournalEntryLineId, InboxItemID: b.InboxItemId})
	if err != nil {
		return nil, err
	}
	return gen.LinkDocument200JSONResponse{Meta: envelope.Meta(ctx), Data: Detail(d)}, nil
}

const listName = "documents"

// ListDocuments reads a page of a company's documents, newest upload first.
func (h *Handler) ListDocuments(ctx context.Context, req gen.ListDocumentsRequestObject) (gen.ListDocumentsResponseObject, error) {
	p := req.Params
	f := Filter{Linked: p.Linked, EntryID: p.JournalEntryId, All: p.CurrentOnly != nil && !*p.CurrentOnly}
	if p.UploadedFrom != nil {
		f.From = &p.UploadedFrom.Time
	}
	if p.UploadedTo != nil {
		f.To = &p.UploadedTo.Time
	}
	limit := cursor.Limit(p.Limit, cursor.DefaultLimit, cursor.MaxLimit)
	var after *Position
	if pos := new(Position); h.cursors.DecodeParam(listName, p.Cursor, pos) {
		after = pos
	}
	rows, err := h.store.List(ctx, req.CompanyId, f, after, limit)
	if err != nil {
		return nil, err
	}
	rows, cur := cursor.Next(h.cursors, listName, rows, limit, func(d Doc) any { return Position{At: d.CreatedAt, ID: d.ID} })
	out := gen.DocumentList{Documents: make([]gen.Document, len(rows)), NextCursor: nullable.NewNullNullable[string]()}
	if cur != "" {
		out.NextCursor = nullable.NewNullableWithValue(cur)
	}
	for i, d := range rows {
		out.Documents[i] = Wire(d)
	}
	return gen.ListDocuments200JSONResponse{Meta: envelope.Page(ctx, cur), Data: out}, nil
}

// GetDocument reads one document with its versions and holders.
func (h *Handler) GetDocument(ctx context.Context, req gen.GetDocumentRequestObject) (gen.GetDocumentResponseObject, error) {
	d, err := h.store.Get(ctx, req.CompanyId, req.DocumentId, false)
	if err != nil {
		return nil, err
	}
	return gen.GetDocument200JSONResponse{Meta: envelope.Meta(ctx), Data: Detail(d)}, nil
}

// GetDocumentDownload answers a signed URL for the document's bytes, good
// for DownloadTTL, and writes who asked to the audit trail (a GET: in a
// short transaction of its own).
func (h *Handler) GetDocumentDownload(ctx context.Context, req gen.GetDocumentDownloadRequestObject) (gen.GetDocumentDownloadResponseObject, error) {
	d, err := h.store.Get(ctx, req.CompanyId, req.DocumentId, false)
	if err != nil {
		return nil, err
	}
	expires := h.urls.Now().Add(DownloadTTL).Truncate(time.Second)
	q := url.Values{"company_id": {d.CompanyID.String()}, "expires": {strconv.FormatInt(expires.Unix(), 10)},
		"signature": {h.urls.Signer.Sign(d.CompanyID, d.ID, d.SHA256, expires)}}
	link := h.urls.BaseURL + "/api/v1/document-files/" + d.ID.String() + "?" + q.Encode()
	if err := h.urls.Audit.Record(ctx, audit.Change{CompanyID: d.CompanyID, Action: audit.SecurityEvent,
		Table: "documents", RecordID: d.ID.String(),
		Description: "document.accessed: signed download URL for " + d.FileName + ", valid until " +
			expires.UTC().Format(time.RFC3339)}); err != nil {
		return nil, err
	}
	return gen.GetDocumentDownload200JSONResponse{Meta: envelope.Meta(ctx), Data: gen.DocumentDownload{
		Id: d.ID, FileName: d.FileName, MimeType: envelope.Nullable(d.MimeType), Sha256Hash: d.SHA256,
		IsCurrentVersion: d.Current, DownloadUrl: link, ExpiresInSeconds: gen.N900}}, nil
}

// Wire is d as the list shows it.
func Wire(d Doc) gen.Document {
	return gen.Document{DocumentId: d.ID, FileName: d.FileName, MimeType: envelope.Nullable(d.MimeType),
		FileSizeBytes: d.Size, Sha256Hash: d.SHA256, Version: d.Version, IsCurrentVersion: d.Current,
		UploadSource: gen.UploadSource(d.Source), Linked: d.Linked, JournalEntryId: envelope.Nullable(d.EntryID),
		JournalEntryLineId: envelope.Nullable(d.LineID), CreatedAt: d.CreatedAt.UTC().Truncate(time.Microsecond)}
}

// Detail is d as its own endpoint shows it.
func Detail(d Doc) gen.DocumentDetail {
	w := Wire(d)
	out := gen.DocumentDetail{DocumentId: w.DocumentId, FileName: w.FileName, MimeType: w.MimeType,
		FileSizeBytes: w.FileSizeBytes, Sha256Hash: w.Sha256Hash, Version: w.Version,
		IsCurrentVersion: w.IsCurrentVersion, UploadSource: w.UploadSource, Linked: w.Linked,
		JournalEntryId: w.JournalEntryId, JournalEntryLineId: w.JournalEntryLineId, CreatedAt: w.CreatedAt,
		OriginalId: envelope.Nullable(d.OriginalID), SupersededById: envelope.Nullable(d.SupersededByID), InboxItemId: envelope.Nullable(d.InboxItemID),
		DigitizationDate: nullable.NewNullNullable[openapi_types.Date](),
		// Bank transactions hold underlag once they exist (issue 16 leaves
		// the seam; the bank's issue fills it).
		TransactionIds: []openapi_types.UUID{},
	}
	if d.DigitizationDate != nil {
		out.DigitizationDate = nullable.NewNullableWithValue(openapi_types.Date{Time: *d.DigitizationDate})
	}
	return out
}
