package documents

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
)

// spoolBuffer is how much of an upload is read from the connection, and
// written to its temporary file, at once.
const spoolBuffer = 256 << 10

// MaxBytes is the largest file an upload takes: 10 MiB (002 Limits).
const MaxBytes = 10 << 20

var (
	// ErrTooLarge says the file is past MaxBytes.
	ErrTooLarge = errors.New("documents: the file is larger than 10 MiB")
	// ErrEmpty says the file has no bytes.
	ErrEmpty = errors.New("documents: the file is empty")
)

// Spooled is an uploaded file written to a temporary file as it arrived,
// with its size and SHA-256 counted on the way: the request never holds
// the whole file in memory, and nothing reads it twice to hash it.
type Spooled struct {
	Path   string
	Size   int64
	SHA256 string // lower-case hex
}

// Spool copies r into a new temporary file in dir (the system's when ""),
// stopping one byte past MaxBytes: ErrTooLarge then, ErrEmpty for no
// bytes; the file is removed on any error. The caller removes Path.
func Spool(r io.Reader, dir string) (*Spooled, error) {
	f, err := os.CreateTemp(dir, "kontera-upload-*")
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	// A multipart part reads in pieces of 4 KiB: gather them, so the file
	// is written in few calls.
	w := bufio.NewWriterSize(io.MultiWriter(f, h), spoolBuffer)
	n, err := io.Copy(w, io.LimitReader(r, MaxBytes+1))
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
	case n > MaxBytes:
		err = ErrTooLarge
	case n == 0:
		err = ErrEmpty
	}
	if err != nil {
		os.Remove(f.Name())
		return nil, err
	}
	return &Spooled{Path: f.Name(), Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}
