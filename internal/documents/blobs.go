package documents

import (
	"context"
	"errors"
	"io"
	"regexp"
	"time"

	"github.com/google/uuid"
)

// Blobs holds the bytes of documents, one blob per company and SHA-256:
// rows that name the same bytes share a blob. A blob is written once and
// never replaced; the rows in the database are the truth about which
// blobs are wanted.
type Blobs interface {
	// Put stores the size bytes of r under key. A blob already under key is
	// kept as it is (the key is the bytes' hash, so it holds them already),
	// but its time written is renewed: a row is about to name it, and the
	// sweep takes only blobs no row names written long ago.
	Put(ctx context.Context, key string, r io.Reader, size int64) error
	// Open answers the blob under key, ErrNoBlob when there is none.
	Open(ctx context.Context, key string) (Blob, error)
	// Delete removes the blob under key; none there is no error.
	Delete(ctx context.Context, key string) error
	// Each calls fn with the key and the time written of every blob, for
	// the sweep of blobs no row names.
	Each(ctx context.Context, fn func(key string, written time.Time) error) error
}

// Blob is an open blob: read, seek (for ranges) and close it.
type Blob interface {
	io.ReadSeekCloser
	Size() int64
}

// ErrNoBlob says there is no blob under a key.
var ErrNoBlob = errors.New("documents: no such blob")

// Key is where the bytes with hash sha256 (lower-case hex) of company are
// kept: "<company_id>/<first two hex digits>/<sha256>".
func Key(company uuid.UUID, sha256 string) string {
	return company.String() + "/" + sha256[:2] + "/" + sha256
}

var keyShape = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/([0-9a-f]{2})/([0-9a-f]{64})$`)

// validKey reports whether key is one Key makes: a store never opens a
// path it did not build.
func validKey(key string) bool {
	m := keyShape.FindStringSubmatch(key)
	return m != nil && m[2][:2] == m[1]
}

// errBadKey says a key is not one Key makes.
var errBadKey = errors.New("documents: not a blob key")
