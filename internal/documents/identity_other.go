//go:build !linux

package documents

import "os"

// fileID is empty where a file's change time is not read: blobs are then
// hashed every time they are served.
type fileID struct{}

func identityOf(os.FileInfo) (fileID, bool) { return fileID{}, false }
