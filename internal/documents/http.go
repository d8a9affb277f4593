package documents

import (
	"context"
	"errors"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
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
	checked *checked // blobs found right, by the file they are in
	// Received is told of an upload that is no verifikat's underlag yet
	// (from email or api), in its unit of work: the inbox takes it in.
	Received func(ctx context.Context, company uuid.UUID, d Doc) error
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
	return &Handler{store: a.store, archive: a, blobs: b, cursors: c, urls: u, checked: &checked{}}
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
	var after *cursor.Position
	if pos := new(cursor.Position); h.cursors.DecodeParam(listName, p.Cursor, pos) {
		after = pos
	}
	rows, err := h.store.List(ctx, req.CompanyId, f, after, limit)
	if err != nil {
		return nil, err
	}
	rows, cur := cursor.Next(h.cursors, listName, rows, limit, func(d Doc) any { return cursor.Position{At: d.CreatedAt, ID: d.ID} })
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
		DigitizationDate: envelope.NullableDate(d.DigitizationDate),
		// Bank transactions hold underlag once they exist (issue 16 leaves
		// the seam; the bank's issue fills it).
		TransactionIds: []openapi_types.UUID{},
	}
	return out
}

// PutUpload keeps the bytes of the upload in ctx in the blob store of
// company (the path's): the upload's work outside its transaction
// (httpapi's outside-work seam), so no transaction waits on the store.
// Its outcome waits in the upload for the handler.
func (h *Handler) PutUpload(ctx context.Context, company uuid.UUID) {
	u := uploadFrom(ctx)
	if u == nil || u.File == nil {
		return
	}
	u.put = true
	if h.blobs == nil {
		u.stored = errors.New("documents: no blob store is configured")
		return
	}
	key := Key(company, u.File.SHA256)
	u.ensure = func(ctx context.Context) error {
		if u.adopt != nil {
			return u.adopt.Adopt(ctx, key, u.File.Path, u.File.Size)
		}
		return putFile(ctx, h.blobs, key, u.File)
	}
	u.stored = u.ensure(ctx)
}

func putFile(ctx context.Context, b Blobs, key string, f *Spooled) error {
	r, err := os.Open(f.Path)
	if err != nil {
		return err
	}
	defer r.Close()
	return b.Put(ctx, key, r, f.Size)
}

// UploadDocument stores an uploaded file as a document: its bytes were
// read, typed and kept before the transaction (ReadUpload, PutUpload).
func (h *Handler) UploadDocument(ctx context.Context, req gen.UploadDocumentRequestObject) (gen.UploadDocumentResponseObject, error) {
	u := uploadFrom(ctx)
	if u == nil || !u.put {
		return nil, errors.New("documents: the upload was not read before its transaction")
	}
	if u.stored != nil {
		return nil, apierr.Wrap(apierr.DocStoreUnavailable, u.stored)
	}
	n := New{File: *u.File, Name: u.Name, MimeType: u.MimeType, Source: "api"}
	if s, ok := u.Text["upload_source"]; ok {
		n.Source = s
	}
	var err error
	for name, dst := range map[string]**uuid.UUID{"journal_entry_id": &n.EntryID,
		"journal_entry_line_id": &n.LineID, "supersedes_id": &n.SupersedesID} {
		if s, ok := u.Text[name]; ok {
			id, perr := uuid.Parse(s)
			if perr != nil {
				return nil, apierr.Field(name, "format", "must be a UUID")
			}
			*dst = &id
		}
	}
	if s, ok := u.Text["digitization_date"]; ok {
		d, perr := time.Parse(time.DateOnly, s)
		if perr != nil {
			return nil, apierr.Field("digitization_date", "format", "must be a date (YYYY-MM-DD)")
		}
		n.DigitizationDate = &d
	}
	inboxed := h.Received != nil && n.EntryID == nil && n.SupersedesID == nil && (n.Source == "email" || n.Source == "api")
	if inboxed {
		// Not yet anyone's underlag: it waits in the inbox, as the item
		// named now.
		item := uuid.New()
		n.InboxItemID = &item
	}
	st, err := h.archive.Upload(ctx, req.CompanyId, n)
	if err != nil {
		return nil, err
	}
	if inboxed {
		if err := h.Received(ctx, req.CompanyId, st.Doc); err != nil {
			return nil, err
		}
	}
	d := st.Doc
	meta := envelope.Meta(ctx)
	if len(st.Same) > 0 {
		ids := make([]string, len(st.Same))
		for i, id := range st.Same {
			ids[i] = id.String()
		}
		list := strings.Join(ids, ", ")
		meta = envelope.WithWarning(meta, "DOC_DUPLICATE_CONTENT",
			"Samma fil finns redan som underlag: "+list+".",
			"The same bytes are stored already as document "+list+".")
	}
	return gen.UploadDocument201JSONResponse{Meta: meta, Data: gen.DocumentUploaded{Id: d.ID, FileName: d.FileName,
		MimeType: envelope.Nullable(d.MimeType), FileSizeBytes: d.Size, Sha256Hash: d.SHA256, Version: d.Version,
		IsCurrentVersion: d.Current, UploadSource: gen.UploadSource(d.Source), JournalEntryId: envelope.Nullable(d.EntryID),
		JournalEntryLineId: envelope.Nullable(d.LineID), CreatedAt: d.CreatedAt.UTC().Truncate(time.Microsecond),
		Linked: d.Linked, OriginalId: envelope.Nullable(d.OriginalID), DigitizationDate: envelope.NullableDate(d.DigitizationDate)}}, nil
}
