package tests

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/documents"
	"github.com/kontera/kontera/internal/documents/samples"
	"github.com/kontera/kontera/internal/httpapi"
)

// The archive's read side: the list pages newest first and filters, the
// detail adds versions and holders, and another company's document is
// DOC_NOT_FOUND. (Rows with made-up hashes are written in SQL: no bytes
// are needed to list them.)
func TestDocumentsAreListedAndShown(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	posted := b.posted(t, "03-15")
	draft := b.create(b.sale("03-16")).status(t, 201).str("data.id")
	linked := docRow(t, b.db, b.company, strings.Repeat("a", 64), posted)
	loose := docRow(t, b.db, b.company, strings.Repeat("b", 64), draft)
	newest := docRow(t, b.db, b.company, strings.Repeat("c", 64), "")
	docs := b.base + "/documents"

	first := b.get(docs+"?limit=2", b.token).status(t, 200)
	if ids := first.list("data.documents"); len(ids) != 2 || first.str("data.documents.0.document_id") != newest ||
		first.str("data.documents.1.document_id") != loose {
		t.Fatalf("first page: %s", first.Body)
	}
	next := first.str("data.next_cursor")
	if next == "" || first.str("meta.next_cursor") != next {
		t.Fatalf("cursor: %s", first.Body)
	}
	second := b.get(docs+"?limit=2&cursor="+next, b.token).status(t, 200)
	if len(second.list("data.documents")) != 1 || second.str("data.documents.0.document_id") != linked ||
		second.at("data.next_cursor") != nil {
		t.Fatalf("second page: %s", second.Body)
	}
	if first.at("data.documents.1.linked") != false || second.at("data.documents.0.linked") != true {
		t.Fatalf("linked flags: %s / %s", first.Body, second.Body)
	}
	for q, want := range map[string][]string{
		"?linked=true":                  {linked},
		"?linked=false":                 {newest, loose},
		"?journal_entry_id=" + draft:    {loose},
		"?uploaded_to=2000-01-01":       {},
		"?uploaded_from=2000-01-01":     {newest, loose, linked},
		"?current_only=false&limit=100": {newest, loose, linked},
	} {
		r := b.get(docs+q, b.token).status(t, 200)
		got := []string{}
		for i := range r.list("data.documents") {
			got = append(got, r.str("data.documents."+strconv.Itoa(i)+".document_id"))
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: %v, want %v", q, got, want)
		}
	}
	b.get(docs+"?uploaded_from=2026-02-30", b.token).errorCode(t, 400, "VALIDATION_ERROR")

	d := b.get(docs+"/"+linked, b.token).status(t, 200)
	if d.str("data.sha256_hash") != strings.Repeat("a", 64) || d.str("data.journal_entry_id") != posted ||
		d.at("data.original_id") != nil || len(d.list("data.transaction_ids")) != 0 || d.at("data.linked") != true {
		t.Fatalf("detail: %s", d.Body)
	}

	// Another company's document is not found, as a missing one is.
	other := "/api/v1/companies/" + b.env.company(b.token, "Annan AB").String()
	missing := b.get(other+"/documents/"+uuid.NewString(), b.token).errorCode(t, 404, "DOC_NOT_FOUND")
	foreign := b.get(other+"/documents/"+linked, b.token).errorCode(t, 404, "DOC_NOT_FOUND")
	if missing.str("error.message") != foreign.str("error.message") {
		t.Fatalf("a foreign id answers otherwise than a missing one: %s / %s", missing.Body, foreign.Body)
	}
	if len(b.get(other+"/documents", b.token).status(t, 200).list("data.documents")) != 0 {
		t.Fatal("another company's list shows this company's documents")
	}
}

// A download answers a URL signed for the document's company, id and
// bytes, good for 900 seconds, and each call leaves an audit row.
func TestDocumentDownloadURL(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	sha := strings.Repeat("7", 64)
	doc := docRow(t, b.db, b.company, sha, "")
	path := b.base + "/documents/" + doc + "/download"
	before := time.Now()
	r := b.get(path, b.token).status(t, 200)
	if r.str("data.id") != doc || r.str("data.sha256_hash") != sha || r.at("data.expires_in_seconds") != float64(900) {
		t.Fatalf("download: %s", r.Body)
	}
	u, err := url.Parse(r.str("data.download_url"))
	if err != nil || base+u.Path != base+"/api/v1/document-files/"+doc || !strings.HasPrefix(r.str("data.download_url"), base) {
		t.Fatalf("download_url %q (%v)", r.str("data.download_url"), err)
	}
	q := u.Query()
	exp, _ := strconv.ParseInt(q.Get("expires"), 10, 64)
	if q.Get("company_id") != b.company.String() || exp < before.Add(899*time.Second).Unix() || exp > time.Now().Add(900*time.Second).Unix() {
		t.Fatalf("query %v", q)
	}
	signer, _ := documents.NewSigner(secret)
	if err := signer.Check(b.company.String(), doc, sha, q.Get("expires"), q.Get("signature"), time.Now()); err != nil {
		t.Fatalf("the URL's signature: %v", err)
	}
	b.get(path, b.token).status(t, 200)
	if n := b.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND action = 'SECURITY_EVENT'
			AND record_id = $2 AND description LIKE 'document.accessed%'`, b.company, doc); n != 2 {
		t.Fatalf("%d audit rows for two download calls", n)
	}
	other := "/api/v1/companies/" + b.env.company(b.token, "Annan AB").String()
	b.get(other+"/documents/"+doc+"/download", b.token).errorCode(t, 404, "DOC_NOT_FOUND")
}

func clock(at func() time.Time) option { return func(c *httpapi.Config) { c.Now = at } }

// The signed URL serves the very bytes, with no key, as an attachment of
// the stored type, in ranges and with revalidation; a URL changed in any
// part is not found, a late one is refused, and bytes that are not those
// uploaded are never served.
func TestDocumentFileBySignedURL(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	pdf := samples.All()[0]
	doc := b.upload(form{name: pdf.Name, data: pdf.Data}, "").status(t, 201).str("data.id")
	link := b.get(b.base+"/documents/"+doc+"/download", b.token).status(t, 200).str("data.download_url")
	path := strings.TrimPrefix(link, base)

	r := b.do(req{Method: "GET", Path: path}).status(t, 200)
	if !bytes.Equal(r.Body, pdf.Data) || r.Header.Get("Content-Type") != "application/pdf" ||
		r.Header.Get("X-Content-Type-Options") != "nosniff" || !strings.HasPrefix(r.Header.Get("Content-Disposition"), "attachment") ||
		!strings.Contains(r.Header.Get("Content-Disposition"), pdf.Name) {
		t.Fatalf("file: %v\n%q", r.Header, clip(r.Body))
	}
	etag := r.Header.Get("ETag")
	part := b.do(req{Method: "GET", Path: path, Header: map[string]string{"Range": "bytes=0-7"}}).status(t, 206)
	if string(part.Body) != "%PDF-1.4" {
		t.Fatalf("range: %q", part.Body)
	}
	b.do(req{Method: "GET", Path: path, Header: map[string]string{"If-None-Match": etag}}).status(t, 304)
	outside := b.do(req{Method: "GET", Path: path, Header: map[string]string{"Range": "bytes=100000-"}}).
		errorCode(t, 416, "RANGE_NOT_SATISFIABLE")
	if outside.at("error.details.size") != float64(len(pdf.Data)) {
		t.Fatalf("416: %s", outside.Body)
	}

	u, _ := url.Parse(link)
	tamper := func(key, value string) string {
		q := u.Query()
		q.Set(key, value)
		return u.Path + "?" + q.Encode()
	}
	sig := u.Query().Get("signature")
	other := b.env.company(b.token, "Annan AB").String()
	for name, p := range map[string]string{
		"signature":    tamper("signature", sig[:len(sig)-2]+"AA"),
		"expiry":       tamper("expires", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)),
		"company":      tamper("company_id", other),
		"malformed":    tamper("company_id", "x"),
		"other id":     strings.Replace(path, doc, uuid.NewString(), 1),
		"no signature": tamper("signature", ""),
		// The same values spelled otherwise are a changed URL too.
		"upper-case company":  tamper("company_id", strings.ToUpper(b.company.String())),
		"upper-case document": strings.Replace(path, doc, strings.ToUpper(doc), 1),
		"expires with +":      tamper("expires", "+"+u.Query().Get("expires")),
		"expires with a 0":    tamper("expires", "0"+u.Query().Get("expires")),
		"signature respelled": tamper("signature", respelled(sig)),
	} {
		if r := b.do(req{Method: "GET", Path: p}); r.Status != 404 || r.str("error.code") != "DOC_NOT_FOUND" {
			t.Errorf("%s changed: %d %s", name, r.Status, clip(r.Body))
		}
	}
	late := envOn(t, b.db, clock(func() time.Time { return time.Now().Add(901 * time.Second) }))
	if e := late.do(req{Method: "GET", Path: path}).errorCode(t, 403, "FORBIDDEN"); e.str("error.details.reason") != "url_expired" {
		t.Fatalf("late: %s", e.Body)
	}

	// Bytes changed behind the archive's back are not served.
	blob := filepath.Join(blobDir(t, b.db), filepath.FromSlash(documents.Key(b.company, r.Header.Get("ETag")[1:65])))
	if err := os.Chmod(blob, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blob, bytes.Replace(pdf.Data, []byte("1250"), []byte("9250"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	b.do(req{Method: "GET", Path: path}).errorCode(t, 500, "INTERNAL_ERROR")
	os.Remove(blob)
	b.do(req{Method: "GET", Path: path}).errorCode(t, 500, "INTERNAL_ERROR")
	if n := b.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND action = 'INTEGRITY_FAILURE'
			AND record_id = $2`, b.company, doc); n != 2 {
		t.Fatalf("%d integrity failures audited, want 2", n)
	}
}

// Linking follows the linking rule: a draft's underlag moves, a posted
// verifikat's stays, the same verifikat again changes nothing, a line
// must be the verifikat's, a cancelled verifikat or a day on the lock date
// takes nothing, and the no-document-required mark goes when underlag
// comes. A dry run links nothing.
func TestDocumentLink(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	doc := docRow(t, b.db, b.company, strings.Repeat("1", 64), "")
	link := func(body map[string]any) *response {
		return b.post(b.base+"/documents/"+doc+"/link", b.token, body, "Idempotency-Key", ik())
	}
	draft := b.create(b.sale("03-10")).status(t, 201).str("data.id")
	posted := b.posted(t, "03-11")
	other := b.posted(t, "03-12")
	line := b.get(b.base+"/journal-entries/"+posted, b.token).status(t, 200).str("data.lines.1.id")

	dry := b.post(b.base+"/documents/"+doc+"/link?dry_run=true", b.token, map[string]any{"journal_entry_id": posted}, "Idempotency-Key", ik()).status(t, 200)
	if dry.str("data.preview.journal_entry_id") != posted || b.count(`SELECT count(*) FROM documents WHERE journal_entry_id IS NOT NULL`) != 0 {
		t.Fatalf("dry run: %s", dry.Body)
	}
	if r := link(map[string]any{"journal_entry_id": draft}).status(t, 200); r.at("data.linked") != false {
		t.Fatalf("to a draft: %s", r.Body)
	}
	link(map[string]any{"journal_entry_id": posted, "journal_entry_line_id": uuid.NewString()}).errorCode(t, 400, "VALIDATION_ERROR")
	b.action(other, "no-document-required", map[string]any{"reason": "Bankavgift"}).status(t, 200)
	r := link(map[string]any{"journal_entry_id": posted, "journal_entry_line_id": line}).status(t, 200)
	if r.at("data.linked") != true || r.str("data.journal_entry_line_id") != line {
		t.Fatalf("moved to a posted verifikat: %s", r.Body)
	}
	link(map[string]any{"journal_entry_id": posted}).status(t, 200) // the same verifikat: nothing changes
	first := b.get(b.base+"/journal-entries/"+posted, b.token).status(t, 200).str("data.lines.0.id")
	if e := link(map[string]any{"journal_entry_id": posted, "journal_entry_line_id": first}).errorCode(t, 409, "CONFLICT"); e.str("error.details.reason") != "linked" {
		t.Fatalf("another line of a posted verifikat: %s", e.Body)
	}
	if e := link(map[string]any{"journal_entry_id": other}).errorCode(t, 409, "DOC_ATTACH_OTHER_VERIFIKAT"); e.str("error.details.journal_entry_id") != posted {
		t.Fatalf("other verifikat: %s", e.Body)
	}
	link(map[string]any{"journal_entry_id": uuid.NewString()}).errorCode(t, 404, "JOURNAL_ENTRY_NOT_FOUND")
	link(map[string]any{"journal_entry_id": posted, "inbox_item_id": uuid.NewString()}).errorCode(t, 404, "INBOX_ITEM_NOT_FOUND")

	// A second document to the marked verifikat takes the mark away.
	second := docRow(t, b.db, b.company, strings.Repeat("2", 64), "")
	b.post(b.base+"/documents/"+second+"/link", b.token, map[string]any{"journal_entry_id": other}, "Idempotency-Key", ik()).status(t, 200)
	if m := b.get(b.base+"/journal-entries/"+other, b.token).status(t, 200); m.at("data.no_document_required") != false {
		t.Fatalf("the mark stayed: %s", m.Body)
	}
	cancelled := b.create(b.sale("03-13")).status(t, 201).str("data.id")
	b.do(req{Method: "DELETE", Path: b.base + "/journal-entries/" + cancelled, Token: b.token}).status(t, 200)
	third := docRow(t, b.db, b.company, strings.Repeat("3", 64), "")
	third3 := func(body map[string]any) *response {
		return b.post(b.base+"/documents/"+third+"/link", b.token, body, "Idempotency-Key", ik())
	}
	if e := third3(map[string]any{"journal_entry_id": cancelled}).errorCode(t, 409, "CONFLICT"); e.str("error.details.reason") != "entry_cancelled" {
		t.Fatalf("cancelled: %s", e.Body)
	}
	b.patch("/api/v1/companies/"+b.company.String()+"/settings/bookkeeping-lock", b.token,
		map[string]any{"bookkeeping_locked_through": b.day("03-31")}).status(t, 200)
	if e := third3(map[string]any{"journal_entry_id": posted}).errorCode(t, 409, "DOC_ATTACH_PERIOD_LOCKED"); e.str("error.details.reason") != "company_lock_date" {
		t.Fatalf("on the lock date: %s", e.Body)
	}
	if n := b.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND table_name = 'documents' AND action = 'UPDATE'`, b.company); n != 3 {
		t.Fatalf("%d audited links, want 3", n)
	}
}

// A document nothing holds is deleted; underlag of a posted verifikat, and
// a version superseded while it was underlag, are refused, and each
// refusal leaves its audit row though nothing else changes.
func TestDocumentDelete(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	del := func(id string) *response {
		return b.do(req{Method: "DELETE", Path: b.base + "/documents/" + id, Token: b.token,
			Header: map[string]string{"Idempotency-Key": ik()}})
	}
	posted := b.posted(t, "03-15")
	loose := docRow(t, b.db, b.company, strings.Repeat("4", 64), "")
	linked := docRow(t, b.db, b.company, strings.Repeat("5", 64), posted)

	b.do(req{Method: "DELETE", Path: b.base + "/documents/" + loose + "?dry_run=true", Token: b.token,
		Header: map[string]string{"Idempotency-Key": ik()}}).status(t, 200)
	if b.count(`SELECT count(*) FROM documents WHERE id = $1`, loose) != 1 {
		t.Fatal("a dry run deleted")
	}
	if r := del(loose).status(t, 200); r.str("data.document_id") != loose || r.at("data.deleted") != true {
		t.Fatalf("delete: %s", r.Body)
	}
	del(loose).errorCode(t, 404, "DOC_NOT_FOUND")

	e := del(linked).errorCode(t, 409, "CONFLICT")
	if e.str("error.details.reason") != "linked" || e.str("error.details.holder.id") != posted {
		t.Fatalf("linked: %s", e.Body)
	}
	// Superseded, it is no longer linked, but kept.
	var v2 string
	if err := b.db.Get(&v2, `INSERT INTO documents (company_id, file_name, file_size_bytes, sha256_hash, storage_key,
			upload_source, version, original_id, journal_entry_id)
		SELECT company_id, file_name, 99, repeat('6', 64), company_id::text || '/66/' || repeat('6', 64), 'api', 2, id,
			journal_entry_id FROM documents WHERE id = $1 RETURNING id`, linked); err != nil {
		t.Fatal(err)
	}
	if _, err := b.db.Exec(`UPDATE documents SET superseded_by_id = $2, is_current_version = false WHERE id = $1`, linked, v2); err != nil {
		t.Fatal(err)
	}
	e = del(linked).errorCode(t, 409, "CONFLICT")
	if e.str("error.details.reason") != "retention" || e.str("error.details.retention_until") != strconv.Itoa(atoi(b.year)+7)+"-12-31" {
		t.Fatalf("retention: %s", e.Body)
	}
	for action, want := range map[string]int{"DOCUMENT_DELETE_BLOCKED": 1, "RETENTION_BLOCK": 1, "DELETE": 1} {
		if n := b.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND table_name = 'documents' AND action = $2`,
			b.company, action); n != want {
			t.Errorf("%d %s audit rows, want %d", n, action, want)
		}
	}
	if b.count(`SELECT count(*) FROM documents WHERE id = $1`, linked) != 1 {
		t.Fatal("a refused deletion deleted")
	}
}

// The ledger and the archive agree: an entry with underlag is not marked
// as needing none (the bulk mark skips it), and a line with underlag is
// not struck.
func TestLedgerRespectsUnderlag(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	posted := b.posted(t, "03-15")
	bare := b.posted(t, "03-16")
	line := b.get(b.base+"/journal-entries/"+posted, b.token).status(t, 200).str("data.lines.2.id")
	doc := docRow(t, b.db, b.company, strings.Repeat("8", 64), "")
	b.post(b.base+"/documents/"+doc+"/link", b.token, map[string]any{"journal_entry_id": posted, "journal_entry_line_id": line},
		"Idempotency-Key", ik()).status(t, 200)

	if e := b.action(posted, "no-document-required", map[string]any{"reason": "Bankavgift"}).errorCode(t, 409, "CONFLICT"); e.str("error.details.reason") != "has_document" {
		t.Fatalf("mark: %s", e.Body)
	}
	bulk := b.post(b.base+"/journal-entries/no-document-required", b.token,
		map[string]any{"journal_entry_ids": []string{posted, bare}}).status(t, 200)
	if bulk.at("data.exempted") != float64(1) || bulk.str("data.skipped_ids.0") != posted {
		t.Fatalf("bulk: %s", bulk.Body)
	}
	if e := b.action(posted, "strike-lines", map[string]any{"strike_line_ids": []string{line}}).
		errorCode(t, 409, "JOURNAL_RATTELSE_REFUSED"); e.str("error.details.reason") != "linked_document" {
		t.Fatalf("strike: %s", e.Body)
	}
}

// Correct and redate take the underlag to the replacement, line links by
// sort order; a storno leaves it on the original.
func TestUnderlagFollowsTheCorrection(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	posted := b.posted(t, "03-15")
	line := b.get(b.base+"/journal-entries/"+posted, b.token).status(t, 200).str("data.lines.2.id")
	doc := docRow(t, b.db, b.company, strings.Repeat("9", 64), "")
	b.post(b.base+"/documents/"+doc+"/link", b.token, map[string]any{"journal_entry_id": posted, "journal_entry_line_id": line},
		"Idempotency-Key", ik()).status(t, 200)
	hasDoc := func(id string) any {
		return b.get(b.base+"/journal-entries/"+id, b.token).status(t, 200).at("data.has_document")
	}
	if hasDoc(posted) != true {
		t.Fatal("the entry does not say it has underlag")
	}
	list := b.get(b.base+"/journal-entries", b.token).status(t, 200)
	if list.at("data.journal_entries.0.has_document") != true {
		t.Fatalf("the list does not say it: %s", clip(list.Body))
	}
	fix := b.action(posted, "correct", map[string]any{"lines": []map[string]any{
		{"account_number": "1930", "debit_amount": 1500}, {"account_number": "3001", "credit_amount": 1200},
		{"account_number": "2611", "credit_amount": 300}}}).status(t, 200)
	corrected := fix.str("data.corrected_id")
	third := b.get(b.base+"/journal-entries/"+corrected, b.token).status(t, 200).str("data.lines.2.id")
	d := b.get(b.base+"/documents/"+doc, b.token).status(t, 200)
	if d.str("data.journal_entry_id") != corrected || d.str("data.journal_entry_line_id") != third || d.at("data.linked") != true {
		t.Fatalf("after the correction: %s", d.Body)
	}
	if hasDoc(corrected) != true || hasDoc(posted) != false {
		t.Fatal("has_document did not follow the underlag")
	}
	moved := b.action(corrected, "redate", map[string]any{"new_entry_date": b.day("04-02")}).status(t, 200)
	if d := b.get(b.base+"/documents/"+doc, b.token).status(t, 200); d.str("data.journal_entry_id") != moved.str("data.corrected_id") {
		t.Fatalf("after the redate: %s", d.Body)
	}
	again := moved.str("data.corrected_id")
	b.action(again, "reverse", map[string]any{"reversal_date": b.day("04-03"), "allow_deep_chain": true}).status(t, 200)
	if d := b.get(b.base+"/documents/"+doc, b.token).status(t, 200); d.str("data.journal_entry_id") != again {
		t.Fatalf("after the storno: %s", d.Body)
	}
}

// respelled writes the same signature bytes otherwise: the last of its 43
// base64 characters carries two bits no byte uses.
func respelled(sig string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alphabet, sig[len(sig)-1])
	return sig[:len(sig)-1] + string(alphabet[last^1])
}
