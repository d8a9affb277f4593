package documents

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"testing"
	"testing/iotest"
)

// 10 485 760 bytes pass with their size and hash; one more is too large,
// none is empty, and neither leaves a file behind.
func TestSpool(t *testing.T) {
	dir := t.TempDir()
	full := bytes.Repeat([]byte{'k'}, MaxBytes)
	s, err := Spool(bytes.NewReader(full), dir)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(full)
	if s.Size != 10_485_760 || s.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("spooled %d bytes, hash %s", s.Size, s.SHA256)
	}
	if b, err := os.ReadFile(s.Path); err != nil || !bytes.Equal(b, full) {
		t.Fatalf("the spooled file differs (%v)", err)
	}
	os.Remove(s.Path)
	if _, err := Spool(bytes.NewReader(append(full, 'x')), dir); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("one byte more: %v", err)
	}
	if _, err := Spool(bytes.NewReader(nil), dir); !errors.Is(err, ErrEmpty) {
		t.Fatalf("no bytes: %v", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("refused uploads left %d files", len(left))
	}
}

// A body that arrives in odd pieces spools whole; one that breaks off
// mid-way is the reader's error, and leaves no file.
func TestSpoolPieces(t *testing.T) {
	dir := t.TempDir()
	full := make([]byte, 3*spoolBuffer+17)
	for i := range full {
		full[i] = byte(i * 7)
	}
	s, err := Spool(iotest.HalfReader(bytes.NewReader(full)), dir)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(s.Path); err != nil || !bytes.Equal(b, full) {
		t.Fatalf("the spooled file differs (%v)", err)
	}
	os.Remove(s.Path)
	broken := errors.New("the client went away")
	if _, err := Spool(io.MultiReader(bytes.NewReader(full), iotest.ErrReader(broken)), dir); !errors.Is(err, broken) {
		t.Fatalf("a broken body: %v", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("a broken body left %d files", len(left))
	}
}
