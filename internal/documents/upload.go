package documents

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kontera/kontera/internal/apierr"
)

// Upload is a document upload read off the wire before its transaction
// opens: the file spooled to disk with its size, hash and type, its name,
// and the text fields as sent.
type Upload struct {
	File     *Spooled
	Name     string
	MimeType string
	// Text holds the text fields by name.
	Text map[string]string

	// adopt, when set, is the store the file was spooled into, which
	// takes it as the blob without a copy.
	adopt adopter
	// put says PutUpload ran; stored is the blob store's answer (nil once
	// the bytes are kept), and ensure puts them again.
	put    bool
	stored error
	ensure func(ctx context.Context) error
}

const (
	// maxField is the most bytes a text field of an upload holds; no
	// field of the form needs more than a date or an id.
	maxField = 256
	// maxParts bounds the parts of an upload's form.
	maxParts = 16
	// maxFramed is the most bytes an upload's body may hold: the file
	// and room for the fields and the multipart framing around them.
	maxFramed = MaxBytes + 64<<10
)

// ReadUpload reads the multipart/form-data body of r as it arrives: the
// part named file is spooled (Spool) and its type read from its bytes
// (Detect); every other part is a text field. Refusals are catalogue
// errors: the file past MaxBytes is DOC_UPLOAD_TOO_LARGE, of a type not
// taken DOC_UPLOAD_UNSUPPORTED_TYPE, empty, unnamed, sent twice or badly
// framed VALIDATION_ERROR. Fields the form does not know are left for the
// document's schema to name. The file is spooled in dir (the system's
// temporary folder when ""). The caller closes the upload.
func ReadUpload(r *http.Request, dir string) (u *Upload, err error) {
	// The multipart reader asks for 4 KiB at a time; a larger buffer
	// below it saves a read from the connection for each. The buffer
	// goes back to its pool, and the request gets its body back, once the
	// body is read.
	body, br := r.Body, readers.Get().(*bufio.Reader)
	br.Reset(http.MaxBytesReader(nil, body, maxFramed))
	r.Body = readCloser{br, body}
	defer func() {
		r.Body = body
		br.Reset(nil)
		readers.Put(br)
	}()
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, field("body", "multipart", "must be multipart/form-data with a boundary")
	}
	u = &Upload{Text: map[string]string{}}
	defer func() {
		if err != nil {
			u.Close()
			u = nil
		}
	}()
	for n := 0; ; n++ {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return u, framing(err)
		}
		if n == maxParts {
			return u, field("body", "parts", "has more than 16 parts")
		}
		name := p.FormName()
		switch {
		case name == "":
			return u, field("body", "multipart", "every part needs a form-data name")
		case name == "file":
			if u.File != nil {
				return u, field("file", "once", "is sent more than once")
			}
			if u.Name, err = fileName(p.FileName()); err != nil {
				return u, err
			}
			if u.File, err = Spool(p, dir); err != nil {
				switch {
				case errors.Is(err, ErrTooLarge):
					return u, tooLarge()
				case errors.Is(err, ErrEmpty):
					return u, field("file", "minLength", "is empty")
				}
				return u, framing(err)
			}
		default:
			if _, dup := u.Text[name]; dup {
				return u, field(name, "once", "is sent more than once")
			}
			b, err := io.ReadAll(io.LimitReader(p, maxField+1))
			if err != nil {
				return u, framing(err)
			}
			if len(b) > maxField || !utf8.Valid(b) || strings.ContainsRune(string(b), 0) {
				return u, field(name, "characters", "must be UTF-8 text of at most 256 bytes without NUL characters")
			}
			u.Text[name] = string(b)
		}
	}
	if u.File == nil {
		return u, nil // the schema names the missing file
	}
	if u.MimeType, err = Detect(u.File.Path); err != nil {
		var unsupported *UnsupportedError
		if errors.As(err, &unsupported) {
			return u, apierr.New(apierr.DocUploadUnsupportedType, map[string]any{"detected_mime_type": unsupported.Detected,
				"allowed": Allowed, "field": "file"})
		}
		return u, err
	}
	return u, nil
}

// readers keeps the buffered readers of upload bodies between uploads.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, spoolBuffer) }}

type readCloser struct {
	io.Reader
	io.Closer
}

// ReadUpload reads an upload's body (see ReadUpload) into a temporary
// file where the blob store can take it as it is (FS.SpoolDir), or the
// system's temporary folder.
func (h *Handler) ReadUpload(r *http.Request) (*Upload, error) {
	a, ok := h.blobs.(adopter)
	if !ok {
		return ReadUpload(r, "")
	}
	dir, err := a.SpoolDir()
	if err != nil {
		return nil, apierr.Wrap(apierr.DocStoreUnavailable, err)
	}
	u, err := ReadUpload(r, dir)
	if u != nil {
		u.adopt = a
	}
	return u, err
}

// adopter is a blob store that takes a spooled file as the blob without
// copying it (FS).
type adopter interface {
	SpoolDir() (string, error)
	Adopt(ctx context.Context, key, path string, size int64) error
}

// framing maps an error reading the body: past maxFramed it is the file
// that is too large, else the multipart framing is broken.
func framing(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return tooLarge()
	}
	return field("body", "multipart", "is not well-formed multipart/form-data: "+err.Error())
}

func tooLarge() error {
	return apierr.New(apierr.DocUploadTooLarge, map[string]any{"max_bytes": MaxBytes, "field": "file"})
}

func field(name, rule, issue string) error {
	return apierr.Validation(apierr.Issue{Field: name, In: "body", Rule: rule, Issue: issue})
}

// fileName is the name a file part's filename gives a document: its base
// name after the last slash or backslash (a browser on Windows may send a
// whole path), UTF-8 without control characters, at most 255 bytes.
func fileName(sent string) (string, error) {
	if i := strings.LastIndexAny(sent, `/\`); i >= 0 {
		sent = sent[i+1:]
	}
	switch {
	case sent == "" || sent == "." || sent == "..":
		return "", field("file", "filename", "must be sent as a file part with a filename")
	case !utf8.ValidString(sent) || strings.IndexFunc(sent, unicode.IsControl) >= 0:
		return "", field("file", "filename", "the filename must be UTF-8 without control characters")
	case len(sent) > 255:
		return "", field("file", "filename", "the filename must be at most 255 bytes")
	}
	return sent, nil
}

// Fields is the form as the document's schema checks it: the text fields,
// and the file part standing as its file name.
func (u *Upload) Fields() map[string]any {
	out := make(map[string]any, len(u.Text)+1)
	for k, v := range u.Text {
		out[k] = v
	}
	if u.File != nil {
		out["file"] = u.Name
	}
	return out
}

// Fingerprint is what the idempotency key's hash covers in place of the
// body's bytes: the file's hash, size and name and the fields, so that a
// retry of the same upload in new multipart framing (another boundary)
// is the same request.
func (u *Upload) Fingerprint() []byte {
	f := map[string]any{"fields": u.Text}
	if u.File != nil {
		f["file"] = map[string]any{"sha256": u.File.SHA256, "size": u.File.Size, "name": u.Name}
	}
	b, _ := json.Marshal(f) // maps marshal with sorted keys
	return b
}

// Close removes the spooled file.
func (u *Upload) Close() error {
	if u == nil || u.File == nil {
		return nil
	}
	return os.Remove(u.File.Path)
}

// Done is called once the request is answered. After a committed upload
// it makes sure the bytes are still in the blob store: a sweep of unnamed
// blobs may have taken an old blob of the same bytes between the put,
// which found it there, and the commit of the row that names it.
func (u *Upload) Done(ctx context.Context, committed bool) error {
	if !committed || u.ensure == nil {
		return nil
	}
	return u.ensure(ctx)
}

type uploadKey struct{}

// WithUpload returns ctx carrying u for the upload's handler.
func WithUpload(ctx context.Context, u *Upload) context.Context {
	return context.WithValue(ctx, uploadKey{}, u)
}

// Uploaded answers the upload read before the transaction of ctx, if
// any: what outside work of another domain may look at (the inbox reads
// what an invoice says).
func Uploaded(ctx context.Context) *Upload { return uploadFrom(ctx) }

func uploadFrom(ctx context.Context) *Upload {
	u, _ := ctx.Value(uploadKey{}).(*Upload)
	return u
}
