package documents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// FS keeps blobs as files under a directory: one replica, or replicas
// sharing a volume. Each is written to a temporary file, synced, made
// read-only and linked to its name, which never replaces a file already
// there; the directory is synced after, so a blob a committed row names
// survives a crash.
type FS struct{ Dir string }

var _ Blobs = FS{}

func (s FS) path(key string) (string, error) {
	if !validKey(key) {
		return "", errBadKey
	}
	return filepath.Join(s.Dir, filepath.FromSlash(key)), nil
}

// Put stores r under key (see Blobs): written to a temporary file beside
// the blob's name, which then becomes the blob (Adopt).
func (s FS) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if kept, err := renewed(p); kept || err != nil {
		return err
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".put-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after the link, the blob keeps its other name
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return s.Adopt(ctx, key, f.Name(), size)
}

// SpoolDir is where an upload spools its file so that Adopt can make it
// a blob without copying it: on the store's filesystem, in a folder the
// walk of blobs skips.
func (s FS) SpoolDir() (string, error) {
	dir := filepath.Join(s.Dir, ".spool")
	return dir, os.MkdirAll(dir, 0o750)
}

// SweepSpool removes what uploads left in the spool (a server stopped
// mid-upload) written before before, and answers how many files went.
func (s FS) SweepSpool(before time.Time) (int, error) {
	entries, err := os.ReadDir(filepath.Join(s.Dir, ".spool"))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || e.IsDir() || !info.ModTime().Before(before) {
			continue
		}
		if err := os.Remove(filepath.Join(s.Dir, ".spool", e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, err
		}
		n++
	}
	return n, nil
}

// Adopt makes the file at path, of size bytes, the blob under key
// without copying it: synced, made read-only and linked to the key's
// name (never over a blob there; one there is renewed as Put renews it).
// The file must lie on the store's filesystem (SpoolDir) and is never
// written again; its own name stays the caller's to remove.
func (s FS) Adopt(ctx context.Context, key, path string, size int64) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if kept, err := renewed(p); kept || err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err == nil && st.Size() != size {
		err = fmt.Errorf("documents: the blob is %d bytes, not %d", st.Size(), size)
	}
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = f.Chmod(0o444)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	// Linked, never renamed: a link never replaces a blob there. The
	// directory is synced so the name survives a crash.
	if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
		return err
	}
	if err := os.Link(path, p); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return syncDir(filepath.Dir(p))
}

// renewed reports whether a blob is at p already, and renews the time it
// was written if so: kept as it is, but new as far as the sweep goes, as
// a row is about to name it.
func renewed(p string) (bool, error) {
	if _, err := os.Stat(p); err != nil {
		return false, nil
	}
	now := time.Now()
	return true, os.Chtimes(p, now, now)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Open answers the blob under key (see Blobs).
func (s FS) Open(ctx context.Context, key string) (Blob, error) {
	p, err := s.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoBlob
	}
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	id, known := identityOf(st)
	return fileBlob{File: f, size: st.Size(), id: id, known: known}, nil
}

type fileBlob struct {
	*os.File
	size  int64
	id    fileID // the file's state when opened, if known
	known bool
}

func (b fileBlob) Size() int64 { return b.size }

// Delete removes the blob under key (see Blobs).
func (s FS) Delete(ctx context.Context, key string) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Each walks every blob (see Blobs); temporary files are not blobs.
func (s FS) Each(ctx context.Context, fn func(key string, written time.Time) error) error {
	err := filepath.WalkDir(s.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != s.Dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir // the spool
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(s.Dir, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if !validKey(key) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return fn(key, info.ModTime())
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil // nothing stored yet
	}
	return err
}
