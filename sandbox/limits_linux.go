package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// What a confined command may consume: its tree's processes and its
// temporary folder's size. The helper caps the tree in a cgroup where it
// can (the platform's pids.max); the trampoline or the exec stub adds an
// RLIMIT_NPROC, which bounds one tree only inside a user namespace of its
// own (the kernel counts a user's processes per namespace) and binds no
// one as root, and it mounts the temporary folder as a tmpfs of the
// plan's size in its mount namespace.

// JoinCgroup has the trampoline join the v1 pids cgroup at dir before it
// confines itself: a tree's process cap where cgroup v2 has no pids
// controller to give it. Call it before Apply.
func (l *Launch) JoinCgroup(dir string) {
	if l != nil && !l.sys.plain {
		l.sys.w.PidsCgroup = dir
	}
}

// CountsProcesses reports whether the trampoline's RLIMIT_NPROC bounds a
// confined command's own tree here: in a user namespace of its own, for
// anyone but root (whose processes the kernel does not count).
func CountsProcesses() bool {
	return os.Geteuid() != 0 && launchNamespaces(measured())&unix.CLONE_NEWUSER != 0
}

// ownProcessCap is the RLIMIT_NPROC a command of p sets in a user
// namespace of its own; 0: none, where it would bind no one (root).
func ownProcessCap(p Plan) int {
	if p.MaxProcs <= 0 || os.Geteuid() == 0 {
		return 0
	}
	return p.MaxProcs
}

// CapsTemp reports whether a confined command's temporary folder can be
// capped here: it takes a mount namespace.
func CapsTemp() bool { return launchNamespaces(measured()) != 0 }

// limitSelf joins the plan's pids cgroup and sets the process rlimit,
// where it bounds the tree.
func limitSelf(w wire) error {
	if w.PidsCgroup != "" {
		procs := filepath.Join(w.PidsCgroup, "cgroup.procs")
		if err := os.WriteFile(procs, []byte(strconv.Itoa(os.Getpid())), 0); err != nil {
			return fmt.Errorf("joining the cgroup of the process limit: %w", err)
		}
	}
	n := uint64(ownProcessCap(w.Plan))
	if n == 0 || !w.Namespaces {
		return nil
	}
	if err := unix.Setrlimit(unix.RLIMIT_NPROC, &unix.Rlimit{Cur: n, Max: n}); err != nil {
		return fmt.Errorf("setting the process limit: %w", err)
	}
	return nil
}

// DiskFull reports whether the file system holding dir has less than a
// few MiB left: a write that found no space there failed for the disk,
// not for a cap.
func DiskFull(dir string) bool {
	if dir == "" {
		dir = "/"
	}
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return false
	}
	return st.Bavail*uint64(st.Bsize) < 16<<20
}
