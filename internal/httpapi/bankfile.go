package httpapi

import (
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"net/http"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/banking"
)

// bankFile is an uploaded bank file read whole: at most banking.MaxFile
// bytes, kept in the import's row once it reads.
type bankFile struct {
	name string
	sum  [32]byte
}

func (f bankFile) Fields() map[string]any                 { return map[string]any{"file": f.name} }
func (f bankFile) Fingerprint() []byte                    { return f.sum[:] }
func (f bankFile) Done(ctx context.Context, _ bool) error { return nil }
func (f bankFile) Close() error                           { return nil }

// readBankFile is the streamed reader of POST imports/bank: the multipart
// part named file, at most 10 MB (413 past it).
func readBankFile(ctx context.Context, r *http.Request) (streamed, context.Context, error) {
	bad := func(issue string) error {
		return apierr.Validation(apierr.Issue{Field: "file", In: "body", Rule: "multipart", Issue: issue})
	}
	r.Body = http.MaxBytesReader(nil, r.Body, banking.MaxFile+1<<16)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, ctx, bad("send the file as multipart/form-data, in a part named file")
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil, ctx, bad("no part named file")
		}
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, ctx, apierr.New(apierr.PayloadTooLarge, map[string]any{"max_bytes": banking.MaxFile, "field": "file"})
		}
		if err != nil {
			return nil, ctx, bad("is not well-formed multipart/form-data")
		}
		if part.FormName() != "file" {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(part, banking.MaxFile+1))
		if errors.As(err, &mbe) || len(b) > banking.MaxFile {
			return nil, ctx, apierr.New(apierr.PayloadTooLarge, map[string]any{"max_bytes": banking.MaxFile, "field": "file"})
		}
		if err != nil {
			return nil, ctx, bad("the file could not be read")
		}
		name := part.FileName()
		if name == "" {
			name = "bankfil"
		}
		if rs := []rune(name); len(rs) > 255 {
			name = string(rs[:255])
		}
		f := banking.File{Name: name, Bytes: b}
		return bankFile{name: name, sum: sha256.Sum256(b)}, banking.WithFile(ctx, f), nil
	}
}
