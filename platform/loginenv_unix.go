//go:build unix

package platform

import (
	"os"
	"os/exec"
	"syscall"
)

// startDetached starts cmd in a session of its own, with no death signal:
// the login shell's supervisor outlives the helper.
func startDetached(cmd *exec.Cmd) error {
	cmd.SysProcAttr = detachedAttr()
	return startRegistered(cmd)
}

func waitDetached(cmd *exec.Cmd) {
	cmd.Wait()
	unregister(cmd.Process.Pid)
}

// leave stops waiting for cmd: the reaper may take it, should it end
// before the helper.
func leave(cmd *exec.Cmd) {
	markDetached(cmd.Process.Pid)
	unregister(cmd.Process.Pid)
	cmd.Process.Release()
}

// detachedAttr puts a process in a session of its own, with no death
// signal: the login shell outlives its supervisor's end, if it must.
func detachedAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

// resultPipe is the supervisor's end of the pipe to the helper: file
// descriptor 3, if it is a pipe. It is kept from the login shell, whose
// rc files may start daemons that would hold it open.
func resultPipe() *os.File {
	var st syscall.Stat_t
	if syscall.Fstat(3, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return nil
	}
	syscall.CloseOnExec(3)
	return os.NewFile(3, "loginenv-result")
}

// ownedBySelf tells that path (not followed if a link: a link is refused)
// belongs to the user running the helper and has none of the mask's
// permission bits.
func ownedBySelf(path string, mask os.FileMode) bool {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSymlink != 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid() && fi.Mode().Perm()&mask == 0
}
