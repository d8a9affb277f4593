package documents

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
)

// GetDocumentFile serves the bytes a signed URL names (public: the
// signature is the key). A URL changed in any part, or naming another
// company, is DOC_NOT_FOUND, as a missing document is; a genuine one past
// its time is FORBIDDEN, url_expired. The bytes are checked before the
// first is sent (hashed, or known right in a file unchanged since it was
// hashed, within the hour): a blob missing or not what was uploaded is an
// INTEGRITY_FAILURE audit row and a 500, never wrong bytes.
func (h *Handler) GetDocumentFile(ctx context.Context, req gen.GetDocumentFileRequestObject) (gen.GetDocumentFileResponseObject, error) {
	p := req.Params
	notFound := apierr.New(apierr.DocNotFound, map[string]any{"document_id": req.DocumentId})
	company, err1 := uuid.Parse(p.CompanyId)
	id, err2 := uuid.Parse(req.DocumentId)
	if err1 != nil || err2 != nil {
		return nil, notFound
	}
	d, err := h.store.Get(ctx, company, id, false)
	if err != nil {
		return nil, err
	}
	// The ids as the URL spells them: the signature covers that text.
	switch err := h.urls.Signer.Check(p.CompanyId, req.DocumentId, d.SHA256, p.Expires, p.Signature, h.urls.Now()); {
	case errors.Is(err, ErrExpired):
		return nil, apierr.New(apierr.Forbidden, map[string]any{"reason": "url_expired", "document_id": d.ID})
	case err != nil:
		return nil, notFound
	}
	if h.blobs == nil {
		return nil, apierr.Wrap(apierr.InternalError, errors.New("documents: no blob store is configured"))
	}
	blob, err := h.blobs.Open(ctx, d.StorageKey)
	if err == nil {
		err = h.verify(blob, d, time.Now())
	}
	if err != nil {
		if blob != nil {
			blob.Close()
		}
		if rerr := h.urls.Audit.Record(ctx, audit.Change{CompanyID: d.CompanyID, Action: audit.IntegrityFailure,
			Table: "documents", RecordID: d.ID.String(),
			Description: "The bytes of " + d.FileName + " are not those uploaded: " + err.Error()}); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return nil, apierr.Wrap(apierr.InternalError, err)
	}
	return file{blob: blob, doc: d, req: p}, nil
}

// verify checks that b holds the bytes d describes (see verify), unless
// the same file was found right within recheckAfter and has not changed
// since.
func (h *Handler) verify(b Blob, d Doc, now time.Time) error {
	f, ok := b.(fileBlob)
	ok = ok && f.known
	if ok && h.checked.fresh(d.StorageKey, f.id, now) {
		return nil
	}
	if err := verify(b, d); err != nil {
		return err
	}
	if ok {
		h.checked.remember(d.StorageKey, f.id, now)
	}
	return nil
}

// verify reads b through SHA-256 and leaves it at its start: nil when it
// holds the bytes d describes.
func verify(b Blob, d Doc) error {
	h := sha256.New()
	n, err := io.Copy(h, b)
	if err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != d.SHA256 || n != d.Size {
		return errors.New("the blob's SHA-256 is " + got)
	}
	_, err = b.Seek(0, io.SeekStart)
	return err
}

// file is a verified blob served with net/http's ServeContent: ranges,
// If-Range and If-None-Match against the ETag, as the request asked.
type file struct {
	blob Blob
	doc  Doc
	req  gen.GetDocumentFileParams
}

func (f file) VisitGetDocumentFileResponse(w http.ResponseWriter) error {
	defer f.blob.Close()
	h := w.Header()
	typ := "application/octet-stream"
	if f.doc.MimeType != nil {
		typ = *f.doc.MimeType
	}
	h.Set("Content-Type", typ)
	h.Set("ETag", `"`+f.doc.SHA256+`"`)
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": f.doc.FileName}))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "private, no-cache")
	// ServeContent reads the conditional and range headers from a
	// request: the ones the operation declares, as the client sent them.
	r, _ := http.NewRequest(http.MethodGet, "/", nil)
	for name, v := range map[string]*string{"Range": f.req.Range, "If-Range": f.req.IfRange, "If-None-Match": f.req.IfNoneMatch} {
		if v != nil {
			r.Header.Set(name, *v)
		}
	}
	rw := &unsatisfiable{ResponseWriter: w}
	var content io.ReadSeeker = f.blob
	if fb, ok := f.blob.(fileBlob); ok {
		content = fb.File // a file goes out by sendfile(2)
	}
	http.ServeContent(rw, r, "", time.Time{}, content)
	if rw.refused {
		// Answered as every refusal is: the error envelope.
		for _, name := range []string{"Content-Type", "Content-Disposition", "ETag", "Cache-Control"} {
			h.Del(name)
		}
		return apierr.New(apierr.RangeNotSatisfiable, map[string]any{"size": f.doc.Size, "field": "Range"})
	}
	return nil
}

// unsatisfiable holds back ServeContent's own 416 (plain text), so that
// the refusal goes out in the error envelope with its catalogue code.
type unsatisfiable struct {
	http.ResponseWriter
	refused bool
}

func (u *unsatisfiable) WriteHeader(status int) {
	if status == http.StatusRequestedRangeNotSatisfiable {
		u.refused = true
		return
	}
	u.ResponseWriter.WriteHeader(status)
}

// ReadFrom hands the body to the connection's own ReadFrom, which sends a
// file with sendfile(2) rather than through a buffer; echo's response
// still counts what went.
func (u *unsatisfiable) ReadFrom(r io.Reader) (int64, error) {
	if res, ok := u.ResponseWriter.(*echo.Response); ok && !u.refused {
		if rf, ok := res.Writer.(io.ReaderFrom); ok && res.Committed {
			n, err := rf.ReadFrom(r)
			res.Size += n
			return n, err
		}
	}
	return io.Copy(struct{ io.Writer }{u}, r)
}

func (u *unsatisfiable) Write(b []byte) (int, error) {
	if u.refused {
		return len(b), nil
	}
	return u.ResponseWriter.Write(b)
}
