//go:build linux

package trash

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames from (in the folder fromDir) to to (in toDir)
// without ever replacing what is there, atomically where the file system
// supports RENAME_NOREPLACE.
func renameNoReplace(fromDir int, from string, toDir int, to string) error {
	err := unix.Renameat2(fromDir, from, toDir, to, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return checkThenRenameat(fromDir, from, toDir, to)
	}
	return err
}

// inFolder names to in the open folder dir as a path that does not walk
// the way down again: /proc/self/fd/N is the folder itself.
func inFolder(dir int, to, fallback string) string {
	fd := "/proc/self/fd/" + strconv.Itoa(dir)
	if _, err := os.Stat(fd); err != nil {
		return fallback
	}
	return fd + "/" + to
}
