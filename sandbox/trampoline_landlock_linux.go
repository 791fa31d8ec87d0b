package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Landlock through go-landlock's system calls: a ruleset handling every
// access right this kernel's ABI knows (so everything is denied that a
// rule does not grant), the scopes from ABI 6, and one rule per path.
// Only rights the ABI has are asked for, so the kernel takes the ruleset
// as it is: there is nothing to downgrade.

const (
	readRights = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir |
		ll.AccessFSResolveUnix
	// writeRights never include making a device.
	writeRights = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
		ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo |
		ll.AccessFSMakeSym | ll.AccessFSRefer | ll.AccessFSTruncate
	deviceRights = ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate |
		ll.AccessFSIoctlDev | ll.AccessFSReadDir
	fileRights = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile |
		ll.AccessFSTruncate | ll.AccessFSIoctlDev | ll.AccessFSResolveUnix
)

// handledFS is every file access right the kernel's ABI knows: all are
// denied unless a rule grants them.
func handledFS(abi int) uint64 {
	h := uint64(1<<13 - 1)
	for _, r := range []struct {
		abi   int
		right uint64
	}{{2, ll.AccessFSRefer}, {3, ll.AccessFSTruncate}, {5, ll.AccessFSIoctlDev}, {9, ll.AccessFSResolveUnix}} {
		if abi >= r.abi {
			h |= r.right
		}
	}
	return h
}

// scopes confine signals and abstract unix sockets to the command's own
// processes, from ABI 6.
func scopes(abi int) uint64 {
	if abi >= 6 {
		return ll.ScopeSignal | ll.ScopeAbstractUnixSocket
	}
	return 0
}

// devices are what a terminal program opens: the terminal itself, new
// terminals (script, expect), the null and random devices, and shared
// memory (POSIX semaphores, Python's multiprocessing).
var devices = []string{
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
	"/dev/tty", "/dev/ptmx", "/dev/pts",
}

// ruleset collects the rules before the restriction. Each rule holds the
// very file that was opened and checked (its descriptor, open until the
// restriction), so that nothing swapped in between (a link, in a folder
// another user may write) is granted instead.
type ruleset struct {
	handled uint64
	rules   []ll.PathBeneathAttr
}

// allow grants access to everything under path (or to the file itself).
func (rs *ruleset) allow(path string, access uint64) error { return rs.add(path, access, 0) }

// allowEntry is allow for an entry found by listing a folder: a link
// there is not followed (its target is judged by its own path).
func (rs *ruleset) allowEntry(path string, access uint64) error {
	return rs.add(path, access, unix.O_NOFOLLOW)
}

func (rs *ruleset) add(path string, access uint64, flags int) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC|flags, 0)
	if err != nil {
		return err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT == unix.S_IFLNK {
		unix.Close(fd)
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= fileRights
	}
	if access &= rs.handled; access == 0 {
		unix.Close(fd)
		return nil
	}
	rs.rules = append(rs.rules, ll.PathBeneathAttr{AllowedAccess: access, ParentFd: fd})
	return nil
}

func (rs *ruleset) close() {
	for _, r := range rs.rules {
		unix.Close(r.ParentFd)
	}
}

// restrict enforces the rules, and no_new_privs, on the calling thread
// alone: the trampoline is locked to the thread that executes the
// command, whose credentials are the ones execve keeps (the process's
// other threads end with it). Enforcing them on every thread, as
// go-landlock does, costs a signal and a wait for each and confines
// nothing more.
func (rs *ruleset) restrict(abi int) error {
	attr := ll.RulesetAttr{HandledAccessFS: rs.handled, Scoped: scopes(abi)}
	fd, err := ll.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return fmt.Errorf("creating the Landlock ruleset: %w", err)
	}
	defer unix.Close(fd)
	for i := range rs.rules {
		if err := ll.LandlockAddPathBeneathRule(fd, &rs.rules[i], 0); err != nil {
			return fmt.Errorf("adding a Landlock rule: %w", err)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting no_new_privs: %w", err)
	}
	return ll.LandlockRestrictSelf(fd, 0)
}

// readAround grants reads on everything but the secret places: Landlock
// cannot take a folder out of a granted one, so each folder on the way
// down to a secret place is granted a listing only, and its other entries
// are granted whole. A symbolic link needs no rule: its target is reached
// and judged by its own path. A secret socket is left out before ABI 9,
// which cannot stop a connection to it (nor is reading it anything): it
// would only cost a walk of /tmp.
func (rs *ruleset) readAround(secret []string, abi int) error {
	hidden, onPath := map[string]bool{}, map[string]bool{}
	for _, p := range secret {
		real, err := realPath(p)
		if err != nil {
			continue // nothing there: nothing to read
		}
		if fi, err := os.Stat(real); err == nil && fi.Mode()&fs.ModeSocket != 0 && abi < 9 {
			continue
		}
		hidden[real] = true
		for d := filepath.Dir(real); !onPath[d]; d = filepath.Dir(d) {
			onPath[d] = true
		}
	}
	if hidden["/"] {
		return nil
	}
	if len(hidden) == 0 {
		return rs.allow("/", readRights)
	}
	return rs.walkAround("/", hidden, onPath)
}

func (rs *ruleset) walkAround(dir string, hidden, onPath map[string]bool) error {
	if err := rs.allowEntry(dir, ll.AccessFSReadDir); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // unreadable to the user anyway
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case hidden[p], e.Type()&fs.ModeSymlink != 0:
		case onPath[p]:
			if err := rs.walkAround(p, hidden, onPath); err != nil {
				return err
			}
		default:
			rs.allowEntry(p, readRights) // an entry gone since the listing is no loss
		}
	}
	return nil
}

// restrictFiles restricts the process as p says: reads everywhere (around
// the secret places, where no mount namespace hid them), writes to the
// writable places and the terminal's devices. It sets no_new_privs.
func restrictFiles(p Plan, writable []string, abi int, namespaces bool) error {
	rs := &ruleset{handled: handledFS(abi)}
	defer rs.close()
	rules := placeRules(p, writable)
	if namespaces {
		rules = append([]fileRule{readAllRule}, rules...)
	} else if err := rs.readAround(p.Hide, abi); err != nil {
		return err
	}
	for _, r := range rules {
		if err := rs.allow(r.path, r.access); err != nil && r.required {
			return err
		}
	}
	if err := rs.restrict(abi); err != nil {
		return fmt.Errorf("restricting with Landlock: %w", err)
	}
	return nil
}
