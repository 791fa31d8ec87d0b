package engine

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// ownerFile, in a helper's temporary folder, names the helper's pid: the
// folder of a helper that was killed before it could remove it is found
// and removed by a later helper (PruneTempDirs).
const ownerFile = ".termhelper-pid"

// owner is what the owner file holds: the helper's pid and its pid
// namespace (Linux), since a pid means nothing in another namespace.
func owner(pid int) string {
	ns, _ := os.Readlink("/proc/self/ns/pid")
	return strconv.Itoa(pid) + " " + ns
}

func claimTempDir(dir string) error {
	return os.WriteFile(filepath.Join(dir, ownerFile), []byte(owner(os.Getpid())), 0o600)
}

// PruneTempDirs removes the temporary folders that helpers now gone left
// in the system's temporary folder, and says how many. A folder is
// removed only when its helper's pid is surely not running: one whose
// pid now names another process stays. Not on Windows, where the signal
// that tells is not there.
func PruneTempDirs() int {
	if runtime.GOOS == "windows" {
		return 0
	}
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "termhelper-*"))
	n := 0
	for _, d := range dirs {
		if pid := ownerOf(d); pid > 0 && pid != os.Getpid() && !running(pid) && os.RemoveAll(d) == nil {
			n++
		}
	}
	return n
}

// ownerOf is the pid a real folder's owner file names, in this helper's
// pid namespace, or 0.
func ownerOf(dir string) int {
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return 0
	}
	f := filepath.Join(dir, ownerFile)
	if fi, err := os.Lstat(f); err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	b, err := os.ReadFile(f)
	if err != nil {
		return 0
	}
	id, _, _ := strings.Cut(string(b), " ")
	pid, err := strconv.Atoi(id)
	if err != nil || string(b) != owner(pid) {
		return 0
	}
	return pid
}

// running reports whether pid names a process: one of another user's
// counts too.
func running(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
