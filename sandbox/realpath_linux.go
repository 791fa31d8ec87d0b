package sandbox

import (
	"errors"
	"io/fs"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// realPath is filepath.EvalSymlinks for a path that may well be missing,
// with one system call when it is: most of the default secret places and
// protected paths are missing on any one machine, and EvalSymlinks would
// look at each of their folders in turn to say so. A path the kernel
// cannot reach (missing, or below a file) is one EvalSymlinks fails on
// too.
func realPath(path string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
		return "", &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	return filepath.EvalSymlinks(path)
}
