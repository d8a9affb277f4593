package documents

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/pgtest"
)

// The sweep takes the blobs no row names once they are a day old, and
// leaves the named ones and the young ones.
func TestSweep(t *testing.T) {
	d := pgtest.New(t)
	ctx := context.Background()
	s := NewStore(d)
	company, _ := books(t, d, false)
	b := FS{Dir: t.TempDir()}
	put := func(c string, company uuid.UUID, age time.Duration) string {
		t.Helper()
		key := Key(company, hash(c))
		if err := b.Put(ctx, key, bytes.NewReader([]byte(c)), 1); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(-age)
		if err := os.Chtimes(filepath.Join(b.Dir, filepath.FromSlash(key)), at, at); err != nil {
			t.Fatal(err)
		}
		return key
	}
	pdf := "application/pdf"
	if _, _, err := s.Insert(ctx, Doc{CompanyID: company, ID: uuid.New(), FileName: "k.pdf", MimeType: &pdf,
		Size: 1, SHA256: hash("a"), Version: 1, Source: "api"}); err != nil {
		t.Fatal(err)
	}
	named := put("a", company, 48*time.Hour)
	orphan := put("b", company, 25*time.Hour)
	young := put("c", company, 23*time.Hour)
	// The same bytes as a named blob, of a company with no row for them.
	foreign := put("a", uuid.New(), 30*time.Hour)

	// What a stopped server left in the spool goes too, once as old.
	spool, err := b.SpoolDir()
	if err != nil {
		t.Fatal(err)
	}
	left := filepath.Join(spool, "kontera-upload-1")
	if err := os.WriteFile(left, []byte("halv"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-25 * time.Hour)
	if err := os.Chtimes(left, old, old); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(spool, "kontera-upload-2")
	if err := os.WriteFile(fresh, []byte("pågår"), 0o600); err != nil {
		t.Fatal(err)
	}

	n, err := s.Sweep(ctx, b, time.Now())
	if err != nil || n != 3 {
		t.Fatalf("swept %d (%v), want 3", n, err)
	}
	if _, err := os.Stat(left); err == nil {
		t.Fatal("an old spool file stayed")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Fatalf("an upload in flight lost its spool file: %v", err)
	}
	for key, want := range map[string]bool{named: true, orphan: false, young: true, foreign: false} {
		_, err := b.Open(ctx, key)
		if (err == nil) != want {
			t.Errorf("%s: kept %v, want %v", key, err == nil, want)
		}
	}
	// A day later the young one goes too.
	if n, err := s.Sweep(ctx, b, time.Now().Add(2*time.Hour)); err != nil || n != 1 {
		t.Fatalf("swept %d (%v), want 1", n, err)
	}
}
