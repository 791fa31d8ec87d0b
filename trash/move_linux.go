//go:build linux

package trash

import (
	"errors"

	"golang.org/x/sys/unix"
)

// moveNoReplace renames without ever replacing what is at dst, atomically
// where the file system supports RENAME_NOREPLACE.
func moveNoReplace(src, dst string) error {
	err := unix.Renameat2(unix.AT_FDCWD, src, unix.AT_FDCWD, dst, unix.RENAME_NOREPLACE)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EEXIST):
		return errExist(dst)
	case errors.Is(err, unix.EXDEV):
		return copyThenRemove(src, dst)
	case errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS):
		return checkThenRename(src, dst)
	}
	return err
}
