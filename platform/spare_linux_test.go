package platform

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A command a spare starts is the helper's child before the helper knows
// its pid; ended by then, it is not reaped as an orphan, and its exit
// status is the helper's to read. It runs in a process of its own, which
// becomes a subreaper.
func TestTheReaperLeavesACommandBeingHandedOver(t *testing.T) {
	if !inSubreaper(t) {
		return
	}
	beginHandoff()
	cmd := exec.Command("/bin/sh", "-c", "exit 7")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if st, ok := readStat(pid); ok && st.state == 'Z' {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command did not end")
		}
	}
	time.Sleep(100 * time.Millisecond) // the reaper's scan at its SIGCHLD
	endHandoff(pid)
	if err := cmd.Wait(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 7 {
		t.Fatalf("the exit status was lost: %v", err)
	}
	unregister(pid)
}

// A command a spare starts is, until it executes, an untagged child of
// the helper that the helper has not registered yet: a command tree ended
// meanwhile, the only one alive, does not take it for a stray of its own.
// It runs in a process of its own, which becomes a subreaper.
func TestAnEndingTreeLeavesACommandBeingHandedOver(t *testing.T) {
	if !inSubreaper(t) {
		return
	}
	ending := exec.Command("sleep", "60")
	ending.Env = []string{TagVar + "=ending"}
	require.NoError(t, startRegistered(ending))
	addTree(ending.Process.Pid)
	beginHandoff()
	handed := exec.Command("sleep", "60")
	handed.Env = []string{}
	require.NoError(t, handed.Start())
	KillTree(ending.Process.Pid, "ending", SIGKILL, 0)
	endHandoff(handed.Process.Pid)
	ending.Wait()
	forgetTree(ending.Process.Pid)
	handed.Process.Signal(syscall.SIGTERM)
	handed.Wait()
	ws := handed.ProcessState.Sys().(syscall.WaitStatus)
	assert.Equal(t, syscall.SIGTERM, ws.Signal(), "the handed command was ended with the tree")
	unregister(handed.Process.Pid)
	unregister(ending.Process.Pid)
}
