package httpapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/chart"
	"github.com/kontera/kontera/internal/company"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/dimensions"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/jobs"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/sieimport"
)

// sieImports composes the SIE imports: the importer over the books, its
// runs on the worker, its holds on the ledger and the lock date, and the
// streamed readers of its two uploads.
func (s *Server) sieImports(cfg Config, journal *ledger.Store, accounts *chart.Store, dims *dimensions.Store,
	periods *fiscal.Store, ops *jobs.Store, audits *audit.Store, companies *company.Store, companyAPI *company.Handler,
	cursors *cursor.Codec) (*sieimport.Handler, error) {
	im := sieimport.New(cfg.DB, ops, journal, accounts, dims, periods, audits, sieimport.Books{
		OrgNumber: func(ctx context.Context, c uuid.UUID) (string, error) {
			org, err := companies.OrgNumber(ctx, c)
			if org == nil {
				return "", err
			}
			return *org, err
		},
		DefaultSeries: func(ctx context.Context, c uuid.UUID) (string, error) {
			l, err := companies.Ledger(ctx, c)
			return ledger.DefaultSeries("import", l.SeriesPerSource, l.DefaultSeries), err
		},
		PeriodsChanged: companies.RegenerateDeadlines,
	})
	if cfg.ImportBatch > 0 {
		im.Batch = cfg.ImportBatch
	}
	s.worker.HandleSteps(sieimport.OpImport, im.Step, im.Failed)
	s.worker.HandleSteps(sieimport.OpUndo, im.Step, im.Failed)
	journal.ImportHold = im.Hold
	companyAPI.ImportHold = im.Hold
	h, err := sieimport.NewHandler(im, cfg.Secret, cursors, cfg.BaseURL, cfg.Now)
	if err != nil {
		return nil, err
	}
	s.streamed["importSie"] = readSieImport
	s.streamed["putSieUpload"] = func(ctx context.Context, r *http.Request) (streamed, context.Context, error) {
		token := strings.TrimPrefix(r.URL.Path, "/api/v1/uploads/")
		company, upload, size, err := h.Signer().Check(token, cfg.Now())
		if err != nil {
			return nil, ctx, err
		}
		if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/octet-stream") {
			return nil, ctx, apierr.New(apierr.UnsupportedMediaType, map[string]any{"content_type": ct,
				"expected": "application/octet-stream"})
		}
		tmp, f, err := sieimport.SpoolUpload(r.Body, size)
		if err != nil {
			return nil, ctx, err
		}
		return spooled{file: tmp, sha: f.SHA256}, sieimport.WithReceived(ctx, company, upload, f, tmp), nil
	}
	return h, nil
}

// spooled is a streamed body kept in a temporary file until the request
// is answered.
type spooled struct {
	file   *os.File
	sha    string
	fields map[string]any
}

func (b spooled) Fields() map[string]any                 { return b.fields }
func (b spooled) Fingerprint() []byte                    { return []byte(b.sha) }
func (b spooled) Done(ctx context.Context, _ bool) error { return nil }
func (b spooled) Close() error {
	if b.file == nil {
		return nil
	}
	_ = b.file.Close()
	return os.Remove(b.file.Name())
}

// readSieImport is the streamed reader of POST imports/sie: the part
// file (spooled, at most 50 MB: 413 past it), or storagePath and
// filename; and options.
func readSieImport(ctx context.Context, r *http.Request) (streamed, context.Context, error) {
	bad := func(field, issue string) error {
		return apierr.Validation(apierr.Issue{Field: field, In: "body", Rule: "multipart", Issue: issue})
	}
	r.Body = http.MaxBytesReader(nil, r.Body, sieimport.MaxFile+1<<20)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, ctx, bad("file", "send the file as multipart/form-data, in a part named file (or storagePath and filename)")
	}
	var p sieimport.Posted
	var tmp *os.File
	fields := map[string]any{}
	var options string
	fail := func(err error) (streamed, context.Context, error) {
		if tmp != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
		return nil, ctx, err
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return fail(apierr.New(apierr.PayloadTooLarge, map[string]any{"max_bytes": sieimport.MaxFile, "field": "file"}))
		}
		if err != nil {
			return fail(bad("file", "is not well-formed multipart/form-data"))
		}
		switch part.FormName() {
		case "file":
			if tmp != nil {
				return fail(bad("file", "send one file"))
			}
			name := part.FileName()
			if err := sieimport.CheckName(name); err != nil {
				return fail(err)
			}
			var f sieimport.File
			tmp, f, err = sieimport.Spool(part, sieimport.MaxFile)
			if errors.As(err, &mbe) {
				return fail(apierr.New(apierr.PayloadTooLarge, map[string]any{"max_bytes": sieimport.MaxFile, "field": "file"}))
			}
			if err != nil {
				return fail(err)
			}
			p.Filename, p.File, p.Body = name, f, tmp
			fields["file"] = name
		case "storagePath", "filename", "options":
			b, err := io.ReadAll(io.LimitReader(part, 4096))
			if err != nil {
				return fail(bad(part.FormName(), "could not be read"))
			}
			v := string(b)
			fields[part.FormName()] = v
			switch part.FormName() {
			case "storagePath":
				p.StoragePath = v
			case "filename":
				if p.Filename == "" {
					p.Filename = v
				}
			case "options":
				options = v
			}
		}
	}
	switch {
	case tmp == nil && p.StoragePath == "":
		return fail(bad("file", "send the file in a part named file, or storagePath and filename"))
	case tmp != nil && p.StoragePath != "":
		return fail(bad("storagePath", "send the file or a storagePath, not both"))
	case tmp == nil && p.Filename == "":
		return fail(bad("filename", "send filename with storagePath"))
	}
	if tmp == nil {
		if err := sieimport.CheckName(p.Filename); err != nil {
			return fail(err)
		}
	}
	if p.Options, err = sieimport.ReadOptions(options); err != nil {
		return fail(err)
	}
	sha := p.File.SHA256
	if sha == "" {
		sha = "upload:" + p.StoragePath
	}
	return spooled{file: tmp, sha: sha + "\n" + options, fields: fields}, sieimport.WithPosted(ctx, p), nil
}
