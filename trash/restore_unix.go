//go:build unix

package trash

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// restoreBelow moves entryDir/item to root/rel, walking down from root a
// folder at a time, following no symbolic link.
func restoreBelow(entryDir, root, rel string) error {
	src, err := unix.Open(entryDir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrNotFound, filepath.Base(entryDir), err)
	}
	defer unix.Close(src)
	dir, name, err := openParent(root, rel)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	dst := filepath.Join(root, rel)
	err = renameNoReplace(src, "item", dir, name)
	if errors.Is(err, unix.EXDEV) {
		err = copyThenRemove(filepath.Join(entryDir, "item"), inFolder(dir, name, dst))
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EEXIST), errors.Is(err, fs.ErrExist), errors.Is(err, unix.ENOTEMPTY):
		return fmt.Errorf("%w: %s", ErrExists, dst)
	}
	return fmt.Errorf("trash: restore to %s: %w", dst, err)
}

// openParent opens the folder below root that is to hold rel's last
// part, making the missing folders on the way; a part that is a symbolic
// link stops it.
func openParent(root, rel string) (int, string, error) {
	dir, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, "", fmt.Errorf("trash: %s: %w", root, err)
	}
	parts := strings.Split(rel, string(filepath.Separator))
	for i, part := range parts[:len(parts)-1] {
		next, err := openChild(dir, part)
		if err != nil {
			unix.Close(dir)
			return -1, "", wayError(root, parts[:i+1], err)
		}
		unix.Close(dir)
		dir = next
	}
	return dir, parts[len(parts)-1], nil
}

// openChild opens (making it if missing) the folder name in dir, not
// through a link.
func openChild(dir int, name string) (int, error) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err := unix.Openat(dir, name, flags, 0)
	if errors.Is(err, unix.ENOENT) {
		if err := unix.Mkdirat(dir, name, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			return -1, err
		}
		fd, err = unix.Openat(dir, name, flags, 0)
	}
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		var st unix.Stat_t
		if unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return -1, errLink
		}
	}
	return fd, err
}

var errLink = errors.New("a symbolic link")

func wayError(root string, parts []string, err error) error {
	p := filepath.Join(root, filepath.Join(parts...))
	if errors.Is(err, errLink) {
		return fmt.Errorf("%w: %s is now a symbolic link", ErrOutside, p)
	}
	if errors.Is(err, unix.ENOTDIR) {
		return fmt.Errorf("%w: %s is not a folder", ErrExists, p)
	}
	return fmt.Errorf("trash: %s: %w", p, err)
}

// checkThenRenameat renames unless something is at to.
func checkThenRenameat(fromDir int, from string, toDir int, to string) error {
	var st unix.Stat_t
	if unix.Fstatat(toDir, to, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		return unix.EEXIST
	}
	return unix.Renameat(fromDir, from, toDir, to)
}
