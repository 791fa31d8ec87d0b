//go:build unix && !linux

package platform

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

func sysProcAttr(withTTY bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Setctty: withTTY}
}

func startRegistered(cmd *exec.Cmd) error { return cmd.Start() }

func unregister(int) {}

// Run runs cmd to its end.
func Run(cmd *exec.Cmd) error { return cmd.Run() }

// Init does nothing here: there is no subreaper outside Linux.
func Init() {}

// treeMembers can only see the process group here: a member's pid list is
// not needed, the group is signalled as a whole by signalTree.
func treeMembers(pid int, _ string) []int {
	if unix.Kill(-pid, 0) == nil {
		return []int{-pid}
	}
	return nil
}

// mayHaveStrays cannot be told cheaply here.
func mayHaveStrays() bool { return true }

// StartTime is not known here.
func StartTime(int) (uint64, bool) { return 0, false }

// KillLeftovers ends each listed process group; without a process table
// the tags cannot be searched here.
func KillLeftovers(_ string, pids map[int]uint64) int {
	n := 0
	for pid := range pids {
		if unix.Kill(-pid, unix.SIGKILL) == nil {
			n++
		}
	}
	return n
}
