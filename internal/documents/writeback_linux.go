package documents

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing n bytes of f at off to
// the disk without waiting for it: a hint, whose failure the fsync that
// follows reports.
func startWriteback(f *os.File, off int64, n int) {
	c, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = c.Control(func(fd uintptr) {
		_ = unix.SyncFileRange(int(fd), off, int64(n), unix.SYNC_FILE_RANGE_WRITE)
	})
}
