package documents

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"sync"
)

// spoolBuffer is how much of an upload is read from the connection, and
// written to its temporary file, at once.
const spoolBuffer = 256 << 10

// pieces keeps the spool's buffers between uploads: fresh ones would be
// cleared and collected for every upload.
var pieces = sync.Pool{New: func() any { return new([spoolBuffer]byte) }}

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
//
// Reading and hashing run beside writing, a piece of spoolBuffer bytes
// apart, and each piece written is handed to the disk at once (where the
// system can be asked to): an upload costs about the slower of the
// network and the disk, not their sum, and the fsync that makes it a
// blob finds little left to write.
func Spool(r io.Reader, dir string) (*Spooled, error) {
	f, err := os.CreateTemp(dir, "kontera-upload-*")
	if err != nil {
		return nil, err
	}
	full, free := make(chan []byte, 2), make(chan []byte, 3)
	for range cap(free) {
		free <- pieces.Get().(*[spoolBuffer]byte)[:]
	}
	defer func() {
		for range cap(free) {
			pieces.Put((*[spoolBuffer]byte)(<-free))
		}
	}()
	written := make(chan error, 1)
	go func() {
		var off int64
		var err error
		for b := range full {
			if err == nil {
				_, err = f.Write(b)
				startWriteback(f, off, len(b))
				off += int64(len(b))
			}
			free <- b[:cap(b)]
		}
		written <- err
	}()
	h := sha256.New()
	lr := io.LimitReader(r, MaxBytes+1)
	var n int64
	for {
		b := <-free
		m, rerr := io.ReadFull(lr, b)
		if m > 0 {
			h.Write(b[:m])
			n += int64(m)
			full <- b[:m]
		} else {
			free <- b
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			err = rerr
			break
		}
	}
	close(full)
	if werr := <-written; err == nil {
		err = werr
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
