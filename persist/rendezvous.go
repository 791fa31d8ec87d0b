//go:build unix

package persist

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/termhelper/termhelper/places"
)

// FolderEnv names a folder to use as the rendezvous in place of the
// default; it is checked as the default is.
const FolderEnv = places.RendezvousEnv

// Folder is the rendezvous folder (places.Rendezvous), made if missing,
// and checked: a folder (not a link to one) owned by this user that
// nobody else may open.
func Folder() (string, error) {
	dir := places.Rendezvous(os.Getenv)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("the rendezvous folder %s: %w", dir, err)
	}
	return dir, CheckFolder(dir)
}

// CheckFolder refuses a rendezvous folder another user could open or
// swap: a link, something other than a folder, a folder of another user,
// or one whose mode lets anyone else in.
func CheckFolder(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("the rendezvous folder: %w", err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("the rendezvous folder %s is a symbolic link: refused (remove it, or set %s)", dir, FolderEnv)
	case !fi.IsDir():
		return fmt.Errorf("the rendezvous folder %s is not a folder: refused", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("the rendezvous folder %s belongs to uid %d, not to this user (uid %d): refused", dir, st.Uid, os.Getuid())
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("the rendezvous folder %s has mode %04o: others could reach the helper; refused (chmod 700 %s)", dir, perm, dir)
	}
	return nil
}

// Supported is true: a background helper can be had here.
const Supported = true
