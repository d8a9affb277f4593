// Package sieimport books SIE 4 files into a company's ledger: the files
// themselves (kept as räkenskapsinformation), the signed uploads that
// bring large ones, the imports with their two passes (check the whole
// file, then post it in chunks through ledger.PostBatch), their undo,
// and the holds an import keeps on its year until it is finished.
package sieimport

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/store"
)

// MaxFile is the largest SIE file taken: 50 MB.
const MaxFile = 50 << 20

// chunk is how a file's bytes are stored: rows of 1 MiB.
const chunk = 1 << 20

// Files keeps the bytes of imported files in the database, addressed by
// their SHA-256 per company: every replica reads them, and they are
// never changed or removed.
type Files struct {
	db *store.DB
}

// NewFiles returns the file store on db.
func NewFiles(db *store.DB) *Files { return &Files{db: db} }

// File is a kept file: its SHA-256 (hex) and size.
type File struct {
	SHA256 string
	Size   int64
}

// Spool reads r (at most max bytes; PAYLOAD_TOO_LARGE past it) into a
// temporary file while hashing it: a file is stored under its hash, so
// the hash comes first. The caller removes the file.
func Spool(r io.Reader, max int64) (*os.File, File, error) {
	tmp, err := os.CreateTemp("", "kontera-sie-*")
	if err != nil {
		return nil, File{}, err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(r, max+1))
	if err == nil && n > max {
		err = apierr.New(apierr.PayloadTooLarge, map[string]any{"max_bytes": max, "field": "file"})
	}
	if err == nil {
		_, err = tmp.Seek(0, io.SeekStart)
	}
	if err != nil {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return nil, File{}, err
	}
	return tmp, File{SHA256: hex.EncodeToString(h.Sum(nil)), Size: n}, nil
}

// Put keeps the spooled file f (positioned at its start) for company in
// the unit of work of ctx, unless the company has these bytes already.
func (s *Files) Put(ctx context.Context, company uuid.UUID, f File, r io.Reader) error {
	q := s.db.Q(ctx)
	res, err := q.ExecContext(ctx, `INSERT INTO import_files (company_id, sha256, size, chunks)
		VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, company, f.SHA256, f.Size, (f.Size+chunk-1)/chunk)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	buf := make([]byte, chunk)
	for seq := 0; ; seq++ {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			if _, err := q.ExecContext(ctx, `INSERT INTO import_file_chunks (company_id, sha256, seq, data)
				VALUES ($1, $2, $3, $4)`, company, f.SHA256, seq, buf[:n]); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// Has reports whether company keeps the file sha256.
func (s *Files) Has(ctx context.Context, company uuid.UUID, sha string) (File, bool, error) {
	f := File{SHA256: sha}
	err := s.db.Q(ctx).QueryRowxContext(ctx, `SELECT size FROM import_files WHERE company_id = $1 AND sha256 = $2`,
		company, sha).Scan(&f.Size)
	if store.NotFound(err) {
		return f, false, nil
	}
	return f, err == nil, err
}

// Open reads company's file sha256 from offset on, a chunk at a time
// (outside any unit of work: a reader may outlive the one that opened
// it).
func (s *Files) Open(ctx context.Context, company uuid.UUID, sha string, offset int64) io.Reader {
	return &chunks{ctx: ctx, db: s.db, company: company, sha: sha, seq: int(offset / chunk), skip: int(offset % chunk)}
}

// chunks reads a kept file chunk by chunk.
type chunks struct {
	ctx     context.Context
	db      *store.DB
	company uuid.UUID
	sha     string
	seq     int
	skip    int
	buf     []byte
	done    bool
}

func (c *chunks) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
		if c.done {
			return 0, io.EOF
		}
		var data []byte
		err := c.db.QueryRowxContext(c.ctx, `SELECT data FROM import_file_chunks
			WHERE company_id = $1 AND sha256 = $2 AND seq = $3`, c.company, c.sha, c.seq).Scan(&data)
		if store.NotFound(err) {
			c.done = true
			continue
		}
		if err != nil {
			return 0, err
		}
		c.seq++
		if c.skip > 0 {
			data = data[min(c.skip, len(data)):]
			c.skip = 0
		}
		c.buf = data
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}
