//go:build linux

package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// Two sessions of one helper are two sandboxes: a command in one cannot
// kill the other's process nor type into the other's terminal.
func TestSandboxSessionsCannotReachEachOther(t *testing.T) {
	s := startConfined(t, "ndjson")
	m := marker()
	b := s.c.exec(map[string]any{"command": "echo ready; exec sleep " + m, "background": true, "readyPattern": "ready"})
	if b.SessionID == "" || b.Pid == 0 {
		t.Fatalf("session B did not start: %s %q", describe(b), b.Output)
	}
	tty, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/0", b.Pid))
	if err != nil || !strings.HasPrefix(tty, "/dev/pts/") {
		t.Fatalf("session B's terminal: %q %v", tty, err)
	}
	a := s.c.exec(map[string]any{"command": fmt.Sprintf(
		"kill -9 %d; echo kill=$?; echo INTRUDER-%s > %s; echo write=$?", b.Pid, m, tty)})
	if strings.Contains(a.Output, "kill=0") {
		t.Errorf("session A killed session B's process: %q", a.Output)
	}
	if strings.Contains(a.Output, "write=0") {
		t.Errorf("session A wrote into session B's terminal: %q", a.Output)
	}
	if len(pidsWith(m)) != 1 {
		t.Errorf("session B's process is gone")
	}
	end := s.c.run("session/kill", map[string]any{"sessionId": b.SessionID})
	if strings.Contains(end.Output, "INTRUDER-"+m) {
		t.Errorf("session B's output holds what A wrote: %q", end.Output)
	}
	noneLeft(t, m)
}
