package tests

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/store"
)

// docRow writes a document row as the application role: version 1 of
// bytes with hash sha (64 hex digits), underlag of entry (or of none).
func docRow(t *testing.T, app *store.DB, company uuid.UUID, sha, entry string) string {
	t.Helper()
	var id string
	var je any
	if entry != "" {
		je = entry
	}
	if err := app.Get(&id, `INSERT INTO documents (company_id, file_name, mime_type, file_size_bytes, sha256_hash,
			storage_key, upload_source, journal_entry_id)
		VALUES ($1::uuid, 'kvitto.pdf', 'application/pdf', 1250, $2::text, $1::uuid::text || '/' || left($2::text, 2) || '/' || $2::text, 'api', $3::uuid)
		RETURNING id`, company, sha, je); err != nil {
		t.Fatal(err)
	}
	return id
}

// The archive defends itself in the database: bytes and their description
// never change, a linked document is never deleted and moves only to the
// correction of its verifikat, retention is stamped by the database and
// never shortened, a superseded version stays superseded, and nobody
// truncates the table.
func TestDocumentsAreWriteOnceInTheDatabase(t *testing.T) {
	t.Parallel()
	app, owner, b := guardedBooks(t)
	ctx := context.Background()
	sha := func(c string) string { return strings.Repeat(c, 64) }
	posted := b.posted(t, "03-15")
	draft := b.create(b.sale("03-16")).status(t, 201).str("data.id")
	doc := docRow(t, app, b.company, sha("a"), posted)
	c := b.company.String()
	// The books' year is the current calendar year: kept through 31
	// December seven years after it.
	year := b.year
	want := func() string {
		y := 0
		for _, ch := range year {
			y = y*10 + int(ch-'0')
		}
		return time.Date(y+7, 12, 31, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
	}()
	retention := func(id string) string {
		t.Helper()
		var d *time.Time
		if err := app.Get(&d, `SELECT retention_until FROM documents WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
		if d == nil {
			return ""
		}
		return d.Format(time.DateOnly)
	}
	if got := retention(doc); got != want {
		t.Fatalf("underlag of a posted verifikat of %s kept until %q, want %s", year, got, want)
	}

	for _, db := range []struct {
		who string
		db  *store.DB
	}{{"the application role", app}, {"the owner", owner}} {
		for _, q := range []string{
			`UPDATE documents SET sha256_hash = repeat('b', 64), storage_key = company_id::text || '/bb/' || repeat('b', 64) WHERE company_id = $1`,
			`UPDATE documents SET file_name = 'annan.pdf' WHERE company_id = $1`,
			`UPDATE documents SET file_size_bytes = 1 WHERE company_id = $1`,
			`UPDATE documents SET retention_until = '2027-01-01' WHERE company_id = $1`,
			`UPDATE documents SET retention_until = NULL WHERE company_id = $1`,
			`UPDATE documents SET journal_entry_id = NULL WHERE company_id = $1`,
			`UPDATE documents SET journal_entry_id = '` + draft + `' WHERE company_id = $1`,
			`DELETE FROM documents WHERE company_id = $1`,
			`TRUNCATE documents CASCADE`, // invoice_archive names documents
		} {
			refusedByTheBooks(t, db.db, db.who, q, c)
		}
	}

	// A draft's underlag is not kept yet: it moves, and it may go.
	free := docRow(t, app, b.company, sha("c"), draft)
	if got := retention(free); got != "" {
		t.Fatalf("underlag of a draft kept until %s", got)
	}
	if _, err := app.ExecContext(ctx, `UPDATE documents SET journal_entry_id = $2 WHERE id = $1`, free, posted); err != nil {
		t.Fatalf("moving a draft's underlag: %v", err)
	}
	if got := retention(free); got != want {
		t.Fatalf("moved onto a posted verifikat: kept until %q", got)
	}
	// A draft's underlag becomes linked when the draft is posted, with no
	// write to the archive: from then on it may not go, though nothing has
	// stamped its retention yet.
	draft2 := b.create(b.sale("03-17")).status(t, 201).str("data.id")
	later := docRow(t, app, b.company, sha("9"), draft2)
	b.action(draft2, "commit", nil).status(t, 200)
	if got := retention(later); got != "" {
		t.Fatalf("stamped at the draft's commit: %s", got)
	}
	for _, db := range []*store.DB{app, owner} {
		refusedByTheBooks(t, db, "deleting underlag of a verifikat posted since", `DELETE FROM documents WHERE id = '`+later+`' AND company_id = $1`, c)
	}
	loose := docRow(t, app, b.company, sha("d"), "")
	if _, err := app.ExecContext(ctx, `DELETE FROM documents WHERE id = $1`, loose); err != nil {
		t.Fatalf("deleting a document nothing holds: %v", err)
	}

	// The correction of a verifikat takes its underlag with it, kept as long
	// as before.
	fix := b.action(posted, "correct", map[string]any{"lines": []map[string]any{
		{"account_number": "1930", "debit_amount": 1500}, {"account_number": "3001", "credit_amount": 1500}}}).status(t, 200)
	if _, err := app.ExecContext(ctx, `UPDATE documents SET journal_entry_id = $2 WHERE id = $1`, doc,
		fix.str("data.corrected_id")); err != nil {
		t.Fatalf("moving underlag to the correction: %v", err)
	}

	// A new version supersedes; the old one keeps everything, is kept as
	// long as it was linked, and stays superseded.
	var v2 string
	if err := app.Get(&v2, `INSERT INTO documents (company_id, file_name, file_size_bytes, sha256_hash, storage_key,
			upload_source, version, original_id, journal_entry_id)
		SELECT company_id, file_name, 99, repeat('e', 64), company_id::text || '/ee/' || repeat('e', 64), 'api', 2, id,
			journal_entry_id FROM documents WHERE id = $1 RETURNING id`, doc); err != nil {
		t.Fatal(err)
	}
	if _, err := app.ExecContext(ctx, `UPDATE documents SET superseded_by_id = $2, is_current_version = false
		WHERE id = $1`, doc, v2); err != nil {
		t.Fatalf("superseding: %v", err)
	}
	for _, q := range []string{
		`UPDATE documents SET superseded_by_id = NULL, is_current_version = true WHERE id = '` + doc + `' AND company_id = $1`,
		`UPDATE documents SET journal_entry_id = NULL WHERE id = '` + doc + `' AND company_id = $1`,
		`DELETE FROM documents WHERE id = '` + doc + `' AND company_id = $1`,
	} {
		refusedByTheBooks(t, app, "the application role", q, c)
	}
	if got := retention(doc); got != want {
		t.Fatalf("the superseded version is kept until %q", got)
	}

	// Retention by hand, and a version whose time is past may go.
	for end, until := range map[string]string{"2026-12-31": "2033-12-31", "2026-06-30": "2033-12-31",
		"2025-04-30": "2032-12-31", "2017-12-31": "2024-12-31"} {
		var got time.Time
		if err := app.Get(&got, `SELECT documents_retention_until($1::date)`, end); err != nil || got.Format(time.DateOnly) != until {
			t.Errorf("a fiscal year ending %s: kept until %s (%v), want %s", end, got.Format(time.DateOnly), err, until)
		}
	}
	old := docRow(t, app, b.company, sha("f"), "")
	if _, err := owner.ExecContext(ctx, `UPDATE documents SET retention_until = '2024-12-31' WHERE id = $1`, old); err != nil {
		t.Fatal(err)
	}
	if _, err := app.ExecContext(ctx, `DELETE FROM documents WHERE id = $1`, old); err != nil {
		t.Fatalf("a document kept through 2024-12-31: %v", err)
	}
}

// A deletion that meets a posting of the document's verifikat in flight
// waits for it and then sees the document linked: a posted verifikat never
// loses its underlag to a race.
func TestDocumentDeleteWaitsForThePosting(t *testing.T) {
	t.Parallel()
	app, _, b := guardedBooks(t)
	draft := b.create(b.sale("03-16")).status(t, 201).str("data.id")
	doc := docRow(t, app, b.company, strings.Repeat("a", 64), draft)
	tx, err := app.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`UPDATE journal_entries SET status = 'posted', posted_by_type = 'system', posted_by_label = 'test'
		WHERE company_id = $1 AND id = $2`, b.company, draft); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := app.Exec(`DELETE FROM documents WHERE company_id = $1 AND id = $2`, b.company, doc)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the deletion did not wait for the posting: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "underlag of a posted verifikat") {
		t.Fatalf("deleting underlag of a verifikat posted meanwhile: %v", err)
	}
}
