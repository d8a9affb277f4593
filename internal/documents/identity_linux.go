package documents

import (
	"os"
	"syscall"
)

// fileID tells one state of a file from another: its device and inode,
// size, and modification and change times. The change time moves with
// every write, chmod or link, and cannot be set back.
type fileID struct {
	dev, ino     uint64
	size         int64
	mtime, ctime syscall.Timespec
}

// identityOf answers the identity of the file st describes; false where
// none can be read (blobs are then hashed every time).
func identityOf(st os.FileInfo) (fileID, bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{dev: s.Dev, ino: s.Ino, size: s.Size, mtime: s.Mtim, ctime: s.Ctim}, true
}
