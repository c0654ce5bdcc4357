//go:build !unix

package proxyserver

import (
	"io/fs"
	"os"
)

// openNoFollow opens path for reading, failing on a symbolic link.
func openNoFollow(path string) (*os.File, error) {
	if info, err := os.Lstat(path); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrInvalid}
	}
	return os.Open(path)
}

// linkCount is the number of names of the file; not known here.
func linkCount(fs.FileInfo) uint64 { return 1 }
