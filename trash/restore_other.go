//go:build !unix

package trash

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// restoreBelow moves entryDir/item to root/rel, refusing a way down that
// passes through a link. There is no rm shim here, so no entries either;
// this is the plain, checked form.
func restoreBelow(entryDir, root, rel string) error {
	p := root
	parts := strings.Split(rel, string(filepath.Separator))
	for _, part := range parts[:len(parts)-1] {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		switch {
		case err == nil && fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("%w: %s is now a symbolic link", ErrOutside, p)
		case err == nil && !fi.IsDir():
			return fmt.Errorf("%w: %s is not a folder", ErrExists, p)
		case err != nil:
			if err := os.Mkdir(p, 0o755); err != nil && !os.IsExist(err) {
				return fmt.Errorf("trash: %w", err)
			}
		}
	}
	dst := filepath.Join(root, rel)
	if err := checkThenRename(filepath.Join(entryDir, "item"), dst); err != nil {
		if os.IsExist(err) {
			return fmt.Errorf("%w: %s", ErrExists, dst)
		}
		return fmt.Errorf("trash: restore to %s: %w", dst, err)
	}
	return nil
}

func errExist(p string) error {
	return &fs.PathError{Op: "restore", Path: p, Err: fs.ErrExist}
}

func checkThenRename(src, dst string) error {
	if _, err := os.Lstat(dst); err == nil {
		return errExist(dst)
	}
	err := os.Rename(src, dst)
	var le *os.LinkError
	if errors.As(err, &le) && isCrossDevice(le.Err) {
		return copyThenRemove(src, dst)
	}
	return err
}

// ERROR_NOT_SAME_DEVICE: Windows' word for a rename across volumes.
const errNotSameDevice = syscall.Errno(17)

func isCrossDevice(err error) bool { return errors.Is(err, errNotSameDevice) }
