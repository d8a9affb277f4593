// Package discovery serves what lets clients and agents find their way
// without a key: health, the OpenAPI document byte-for-byte, llms.txt, the
// agent skills and the error reference. Everything but health is derived
// from the contract at start-up.
package discovery

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"html/template"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/store"
	"github.com/kontera/kontera/openapi"
)

// Handler serves the discovery operations.
type Handler struct {
	db      *store.DB
	base    string
	texts   *texts
	now     func() time.Time
	catalog []gen.ErrorCatalogueEntry
}

// NewHandler renders the discovery texts of c for a server at base (its
// public URL, without a trailing slash).
func NewHandler(c *openapi.Contract, db *store.DB, base string, now func() time.Time) *Handler {
	h := &Handler{db: db, base: base, texts: render(c, base), now: now}
	for _, e := range apierr.Catalogue() {
		h.catalog = append(h.catalog, catalogEntry(e, base))
	}
	return h
}

// DocsURL is the reference page of code on a server at base.
func DocsURL(base string, code apierr.Code) string { return base + "/docs/api/errors/" + string(code) }

func catalogEntry(e apierr.Entry, base string) gen.ErrorCatalogueEntry {
	g := gen.ErrorCatalogueEntry{Code: gen.ErrorCode(e.Code), Status: e.Status, Group: gen.ErrorCatalogueEntryGroup(e.Group),
		Message: e.Message, MessageEn: e.MessageEn, DocsUrl: DocsURL(base, e.Code)}
	if e.RecoveryHint != "" {
		g.RecoveryHint.Set(e.RecoveryHint)
	} else {
		g.RecoveryHint.SetNull()
	}
	return g
}

// GetHealth reports whether the service and its database answer.
func (h *Handler) GetHealth(ctx context.Context, _ gen.GetHealthRequestObject) (gen.GetHealthResponseObject, error) {
	status := gen.Ok
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := h.db.PingContext(pctx); err != nil {
		status = gen.Degraded
	}
	return gen.GetHealth200JSONResponse{Meta: envelope.Meta(ctx), Data: gen.Health{
		Status: status, Service: "kontera", ApiVersion: openapi.APIVersion, Timestamp: h.now().UTC().Truncate(time.Second)}}, nil
}

// raw answers bytes verbatim with a content type.
type raw struct {
	contentType string
	body        []byte
}

func (r raw) write(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", r.contentType)
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(r.body)
	return err
}

func (r raw) VisitListErrorCodesResponse(w http.ResponseWriter) error { return r.write(w) }
func (r raw) VisitGetErrorCodeResponse(w http.ResponseWriter) error   { return r.write(w) }

// document is the contract as served: its bytes, their gzip form and
// their ETag, all made once.
var document = func() (d struct {
	plain, gzipped []byte
	etag           string
}) {
	d.plain = openapi.Document
	sum := sha256.Sum256(d.plain)
	d.etag = `"` + hex.EncodeToString(sum[:]) + `"`
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	_, _ = zw.Write(d.plain)
	_ = zw.Close()
	d.gzipped = b.Bytes()
	return d
}()

// contract answers the document: 304 when the caller holds this version,
// else its bytes, gzipped when the caller takes gzip.
type contract struct {
	notModified, gzip bool
}

func (c contract) VisitGetOpenAPIDocumentResponse(w http.ResponseWriter) error {
	h := w.Header()
	h.Set("ETag", document.etag)
	h.Set("Cache-Control", "no-cache")
	h.Set("Vary", "Accept-Encoding")
	if c.notModified {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	body := document.plain
	if c.gzip {
		h.Set("Content-Encoding", "gzip")
		body = document.gzipped
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(body)
	return err
}

// GetOpenAPIDocument serves the contract exactly as it is kept, with an
// ETag to revalidate against and gzip for those who take it.
func (h *Handler) GetOpenAPIDocument(_ context.Context, req gen.GetOpenAPIDocumentRequestObject) (gen.GetOpenAPIDocumentResponseObject, error) {
	p := req.Params
	return contract{notModified: p.IfNoneMatch != nil && matches(*p.IfNoneMatch, document.etag),
		gzip: p.AcceptEncoding != nil && acceptsGzip(*p.AcceptEncoding)}, nil
}

// matches reports whether an If-None-Match header names etag (or *).
func matches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether an Accept-Encoding header takes gzip (not
// refused with q=0).
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") && strings.TrimSpace(coding) != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}

func markdown(b []byte) (io.Reader, int64) { return bytes.NewReader(b), int64(len(b)) }

// GetLlmsTxt serves the introduction for language models.
func (h *Handler) GetLlmsTxt(context.Context, gen.GetLlmsTxtRequestObject) (gen.GetLlmsTxtResponseObject, error) {
	r, n := markdown(h.texts.llms)
	return gen.GetLlmsTxt200TextmarkdownResponse{Body: r, ContentLength: n}, nil
}

// GetSkillsIndex lists the agent skills.
func (h *Handler) GetSkillsIndex(context.Context, gen.GetSkillsIndexRequestObject) (gen.GetSkillsIndexResponseObject, error) {
	return gen.GetSkillsIndex200JSONResponse{Skills: []struct {
		Description string   `json:"description"`
		Files       []string `json:"files"`
		Name        string   `json:"name"`
	}{{Name: SkillName, Description: skillDescription, Files: h.texts.index}}}, nil
}

// GetSkill serves the skill's entry file.
func (h *Handler) GetSkill(context.Context, gen.GetSkillRequestObject) (gen.GetSkillResponseObject, error) {
	r, n := markdown(h.texts.skill)
	return gen.GetSkill200TextmarkdownResponse{Body: r, ContentLength: n}, nil
}

// GetSkillReference serves one reference file of the skill.
func (h *Handler) GetSkillReference(_ context.Context, req gen.GetSkillReferenceRequestObject) (gen.GetSkillReferenceResponseObject, error) {
	b, ok := h.texts.references[req.File]
	if !ok {
		return nil, apierr.New(apierr.NotFound, map[string]any{"file": req.File})
	}
	r, n := markdown(b)
	return gen.GetSkillReference200TextmarkdownResponse{Body: r, ContentLength: n}, nil
}

// ListErrorCodes serves the error catalogue.
func (h *Handler) ListErrorCodes(ctx context.Context, _ gen.ListErrorCodesRequestObject) (gen.ListErrorCodesResponseObject, error) {
	if envelope.WantsJSON(ctx) {
		return gen.ListErrorCodes200JSONResponse{Meta: envelope.Meta(ctx), Data: struct {
			Errors []gen.ErrorCatalogueEntry `json:"errors"`
		}{Errors: h.catalog}}, nil
	}
	return h.page(pageData{Title: "Felkoder — error codes", Entries: h.catalog})
}

// GetErrorCode serves one code's reference page.
func (h *Handler) GetErrorCode(ctx context.Context, req gen.GetErrorCodeRequestObject) (gen.GetErrorCodeResponseObject, error) {
	e, ok := apierr.Lookup(apierr.Code(req.Code))
	if !ok {
		return nil, apierr.New(apierr.NotFound, map[string]any{"code": req.Code})
	}
	entry := catalogEntry(e, h.base)
	if envelope.WantsJSON(ctx) {
		return gen.GetErrorCode200JSONResponse{Meta: envelope.Meta(ctx), Data: entry}, nil
	}
	return h.page(pageData{Title: string(e.Code), Entries: []gen.ErrorCatalogueEntry{entry}, One: true, Base: h.base})
}

type pageData struct {
	Title   string
	Entries []gen.ErrorCatalogueEntry
	One     bool
	Base    string
}

var pageTmpl = template.Must(template.New("errors").Parse(`<!doctype html>
<html lang="sv"><head><meta charset="utf-8"><title>{{.Title}} · Kontera API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d2433}
code{font-family:ui-monospace,monospace}table{border-collapse:collapse;width:100%}td,th{text-align:left;vertical-align:top;padding:.4rem .6rem;border-bottom:1px solid #dde}
.s{font-variant-numeric:tabular-nums}.h{color:#456}</style></head><body>
<h1>{{.Title}}</h1>
{{if .One}}{{with index .Entries 0}}<p>HTTP <span class="s">{{.Status}}</span> · group <code>{{.Group}}</code></p>
<p lang="sv">{{.Message}}</p><p lang="en">{{.MessageEn}}</p>
{{if .RecoveryHint.IsSpecified}}{{if not .RecoveryHint.IsNull}}<p class="h">Recovery: {{.RecoveryHint.MustGet}}</p>{{end}}{{end}}{{end}}
<p><a href="{{.Base}}/docs/api/errors">All error codes</a></p>
{{else}}<p>Every error answers <code>{"error": {"code", "message", "message_en", "details", "recovery_hint", "docs_url", "request_id"}}</code>. Codes never change once shipped.</p>
<table><tr><th>Code</th><th>HTTP</th><th>Meddelande / message</th><th>Recovery</th></tr>
{{range .Entries}}<tr><td><a href="{{.DocsUrl}}"><code>{{.Code}}</code></a></td><td class="s">{{.Status}}</td><td>{{.Message}}<br><span lang="en">{{.MessageEn}}</span></td>
<td class="h">{{if not .RecoveryHint.IsNull}}{{.RecoveryHint.MustGet}}{{end}}</td></tr>
{{end}}</table>{{end}}
</body></html>
`))

func (h *Handler) page(d pageData) (raw, error) {
	var b bytes.Buffer
	if err := pageTmpl.Execute(&b, d); err != nil {
		return raw{}, err
	}
	return raw{"text/html; charset=utf-8", b.Bytes()}, nil
}
