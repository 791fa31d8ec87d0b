package sandbox

import (
	"fmt"
	"os"
	"strconv"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// What each confined command gets of its own, in its own mount
// namespace, and the Landlock rules it is held to: described once, here,
// and carried out by a trampoline (mountOwn, restrictFiles) or handed to
// the exec stub as its steps (held_linux.go).

// ownMount is a mount of the command's own; what names it in an error.
type ownMount struct {
	src, dst, fstype string
	flags            uintptr
	data, what       string
}

// ownMounts are the command's own mounts, where the places are: its
// /dev/shm, its terminals, and its temporary folder where the plan caps
// it. writable holds the temporary folder's real path first
// (writablePlaces).
func ownMounts(p Plan, writable []string) []ownMount {
	var ms []ownMount
	if isDir("/dev/shm") {
		// The machine's /dev/shm holds the POSIX shared memory of every
		// process of the user (a browser's, a database's), which a write
		// grant there would open to the command.
		ms = append(ms, ownMount{"tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID | unix.MS_NODEV, "mode=1777", "a /dev/shm of the command's own"})
	}
	ms = append(ms, ownTerminals()...)
	if p.TempBytes > 0 && len(writable) > 0 {
		// Its own, empty at its start, gone with it, and full at the
		// size, where a write fails with ENOSPC.
		ms = append(ms, ownMount{"tmpfs", writable[0], "tmpfs", unix.MS_NOSUID | unix.MS_NODEV,
			"mode=0700,size=" + strconv.FormatInt(p.TempBytes, 10), "capping the temporary folder"})
	}
	return ms
}

// ownTerminals give the command a terminal folder of its own: a new
// devpts instance over /dev/pts, and its ptmx over /dev/ptmx. The
// terminals of the other sessions (and of the user's own shells) are no
// longer there to open, so a command cannot type into them; the
// terminals it makes (script, expect, a test's pty) are its own. Its own
// terminal stays its standard files and /dev/tty; its name (tty, ttyname)
// no longer opens.
func ownTerminals() []ownMount {
	if !isDir("/dev/pts") {
		return nil
	}
	ms := []ownMount{{"devpts", "/dev/pts", "devpts", unix.MS_NOSUID | unix.MS_NOEXEC,
		"newinstance,ptmxmode=0666,mode=0620", "a terminal folder of the command's own"}}
	if _, err := os.Stat("/dev/ptmx"); err == nil {
		ms = append(ms, ownMount{"/dev/pts/ptmx", "/dev/ptmx", "", unix.MS_BIND, "", "a ptmx of the command's own"})
	}
	return ms
}

// mountOwn makes ms.
func mountOwn(ms []ownMount) error {
	for _, m := range ms {
		if err := unix.Mount(m.src, m.dst, m.fstype, m.flags, m.data); err != nil {
			return fmt.Errorf("%s: %w", m.what, err)
		}
	}
	return nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// fileRule grants access beneath path; a missing path fails the start
// only where it is required.
type fileRule struct {
	path     string
	access   uint64
	required bool
}

// placeRules are the writes a command of p is granted, after its reads:
// the writable places (writablePlaces: the temporary folder, then the
// root in workspace-write, must be there; another gone since is no
// loss), the terminal's devices and its /dev/shm.
func placeRules(p Plan, writable []string) []fileRule {
	required := 1
	if p.Mode == WorkspaceWrite {
		required = 2
	}
	var rs []fileRule
	for i, w := range writable {
		rs = append(rs, fileRule{w, readRights | writeRights | ll.AccessFSIoctlDev, i < required})
	}
	for _, d := range devices {
		rs = append(rs, fileRule{d, deviceRights, false})
	}
	return append(rs, fileRule{"/dev/shm", readRights | writeRights, false})
}

// readAllRule is the read a command is granted where namespaces hid the
// secret places: everything.
var readAllRule = fileRule{"/", readRights, true}
