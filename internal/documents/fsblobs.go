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

// Put stores r under key (see Blobs).
func (s FS) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if _, err := os.Stat(p); err == nil {
		// Kept as it is, but written anew as far as the sweep goes: a
		// row is about to name it.
		now := time.Now()
		return os.Chtimes(p, now, now)
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
	n, err := io.Copy(f, r)
	if err == nil && n != size {
		err = fmt.Errorf("documents: the blob is %d bytes, not %d", n, size)
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
	if err := os.Link(f.Name(), p); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return syncDir(dir)
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
	return fileBlob{File: f, size: st.Size()}, nil
}

type fileBlob struct {
	*os.File
	size int64
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
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return err
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
