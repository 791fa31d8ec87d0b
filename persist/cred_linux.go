package persist

import (
	"bytes"
	"net"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// peerUID is the user of the process at the other end of c, as the
// kernel recorded it when that process connected.
func peerUID(c *net.UnixConn) (int, error) {
	cred, err := peerCred(c)
	if err != nil {
		return 0, err
	}
	return int(cred.Uid), nil
}

// peerCred is what SO_PEERCRED recorded of the process that connected.
func peerCred(c *net.UnixConn) (*unix.Ucred, error) {
	var cred *unix.Ucred
	err := control(c, func(fd int) error {
		var err error
		cred, err = unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
		return err
	})
	return cred, err
}

// fromOwnTree reports whether the process at the other end of c is one
// of this helper's own descendants: a command of one of its sessions,
// which must never become a host of the helper that runs it (it would be
// served outside its sandbox), whether it connected itself or the
// sandbox connected for it. The helper is the subreaper of its trees,
// so a command that let go of its parent is still found under it.
func fromOwnTree(c *net.UnixConn) (bool, error) {
	cred, err := peerCred(c)
	if err != nil || cred.Pid <= 0 {
		return false, err
	}
	pid := int(cred.Pid)
	// The helper itself is the peer where its sandbox made the connection
	// on a confined command's behalf.
	me := os.Getpid()
	return pid == me || descends(pid, me), nil
}

// descends reports whether ancestor is among pid's ancestors, walking
// /proc up to init. A process that is gone ends the walk.
func descends(pid, ancestor int) bool {
	for range 4096 { // deeper than any real tree; a loop cannot hang it
		ppid := parentOf(pid)
		switch {
		case ppid == ancestor:
			return true
		case ppid <= 1:
			return false
		}
		pid = ppid
	}
	return false
}

// parentOf is pid's parent from /proc/pid/stat, or 0.
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces and parentheses:
	// the fields after it follow its last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}
