package tests

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"mime/multipart"
	"net/textproto"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/documents"
	"github.com/kontera/kontera/internal/documents/samples"
)

// form is a multipart upload: the file part and the text fields.
type form struct {
	name, partType string
	data           []byte
	fields         map[string]string
	noFile         bool
}

// body writes f as multipart/form-data under a fresh random boundary.
func (f form) body() (string, []byte) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range f.fields {
		_ = w.WriteField(k, v)
	}
	if !f.noFile {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="file"; filename="`+f.name+`"`)
		typ := f.partType
		if typ == "" {
			typ = "application/octet-stream"
		}
		h.Set("Content-Type", typ)
		p, _ := w.CreatePart(h)
		_, _ = p.Write(f.data)
	}
	_ = w.Close()
	return w.FormDataContentType(), buf.Bytes()
}

// upload sends f to the company's documents with key (a fresh one when "").
func (b *ledgerBooks) upload(f form, key string) *response {
	return b.uploadAs(b.token, f, key)
}

func (b *ledgerBooks) uploadAs(token string, f form, key string) *response {
	if key == "" {
		key = ik()
	}
	ct, raw := f.body()
	return b.do(req{Method: "POST", Path: b.base + "/documents", Token: token, Body: raw,
		Header: map[string]string{"Content-Type": ct, "Idempotency-Key": key}})
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Every type 001 lists is taken and stored with the type its bytes are,
// whatever the part claims; the bytes are kept read-only under their hash.
func TestUploadEveryType(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	dir := blobDir(t, b.db)
	for _, f := range samples.All() {
		r := b.upload(form{name: f.Name, partType: "application/octet-stream", data: f.Data}, "").status(t, 201)
		if r.str("data.mime_type") != f.Type || r.str("data.file_name") != f.Name || r.at("data.version") != float64(1) ||
			r.at("data.file_size_bytes") != float64(len(f.Data)) || r.str("data.sha256_hash") != sha(f.Data) ||
			r.str("data.upload_source") != "api" || r.at("data.is_current_version") != true || r.at("data.linked") != false {
			t.Errorf("%s: %s", f.Name, r.Body)
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(documents.Key(b.company, sha(f.Data))))
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm() != 0o444 {
			t.Errorf("%s: blob %v %v", f.Name, st, err)
			continue
		}
		if got, _ := os.ReadFile(p); !bytes.Equal(got, f.Data) {
			t.Errorf("%s: the blob holds other bytes", f.Name)
		}
		d := b.get(b.base+"/documents/"+r.str("data.id"), b.token).status(t, 200)
		if d.str("data.mime_type") != f.Type {
			t.Errorf("%s: detail %s", f.Name, d.Body)
		}
	}
	// A page sent as a PDF is refused for what it is.
	e := b.upload(form{name: "faktura.pdf", partType: "application/pdf", data: samples.HTML()}, "").
		errorCode(t, 415, "DOC_UPLOAD_UNSUPPORTED_TYPE")
	if e.str("error.details.detected_mime_type") != "text/html" || len(e.list("error.details.allowed")) != len(documents.Allowed) {
		t.Fatalf("415: %s", e.Body)
	}
	// So is a PDF that is also a page (a polyglot).
	poly := append([]byte("<html><body>"), samples.PDF()...)
	b.upload(form{name: "faktura.pdf", data: poly}, "").errorCode(t, 415, "DOC_UPLOAD_UNSUPPORTED_TYPE")
	// A plain text file is no CSV.
	b.upload(form{name: "anteckning.txt", data: []byte("hej\nhopp\n")}, "").errorCode(t, 415, "DOC_UPLOAD_UNSUPPORTED_TYPE")
	if n := b.count(`SELECT count(*) FROM documents WHERE company_id = $1`, b.company); n != len(samples.All()) {
		t.Fatalf("%d rows", n)
	}
	if n := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'document.uploaded'`, b.company); n != len(samples.All()) {
		t.Fatalf("%d document.uploaded events", n)
	}
}

// padded is a PDF of exactly n bytes: a PDF with a comment to fill it.
func padded(n int) []byte {
	pdf := samples.PDF()
	out := make([]byte, 0, n)
	out = append(out, pdf...)
	out = append(out, '%')
	for len(out) < n-1 {
		out = append(out, 'x')
	}
	return append(out, '\n')[:n]
}

// 10 485 760 bytes are taken, one more is DOC_UPLOAD_TOO_LARGE; an empty
// or missing file, an unknown field or a bad one is VALIDATION_ERROR, and
// none of them leaves a row.
func TestUploadLimits(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	big := padded(documents.MaxBytes)
	if r := b.upload(form{name: "stor.pdf", data: big}, "").status(t, 201); r.at("data.file_size_bytes") != float64(10485760) ||
		r.str("data.mime_type") != "application/pdf" {
		t.Fatalf("10 MiB: %s", r.Body)
	}
	e := b.upload(form{name: "for-stor.pdf", data: padded(documents.MaxBytes + 1)}, "").errorCode(t, 413, "DOC_UPLOAD_TOO_LARGE")
	if e.at("error.details.max_bytes") != float64(10485760) {
		t.Fatalf("413: %s", e.Body)
	}
	// Far past the limit, the server stops reading and answers the same.
	b.upload(form{name: "jatte.pdf", data: padded(documents.MaxBytes + 3<<20)}, "").errorCode(t, 413, "DOC_UPLOAD_TOO_LARGE")

	pdf := samples.PDF()
	for name, f := range map[string]form{
		"file":                  {name: "tom.pdf", data: nil},
		"file ":                 {noFile: true, fields: map[string]string{"upload_source": "api"}},
		"upload_source":         {name: "k.pdf", data: pdf, fields: map[string]string{"upload_source": "fax"}},
		"journal_entry_id":      {name: "k.pdf", data: pdf, fields: map[string]string{"journal_entry_id": "nej"}},
		"digitization_date":     {name: "k.pdf", data: pdf, fields: map[string]string{"digitization_date": "2026-02-30"}},
		"color":                 {name: "k.pdf", data: pdf, fields: map[string]string{"color": "blue"}},
		"journal_entry_line_id": {name: "k.pdf", data: pdf, fields: map[string]string{"journal_entry_line_id": uuid.NewString()}},
		"file  ":                {name: "k\t.pdf", data: pdf},
		"file   ":               {name: strings.Repeat("å", 128) + ".pdf", data: pdf},
	} {
		e := b.upload(f, "").errorCode(t, 400, "VALIDATION_ERROR")
		if fields := e.issueFields(); len(fields) != 1 || !strings.HasPrefix(fields[0], "body:"+strings.TrimSpace(name)+":") {
			t.Errorf("%q: %v %s", name, fields, e.Body)
		}
	}
	// A path is cut to its base name.
	if r := b.upload(form{name: `C:\Users\kalle\kvitto.pdf`, data: pdf}, "").status(t, 201); r.str("data.file_name") != "kvitto.pdf" {
		t.Fatalf("base name: %s", r.Body)
	}
	// JSON is not an upload.
	b.post(b.base+"/documents", b.token, map[string]any{"file": "x"}, "Idempotency-Key", ik()).errorCode(t, 415, "UNSUPPORTED_MEDIA_TYPE")
	// The key is mandatory.
	ct, raw := form{name: "k.pdf", data: pdf}.body()
	b.do(req{Method: "POST", Path: b.base + "/documents", Token: b.token, Body: raw,
		Header: map[string]string{"Content-Type": ct}}).errorCode(t, 400, "VALIDATION_ERROR")
	if n := b.count(`SELECT count(*) FROM documents WHERE company_id = $1`, b.company); n != 2 {
		t.Fatalf("%d rows after refusals, want 2", n)
	}
}

// Upload has no dry run, so a test key is refused before any byte is
// read, and a live key asking for one is refused; a key without
// documents:write is refused too.
func TestUploadNeedsALiveKey(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	test := b.env.key("owner@example.se", keySpec{mode: auth.Test})
	b.uploadAs(test, form{name: "k.pdf", data: samples.PDF()}, "").errorCode(t, 403, "TEST_KEY_WRITE_BLOCKED")
	// Nor may a live key ask for one.
	ct, raw := form{name: "k.pdf", data: samples.PDF()}.body()
	e := b.do(req{Method: "POST", Path: b.base + "/documents?dry_run=true", Token: b.token, Body: raw,
		Header: map[string]string{"Content-Type": ct, "Idempotency-Key": ik()}}).errorCode(t, 400, "VALIDATION_ERROR")
	if f := e.issueFields(); len(f) != 1 || f[0] != "query:dry_run:x-dry-run" {
		t.Fatalf("dry run: %v", f)
	}
	read := b.env.key("owner@example.se", keySpec{scopes: []string{"documents:read"}})
	b.uploadAs(read, form{name: "k.pdf", data: samples.PDF()}, "").errorCode(t, 403, "INSUFFICIENT_SCOPE")
	if n := b.count(`SELECT count(*) FROM documents`); n != 0 {
		t.Fatalf("%d rows", n)
	}
}

// A retry of an upload in new multipart framing replays the first
// answer; the same key with other bytes is IDEMPOTENCY_KEY_REUSE. The same
// bytes under a new key are a second row on the same blob, with a warning.
func TestUploadRetryAndDuplicates(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	key := ik()
	f := form{name: "kvitto.pdf", data: samples.PDF(), fields: map[string]string{"upload_source": "email"}}
	first := b.upload(f, key).status(t, 201)
	again := b.upload(f, key).status(t, 201)
	if again.Header.Get("Idempotent-Replayed") != "true" || again.str("data.id") != first.str("data.id") {
		t.Fatalf("replay: %s", again.Body)
	}
	b.upload(form{name: "kvitto.pdf", data: samples.PNG(), fields: f.fields}, key).errorCode(t, 409, "IDEMPOTENCY_KEY_REUSE")
	b.upload(form{name: "annat.pdf", data: samples.PDF(), fields: f.fields}, key).errorCode(t, 409, "IDEMPOTENCY_KEY_REUSE")

	dup := b.upload(f, "").status(t, 201)
	ws := dup.list("meta.warnings")
	if len(ws) != 1 || dup.str("meta.warnings.0.code") != "DOC_DUPLICATE_CONTENT" ||
		!strings.Contains(dup.str("meta.warnings.0.message_en"), first.str("data.id")) || dup.str("data.id") == first.str("data.id") {
		t.Fatalf("duplicate: %s", dup.Body)
	}
	if first.at("meta.warnings") != nil {
		t.Fatalf("the first upload warned: %s", first.Body)
	}
	if n := b.count(`SELECT count(DISTINCT storage_key) FROM documents WHERE company_id = $1`, b.company); n != 1 {
		t.Fatalf("%d blobs for one content", n)
	}
	// Another company's identical bytes are its own.
	other := b.env.company(b.token, "Annan AB")
	ct, raw := f.body()
	r := b.do(req{Method: "POST", Path: "/api/v1/companies/" + other.String() + "/documents", Token: b.token, Body: raw,
		Header: map[string]string{"Content-Type": ct, "Idempotency-Key": ik()}}).status(t, 201)
	if r.at("meta.warnings") != nil {
		t.Fatalf("another company's bytes warned: %s", r.Body)
	}
	if n := b.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND table_name = 'documents' AND action = 'INSERT'`, b.company); n != 2 {
		t.Fatalf("%d audited uploads, want 2", n)
	}
}

// An upload may make its document underlag at once, under the linking
// rule; the verifikat then has its document and loses its mark.
func TestUploadLinks(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	posted := b.posted(t, "03-15")
	other := b.posted(t, "03-16")
	line := b.get(b.base+"/journal-entries/"+posted, b.token).status(t, 200).str("data.lines.1.id")
	otherLine := b.get(b.base+"/journal-entries/"+other, b.token).status(t, 200).str("data.lines.0.id")
	b.action(posted, "no-document-required", map[string]any{"reason": "Kommer"}).status(t, 200)
	pdf := samples.PDF()

	b.upload(form{name: "k.pdf", data: pdf, fields: map[string]string{"journal_entry_id": posted,
		"journal_entry_line_id": otherLine}}, "").errorCode(t, 400, "VALIDATION_ERROR")
	e := b.upload(form{name: "k.pdf", data: pdf, fields: map[string]string{"journal_entry_id": uuid.NewString()}}, "").
		errorCode(t, 404, "JOURNAL_ENTRY_NOT_FOUND")
	if e.str("error.details.field") != "journal_entry_id" {
		t.Fatalf("404: %s", e.Body)
	}
	r := b.upload(form{name: "k.pdf", data: pdf, fields: map[string]string{"journal_entry_id": posted,
		"journal_entry_line_id": line, "upload_source": "file_upload"}}, "").status(t, 201)
	if r.str("data.journal_entry_id") != posted || r.str("data.journal_entry_line_id") != line || r.at("data.linked") != true {
		t.Fatalf("linked upload: %s", r.Body)
	}
	entry := b.get(b.base+"/journal-entries/"+posted, b.token).status(t, 200)
	if entry.at("data.has_document") != true || entry.at("data.no_document_required") != false {
		t.Fatalf("the verifikat: %s", entry.Body)
	}
	// Underlag of a posted verifikat is kept: its retention is stamped.
	var until time.Time
	if err := b.db.Get(&until, `SELECT retention_until FROM documents WHERE id = $1`, r.str("data.id")); err != nil ||
		until.Format(time.DateOnly) != yearPlus(b.year, 7)+"-12-31" {
		t.Fatalf("retention %v %v", until, err)
	}
	b.patch("/api/v1/companies/"+b.company.String()+"/settings/bookkeeping-lock", b.token,
		map[string]any{"bookkeeping_locked_through": b.day("03-31")}).status(t, 200)
	b.upload(form{name: "sen.pdf", data: samples.PNG(), fields: map[string]string{"journal_entry_id": other}}, "").
		errorCode(t, 409, "DOC_ATTACH_PERIOD_LOCKED")
	if n := b.count(`SELECT count(*) FROM documents WHERE company_id = $1`, b.company); n != 1 {
		t.Fatalf("%d rows", n)
	}
}

func yearPlus(year string, n int) string {
	y, _ := time.Parse("2006", year)
	return y.AddDate(n, 0, 0).Format("2006")
}

// A camera's upload is digitized today unless it says when; no
// digitization is in the future.
func TestUploadDigitizationDate(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	today := time.Now().In(stockholm(t)).Format(time.DateOnly)
	r := b.upload(form{name: "foto.jpg", data: samples.JPEG(), fields: map[string]string{"upload_source": "camera"}}, "").status(t, 201)
	if r.str("data.digitization_date") != today {
		t.Fatalf("camera: %s, want %s", r.Body, today)
	}
	r = b.upload(form{name: "skannad.pdf", data: samples.PDF(), fields: map[string]string{"digitization_date": "2026-01-02"}}, "").status(t, 201)
	if r.str("data.digitization_date") != "2026-01-02" {
		t.Fatalf("given: %s", r.Body)
	}
	if d := b.get(b.base+"/documents/"+r.str("data.id"), b.token).status(t, 200); d.str("data.digitization_date") != "2026-01-02" {
		t.Fatalf("detail: %s", d.Body)
	}
	if r := b.upload(form{name: "fil.pdf", data: samples.PNG()}, "").status(t, 201); r.at("data.digitization_date") != nil {
		t.Fatalf("an api upload has no digitization date: %s", r.Body)
	}
	tomorrow := time.Now().In(stockholm(t)).AddDate(0, 0, 1).Format(time.DateOnly)
	b.upload(form{name: "x.pdf", data: padded(2000), fields: map[string]string{"digitization_date": tomorrow}}, "").
		errorCode(t, 400, "VALIDATION_ERROR")
}

func stockholm(t *testing.T) *time.Location {
	l, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Versions supersede, never overwrite: v1 → v2 → v3, each taking over the
// link; only the current version is superseded, and only by other bytes;
// the list shows current versions unless asked for all.
func TestUploadVersions(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	posted := b.posted(t, "03-15")
	v1 := b.upload(form{name: "kvitto.pdf", data: samples.PDF(), fields: map[string]string{"journal_entry_id": posted}}, "").status(t, 201)
	id1 := v1.str("data.id")
	next := func(of string, data []byte, fields map[string]string) *response {
		f := map[string]string{"supersedes_id": of}
		for k, v := range fields {
			f[k] = v
		}
		return b.upload(form{name: "kvitto-ny.pdf", data: data, fields: f}, "")
	}
	e := next(id1, samples.PDF(), nil).errorCode(t, 409, "CONFLICT")
	if e.str("error.details.reason") != "same_content" {
		t.Fatalf("same bytes: %s", e.Body)
	}
	v2 := next(id1, samples.PNG(), nil).status(t, 201)
	if v2.at("data.version") != float64(2) || v2.str("data.original_id") != id1 || v2.str("data.journal_entry_id") != posted ||
		v2.at("data.linked") != true {
		t.Fatalf("v2: %s", v2.Body)
	}
	e = next(id1, samples.JPEG(), nil).errorCode(t, 409, "CONFLICT")
	if e.str("error.details.reason") != "superseded" || e.str("error.details.superseded_by_id") != v2.str("data.id") {
		t.Fatalf("superseding v1 again: %s", e.Body)
	}
	other := b.posted(t, "03-16")
	next(v2.str("data.id"), samples.JPEG(), map[string]string{"journal_entry_id": other}).errorCode(t, 400, "VALIDATION_ERROR")
	next(uuid.NewString(), samples.JPEG(), nil).errorCode(t, 404, "DOC_NOT_FOUND")
	v3 := next(v2.str("data.id"), samples.JPEG(), map[string]string{"journal_entry_id": posted}).status(t, 201)
	if v3.at("data.version") != float64(3) || v3.str("data.original_id") != id1 || v3.str("data.journal_entry_id") != posted {
		t.Fatalf("v3: %s", v3.Body)
	}

	old := b.get(b.base+"/documents/"+id1, b.token).status(t, 200)
	if old.at("data.is_current_version") != false || old.str("data.superseded_by_id") != v2.str("data.id") || old.at("data.linked") != false {
		t.Fatalf("v1 after: %s", old.Body)
	}
	docs := func(q string) []string {
		r := b.get(b.base+"/documents"+q, b.token).status(t, 200)
		var ids []string
		for i := range r.list("data.documents") {
			ids = append(ids, r.str("data.documents."+strconv.Itoa(i)+".document_id"))
		}
		return ids
	}
	if got := docs(""); len(got) != 1 || got[0] != v3.str("data.id") {
		t.Fatalf("current only: %v", got)
	}
	if got := docs("?current_only=false"); strings.Join(got, ",") != strings.Join([]string{v3.str("data.id"), v2.str("data.id"), id1}, ",") {
		t.Fatalf("all versions: %v", got)
	}
	// Superseded underlag is kept as long as the verifikat's.
	var until string
	if err := b.db.Get(&until, `SELECT retention_until::text FROM documents WHERE id = $1`, id1); err != nil || until != yearPlus(b.year, 7)+"-12-31" {
		t.Fatalf("v1 retention %q %v", until, err)
	}
	if n := b.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND table_name = 'documents' AND action = 'UPDATE'
			AND description LIKE '%ersattes av version%'`, b.company); n != 2 {
		t.Fatalf("%d audited supersessions", n)
	}

	// No new version of underlag in a locked period.
	b.patch("/api/v1/companies/"+b.company.String()+"/settings/bookkeeping-lock", b.token,
		map[string]any{"bookkeeping_locked_through": b.day("03-31")}).status(t, 200)
	next(v3.str("data.id"), nil, nil).errorCode(t, 400, "VALIDATION_ERROR") // an empty file is refused first
	next(v3.str("data.id"), padded(3000), nil).errorCode(t, 409, "DOC_ATTACH_PERIOD_LOCKED")
	// A loose document takes versions whatever the lock.
	loose := b.upload(form{name: "lös.pdf", data: padded(4000)}, "").status(t, 201)
	if r := next(loose.str("data.id"), padded(4001), nil).status(t, 201); r.at("data.journal_entry_id") != nil || r.at("data.version") != float64(2) {
		t.Fatalf("loose v2: %s", r.Body)
	}
}

// An upload refused after its bytes were kept leaves no row and no event;
// its blob goes in the sweep once a day old, and a deleted document's blob
// goes at once unless another row names the same bytes.
func TestUploadLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	dir := blobDir(t, b.db)
	data := padded(5000)
	b.upload(form{name: "k.pdf", data: data, fields: map[string]string{"journal_entry_id": uuid.NewString()}}, "").
		errorCode(t, 404, "JOURNAL_ENTRY_NOT_FOUND")
	if b.count(`SELECT count(*) FROM documents`)+b.count(`SELECT count(*) FROM events WHERE type = 'document.uploaded'`) != 0 {
		t.Fatal("a refused upload left a row or an event")
	}
	path := filepath.Join(dir, filepath.FromSlash(documents.Key(b.company, sha(data))))
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the blob was not kept before the transaction: %v", err)
	}
	swept, err := documents.NewStore(b.db).Sweep(t.Context(), documents.FS{Dir: dir}, time.Now().Add(25*time.Hour))
	if err != nil || swept != 1 {
		t.Fatalf("swept %d (%v)", swept, err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("the unnamed blob is still there")
	}

	// Deleting one of two rows on the same bytes keeps the blob; the last
	// takes it along.
	one := b.upload(form{name: "a.pdf", data: data}, "").status(t, 201).str("data.id")
	two := b.upload(form{name: "b.pdf", data: data}, "").status(t, 201).str("data.id")
	del := func(id string) {
		b.do(req{Method: "DELETE", Path: b.base + "/documents/" + id, Token: b.token,
			Header: map[string]string{"Idempotency-Key": ik()}}).status(t, 200)
	}
	del(one)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("a blob another row names went: %v", err)
	}
	dry := b.do(req{Method: "DELETE", Path: b.base + "/documents/" + two + "?dry_run=true", Token: b.token,
		Header: map[string]string{"Idempotency-Key": ik()}}).status(t, 200)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("a dry run took the blob: %v %s", err, dry.Body)
	}
	del(two)
	if _, err := os.Stat(path); err == nil {
		t.Fatal("the last row's blob stayed")
	}
}
