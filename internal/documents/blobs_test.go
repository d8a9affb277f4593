package documents

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

// conformance is what every Blobs must do; each backend's test runs it.
func conformance(t *testing.T, s Blobs) {
	ctx := context.Background()
	company := uuid.New()
	data := []byte("%PDF-1.4 kvitto 1250 kr")
	sum := sha256.Sum256(data)
	key := Key(company, hex.EncodeToString(sum[:]))

	if _, err := s.Open(ctx, key); !errors.Is(err, ErrNoBlob) {
		t.Fatalf("open before put: %v", err)
	}
	if err := s.Put(ctx, key, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	read := func() []byte {
		t.Helper()
		b, err := s.Open(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		if b.Size() != int64(len(data)) {
			t.Fatalf("size %d, want %d", b.Size(), len(data))
		}
		if _, err := b.Seek(5, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		tail, err := io.ReadAll(b)
		if err != nil || !bytes.Equal(tail, data[5:]) {
			t.Fatalf("read from 5: %q (%v)", tail, err)
		}
		if _, err := b.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		all, err := io.ReadAll(b)
		if err != nil {
			t.Fatal(err)
		}
		return all
	}
	if got := read(); !bytes.Equal(got, data) {
		t.Fatalf("read %q", got)
	}

	// A blob is never replaced, and putting it again from many requests at
	// once is no error.
	other := []byte("something else entirely")
	if err := s.Put(ctx, key, bytes.NewReader(other), int64(len(other))); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- s.Put(ctx, key, bytes.NewReader(data), int64(len(data)))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent put: %v", err)
		}
	}
	if got := read(); !bytes.Equal(got, data) {
		t.Fatalf("after puts again: %q", got)
	}

	// Putting the bytes again renews the time they were written.
	writtenAt := func() time.Time {
		t.Helper()
		var at time.Time
		if err := s.Each(ctx, func(k string, written time.Time) error { at = written; return nil }); err != nil {
			t.Fatal(err)
		}
		return at
	}
	before := writtenAt()
	time.Sleep(1100 * time.Millisecond) // S3 keeps whole seconds
	if err := s.Put(ctx, key, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	if after := writtenAt(); !after.After(before) {
		t.Fatalf("written %v, then %v after another put", before, after)
	}
	if got := read(); !bytes.Equal(got, data) {
		t.Fatalf("after the renewal: %q", got)
	}

	var keys []string
	if err := s.Each(ctx, func(k string, written time.Time) error {
		if time.Since(written) > time.Hour || time.Until(written) > time.Hour {
			t.Errorf("%s written at %v", k, written)
		}
		keys = append(keys, k)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0] != key {
		t.Fatalf("each: %v", keys)
	}

	if err := s.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(ctx, key); !errors.Is(err, ErrNoBlob) {
		t.Fatalf("open after delete: %v", err)
	}
	if err := s.Delete(ctx, key); err != nil {
		t.Fatalf("delete again: %v", err)
	}

	// A short read is not a blob.
	if err := s.Put(ctx, key, bytes.NewReader(data[:4]), int64(len(data))); err == nil {
		t.Fatal("a blob shorter than its size was stored")
	}
	if _, err := s.Open(ctx, key); !errors.Is(err, ErrNoBlob) {
		t.Fatalf("a failed put left a blob: %v", err)
	}

	// Only keys Key makes are paths into the store.
	for _, bad := range []string{"../etc/passwd", company.String() + "/ab/../../x", company.String() + "/zz/" + hex.EncodeToString(sum[:]), ""} {
		if _, err := s.Open(ctx, bad); !errors.Is(err, errBadKey) {
			t.Errorf("open %q: %v", bad, err)
		}
	}
}

func TestFSBlobs(t *testing.T) {
	dir := t.TempDir()
	conformance(t, FS{Dir: dir})

	// On disk: read-only, and nothing left but the tree.
	s := FS{Dir: dir}
	data := []byte("kvitto")
	sum := sha256.Sum256(data)
	key := Key(uuid.New(), hex.EncodeToString(sum[:]))
	if err := s.Put(context.Background(), key, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(dir, filepath.FromSlash(key)))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o444 {
		t.Fatalf("blob mode %v, want 0444", info.Mode().Perm())
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*", "*", ".put-*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}
