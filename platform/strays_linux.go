package platform

import (
	"bytes"
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// A process that cleared its environment and left its command's session
// has no tag, group or session left to find it by; as the helper is a
// subreaper, it is still the helper's child. Such an unclaimed orphan
// belongs to some command: to the only one alive, when there is one, and
// to nobody that may outlive the helper. Where commands run in cgroups
// their cgroup holds them anyway; this is what holds them elsewhere.

// trees are the commands whose process tree may still be alive.
var trees = struct {
	sync.Mutex
	pids map[int]bool
}{pids: map[int]bool{}}

// detached are children the helper started and leaves running on
// purpose (the login shell's supervisor): never strays.
var detached = struct {
	sync.Mutex
	pids map[int]bool
}{pids: map[int]bool{}}

func addTree(pid int) {
	trees.Lock()
	trees.pids[pid] = true
	trees.Unlock()
}

func forgetTree(pid int) {
	trees.Lock()
	delete(trees.pids, pid)
	trees.Unlock()
}

// soleTree reports whether pid's is the only command tree that may be
// alive.
func soleTree(pid int) bool {
	trees.Lock()
	defer trees.Unlock()
	return len(trees.pids) == 1 && trees.pids[pid]
}

func markDetached(pid int) {
	detached.Lock()
	detached.pids[pid] = true
	detached.Unlock()
}

// unclaimed reports whether pid, a child of the helper, is an orphan that
// kept nothing of its command: not started by the helper, not left
// running on purpose, and without any tag. While a command is being
// handed to a spare, no child is: the command is the helper's child
// before the helper knows its pid, and untagged until it executes.
func unclaimed(pid int) bool {
	children.Lock()
	started := children.pids[pid] || children.handoffs > 0
	children.Unlock()
	detached.Lock()
	kept := detached.pids[pid]
	detached.Unlock()
	if started || kept {
		return false
	}
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	return err == nil && !bytes.HasPrefix(env, []byte(TagVar+"=")) && !bytes.Contains(env, []byte("\x00"+TagVar+"="))
}

// EndStrays ends every unclaimed orphan of the helper and what it
// started, once the commands are ended: the helper is going, and they
// belong to none of its commands that could still be running. It returns
// how many processes it ended.
func EndStrays() int {
	if !subreaper {
		return 0
	}
	self := os.Getpid()
	n := 0
	for range 60 {
		var strays []int
		for _, pid := range childrenOf(self) {
			if st, ok := readStat(pid); ok && st.state != 'Z' && unclaimed(pid) {
				strays = append(strays, pid)
			}
		}
		if len(strays) == 0 {
			break
		}
		for _, pid := range strays {
			n += len(treeMembers(pid, ""))
			KillTree(pid, "", SIGKILL, 0)
			unix.Kill(pid, unix.SIGKILL)
		}
	}
	return n
}
