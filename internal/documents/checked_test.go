package documents

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/google/uuid"
)

// A blob found right is not hashed again while its file is unchanged and
// the hour has not passed; a chmod or a write, the hour, or a clock set
// back make it hashed again, and altered bytes are then found.
func TestVerifyRemembers(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a file's change time is read on Linux only: blobs are hashed every time elsewhere")
	}
	ctx := context.Background()
	s := FS{Dir: t.TempDir()}
	data := []byte("%PDF-1.4 kvitto 1250 kr")
	sum := sha256.Sum256(data)
	d := Doc{CompanyID: uuid.New(), Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}
	d.StorageKey = Key(d.CompanyID, d.SHA256)
	if err := s.Put(ctx, d.StorageKey, bytes.NewReader(data), d.Size); err != nil {
		t.Fatal(err)
	}
	h := &Handler{checked: &checked{}}
	open := func() fileBlob {
		b, err := s.Open(ctx, d.StorageKey)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b.(fileBlob)
	}
	now := time.Now()
	b := open()
	if h.checked.fresh(d.StorageKey, b.id, now) {
		t.Fatal("fresh before any check")
	}
	if err := h.verify(b, d, now); err != nil {
		t.Fatal(err)
	}
	if !h.checked.fresh(d.StorageKey, open().id, now.Add(59*time.Minute)) {
		t.Fatal("not remembered for the same file within the hour")
	}
	for name, at := range map[string]time.Time{"after the hour": now.Add(recheckAfter), "before the check": now.Add(-time.Second)} {
		if h.checked.fresh(d.StorageKey, b.id, at) {
			t.Errorf("%s: still fresh", name)
		}
	}

	// Bytes changed behind the store's back change the file's identity.
	p := filepath.Join(s.Dir, filepath.FromSlash(d.StorageKey))
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, bytes.Replace(data, []byte("1250"), []byte("9250"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	changed := open()
	if h.checked.fresh(d.StorageKey, changed.id, now) {
		t.Fatal("a rewritten file is taken as checked")
	}
	if err := h.verify(changed, d, now); err == nil {
		t.Fatal("altered bytes verified")
	}
}

// The memory of checks is bounded: past maxChecked, half goes.
func TestCheckedBounded(t *testing.T) {
	var c checked
	now := time.Now()
	for range maxChecked + 1 {
		c.remember(uuid.NewString(), fileID{}, now)
	}
	if n := len(c.seen); n > maxChecked || n < maxChecked/2 {
		t.Fatalf("%d blobs remembered", n)
	}
}
