//go:build unix

package spill

import (
	"io/fs"
	"os"
	"strconv"
	"syscall"
)

// ownedByMe reports whether this process's user owns the file.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// private reports whether only the owner may enter, list or change it.
func private(fi fs.FileInfo) bool { return fi.Mode().Perm() == 0o700 }

// userTag tells users apart in folder names: the uid.
func userTag() string { return strconv.Itoa(os.Geteuid()) }
