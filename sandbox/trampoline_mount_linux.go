package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The mount namespace's work, done by the trampoline before it drops its
// capabilities: the namespace is its own and dies with the command, so
// nothing here is seen outside.

// mountNamespace identifies the caller's mount namespace (0 if unknown):
// the trampoline mounts only in one that is not the helper's.
func mountNamespace() uint64 {
	var st unix.Stat_t
	if unix.Stat("/proc/self/ns/mnt", &st) != nil {
		return 0
	}
	return st.Ino
}

// makePrivate keeps the mounts below from reaching the helper's namespace.
func makePrivate() error {
	if err := unix.Mount("none", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mount tree private: %w", err)
	}
	return nil
}

// lockedFlags are the mount flags a remount in a user namespace must keep
// (the kernel refuses to drop them), read from the mount at path.
func lockedFlags(path string) (uintptr, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, err
	}
	pairs := []struct{ st, ms int64 }{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV},
		{unix.ST_NOEXEC, unix.MS_NOEXEC}, {unix.ST_NOATIME, unix.MS_NOATIME},
		{unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	}
	var flags uintptr
	for _, p := range pairs {
		if st.Flags&p.st != 0 {
			flags |= uintptr(p.ms)
		}
	}
	return flags, nil
}

// bindReadOnly mounts src over dst, read-only.
func bindReadOnly(src, dst string) error {
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("binding %s: %w", dst, err)
	}
	flags, err := lockedFlags(dst)
	if err != nil {
		return fmt.Errorf("reading the mount at %s: %w", dst, err)
	}
	if err := unix.Mount("none", dst, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|flags, ""); err != nil {
		return fmt.Errorf("making %s read-only: %w", dst, err)
	}
	return nil
}

// pin binds dir over itself: a mount point cannot be renamed or removed,
// so a protected path below it cannot be moved aside and replaced.
func pin(dir string) error {
	if err := unix.Mount(dir, dir, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("pinning %s: %w", dir, err)
	}
	return nil
}

// emptyOut makes a secret place empty: an empty read-only tmpfs over a
// folder, the null device over anything else (a file, a socket).
func emptyOut(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return nil // nothing there to hide
	}
	if !fi.IsDir() {
		return bindReadOnly("/dev/null", path)
	}
	const flags = unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC
	if err := unix.Mount("tmpfs", path, "tmpfs", flags, "size=4k,nr_inodes=1,mode=0700"); err != nil {
		return fmt.Errorf("hiding %s: %w", path, err)
	}
	return nil
}

// mountPlan hides the secret places and makes the protected paths inside
// the writable places read-only. writable are the real paths that
// Landlock will let the command write.
func mountPlan(p Plan, writable []string) error {
	if err := makePrivate(); err != nil {
		return err
	}
	if err := mountOwn(ownMounts(p, writable)); err != nil {
		return err
	}
	pinned := map[string]bool{}
	for _, path := range p.Protect {
		if err := makeNeutral(path, p.Neutral, writable); err != nil {
			return err
		}
		if err := protect(path, writable, pinned); err != nil {
			return err
		}
	}
	for _, path := range p.Hide {
		if err := hideReal(path, p, writable, pinned); err != nil {
			return err
		}
	}
	return nil
}

// protect binds path read-only, and pins the folders above it. A path
// outside the writable places is already read-only; a missing one is
// skipped, except a folder (named with a final slash), which is made so
// that nothing can be planted in it.
func protect(path string, writable []string, pinned map[string]bool) error {
	if strings.HasSuffix(path, "/") && within(filepath.Dir(filepath.Clean(path)), writable) != "" {
		// Made where the command could make it, so that it cannot; a
		// parent that is no folder (a .git file) holds none.
		err := os.Mkdir(path, 0o755)
		if err != nil && !errors.Is(err, fs.ErrExist) && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, unix.ENOTDIR) {
			return fmt.Errorf("making %s: %w", path, err)
		}
	}
	real, err := realPath(path)
	if err != nil || within(real, writable) == "" {
		return nil
	}
	if err := pinAbove(real, writable, pinned); err != nil {
		return err
	}
	return bindReadOnly(real, real)
}

// makeNeutral makes a file of neutral that is missing in a writable
// place, in a folder that is there (a root without .git gets none), with
// the content that changes nothing for git, so that protect binds it
// read-only and nothing can be planted there. It appears whole: a git
// running meanwhile (a holder makes neutral files beside a command that
// has just run git init) reads the content or nothing, never an empty
// commondir, which it cannot read. The file stays when the command ends:
// git replaces it as it would create it.
func makeNeutral(path string, neutral, writable []string) error {
	if !slices.Contains(neutral, path) {
		return nil
	}
	dirfd, ok := openWritableDir(filepath.Dir(path), writable)
	if !ok {
		return nil
	}
	defer unix.Close(dirfd)
	err := linkWhole(dirfd, filepath.Base(path), neutralContent(path))
	switch {
	case errors.Is(err, fs.ErrExist), errors.Is(err, unix.ELOOP):
		return nil // there already (a link too: protect binds what it reaches)
	case errors.Is(err, fs.ErrPermission), errors.Is(err, unix.EROFS), errors.Is(err, fs.ErrNotExist):
		return nil // a folder the command cannot write either, or gone
	case err != nil:
		return fmt.Errorf("making %s: %w", path, err)
	}
	return nil
}

// linkWhole makes name in the folder dirfd with content, whole: written
// to a file of no name first (O_TMPFILE), then linked there, which fails
// if name is there. Where the file system has no O_TMPFILE, a file of a
// name of its own is written, linked, and removed.
func linkWhole(dirfd int, name, content string) error {
	fd, err := unix.Openat(dirfd, ".", unix.O_WRONLY|unix.O_TMPFILE|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return linkWholeByName(dirfd, name, content)
	}
	defer unix.Close(fd)
	if err := writeAll(fd, content); err != nil {
		return err
	}
	err = unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), dirfd, name, unix.AT_SYMLINK_FOLLOW)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	return linkWholeByName(dirfd, name, content) // no /proc to link through
}

func linkWholeByName(dirfd int, name, content string) error {
	tmp := "." + name + ".termhelper-" + strconv.Itoa(os.Getpid())
	fd, err := unix.Openat(dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return err
	}
	defer unix.Unlinkat(dirfd, tmp, 0)
	err = writeAll(fd, content)
	if cerr := unix.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return unix.Linkat(dirfd, tmp, dirfd, name, 0)
}

func writeAll(fd int, content string) error {
	for b := []byte(content); len(b) > 0; {
		n, err := unix.Write(fd, b)
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// openWritableDir opens the folder dir if it is there and lies in a
// writable place. The place is checked on the folder opened, not on its
// name: another confined command may swap a folder on the way for a link
// to one outside, between a check by name and the making.
func openWritableDir(dir string, writable []string) (int, bool) {
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, false // missing, or no folder (a .git file)
	}
	real, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil || within(real, writable) == "" {
		unix.Close(fd)
		return -1, false
	}
	return fd, true
}

// pinAbove pins every folder between path and the outermost writable
// place that holds it (a writable place inside another, such as a
// worktree's git folder inside the main one, is pinned too): a folder
// holding a mount point can still be renamed, and the protected or
// hidden path moved aside with it for a fresh copy.
func pinAbove(path string, writable []string, pinned map[string]bool) error {
	place := outermost(path, writable)
	if place == "" {
		return nil
	}
	for dir := filepath.Dir(path); dir != place && isUnder(dir, place); dir = filepath.Dir(dir) {
		if !pinned[dir] {
			if err := pin(dir); err != nil {
				return err
			}
			pinned[dir] = true
		}
	}
	return nil
}

// outermost is the writable place holding path that no other holds, or "".
func outermost(path string, writable []string) string {
	place := within(path, writable)
	for place != "" {
		outer := within(filepath.Dir(place), writable)
		if outer == "" || place == "/" {
			return place
		}
		place = outer
	}
	return ""
}

// hideReal hides the real place behind path, pinning the folders above
// it inside a writable place. A secret place that holds the root or the
// temporary folder is refused: hiding it would hide the command's own
// work.
func hideReal(path string, p Plan, writable []string, pinned map[string]bool) error {
	real, err := realPath(path)
	if err != nil {
		return nil
	}
	for _, own := range []string{p.Root, p.TempDir} {
		if own != "" && (own == real || isUnder(own, real)) {
			return fmt.Errorf("the secret place %s holds %s", path, own)
		}
	}
	if err := pinAbove(real, writable, pinned); err != nil {
		return err
	}
	return emptyOut(real)
}
