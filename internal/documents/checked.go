package documents

import (
	"sync"
	"time"
)

// recheckAfter is how long a blob's bytes, once hashed and found right,
// are served without hashing them again while its file is unchanged: a
// change through the filesystem (a write, a chmod, a file put in its
// place) is seen at once, as the file's identity; one beneath it (the
// disk's own decay) within this time.
const recheckAfter = time.Hour

// maxChecked bounds what checked remembers: about 100 bytes a blob.
const maxChecked = 100_000

// checked remembers the blobs whose bytes were hashed and found to be
// those uploaded, by the identity of the file they were read from, so a
// blob downloaded again is not read twice each time (the hash costs more
// than sending it).
type checked struct {
	mu   sync.Mutex
	seen map[string]checkedFile
}

type checkedFile struct {
	id   fileID
	when time.Time
}

// fresh reports whether key was found right, in the same file, within
// recheckAfter of now.
func (c *checked) fresh(key string, id fileID, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.seen[key]
	return ok && f.id == id && now.Sub(f.when) < recheckAfter && !now.Before(f.when)
}

// remember records that key's bytes, read from the file id, were found
// right at now. Past maxChecked, half is forgotten (hashed again when
// next served).
func (c *checked) remember(key string, id fileID, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = map[string]checkedFile{}
	}
	if len(c.seen) >= maxChecked {
		n := 0
		for k := range c.seen {
			if n++; n > maxChecked/2 {
				break
			}
			delete(c.seen, k)
		}
	}
	c.seen[key] = checkedFile{id: id, when: now}
}
