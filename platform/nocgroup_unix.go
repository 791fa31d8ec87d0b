//go:build unix && !linux

package platform

import (
	"os/exec"
	"syscall"
)

// treeCgroup stands for a command's cgroup: there are none here.
type treeCgroup struct{}

func newTreeCgroup() *treeCgroup { return nil }

func startContained(cmd *exec.Cmd, _ *treeCgroup) (*exec.Cmd, *treeCgroup, error) {
	return cmd, nil, startRegistered(cmd)
}

func (*treeCgroup) populated() bool       { return false }
func (*treeCgroup) signal(syscall.Signal) {}
func (*treeCgroup) killAll()              {}
func (*treeCgroup) release()              {}

// No cgroup caps a tree here: the trampoline's rlimit alone.
func limitProcs(*treeCgroup, Launch, int) {}

// No cgroup caps a tree here.
func (*Process) limitDenials() []Denial { return nil }

// The helper is no subreaper here: no tree to count orphans by.
func addTree(int)      {}
func forgetTree(int)   {}
func markDetached(int) {}

// EndStrays has nothing to find here: orphans go to init.
func EndStrays() int { return 0 }

// Containment: no cgroups outside Linux.
func Containment() string {
	return "processes are held by their session, group and tag, not a cgroup (none on this system): one that clears its environment and leaves its session outlives its command"
}
