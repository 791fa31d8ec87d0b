//go:build linux

package e2e

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// sparesOf lists the spare trampolines made for root: their command line
// holds the plan, with the root, and --spare.
func sparesOf(root string) []int {
	var out []int
	for _, pid := range pidsWith(`"Root":"` + root + `"`) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if strings.Contains(string(b), "\x00--spare") {
			out = append(out, pid)
		}
	}
	return out
}

// readySpare waits for the one spare made for s's root and returns it
// with its mount namespace, which a command it starts runs in.
func readySpare(t *testing.T, s confined) (pid int, ns string) {
	t.Helper()
	waitFor(t, "a spare for the next command", func() bool {
		spares := sparesOf(s.root)
		if len(spares) != 1 {
			return false
		}
		pid = spares[0]
		ns, _ = os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/mnt")
		return ns != ""
	})
	return pid, ns
}

// heldNamespaces lists the mount namespaces the helper holds: those made
// for its next commands, and a running command's own.
func heldNamespaces(c *client) []string {
	var out []string
	for _, fd := range fdTargets(c.cmd.Process.Pid) {
		if _, l, _ := strings.Cut(fd, "="); strings.HasPrefix(l, "mnt:[") {
			out = append(out, l)
		}
	}
	return out
}

// readyAhead waits for what the helper makes ahead for the next
// confined command: held namespaces, or where it has none, a spare.
func readyAhead(t *testing.T, s confined) (held bool) {
	t.Helper()
	waitFor(t, "held namespaces or a spare for the next command", func() bool {
		held = len(heldNamespaces(s.c)) > 0
		return held || len(sparesOf(s.root)) == 1
	})
	return held
}

// The helper makes ahead what starts the next confined command quickly:
// namespaces it holds, or a trampoline (a spare) that the command runs
// in. Neither outlives the helper, however the helper ends, and neither
// does a command it started.
func TestSandboxSpareEndsWithTheHelper(t *testing.T) {
	for _, how := range []string{"eof", "sigkill"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			s := startConfined(t, "ndjson")
			first := s.c.exec(map[string]any{"command": "readlink /proc/$$/ns/mnt"})
			if !readyAhead(t, s) {
				spare, ns := readySpare(t, s)
				second := s.c.exec(map[string]any{"command": "readlink /proc/$$/ns/mnt"})
				if lastLine(second.Output) != ns {
					t.Fatalf("the second command ran in %q, not in the spare %d's %q (the first in %q)", lastLine(second.Output), spare, ns, lastLine(first.Output))
				}
			} else if second := s.c.exec(map[string]any{"command": "readlink /proc/$$/ns/mnt"}); !strings.HasPrefix(lastLine(second.Output), "mnt:[") || second.ExitCode == nil || *second.ExitCode != 0 {
				t.Fatalf("the second command, in held namespaces: %s %q", describe(second), second.Output)
			}
			// On pipes, no terminal's hangup ends it when the helper goes.
			m := marker()
			readyAhead(t, s)
			r := s.c.exec(map[string]any{"command": "echo started; exec sleep " + m, "mode": "pipes", "background": true, "readyPattern": "started"})
			if r.SessionID == "" {
				t.Fatalf("%+v", r)
			}
			waitFor(t, "the command on the spare", func() bool { return len(pidsWith(m)) == 1 })
			switch how {
			case "eof":
				s.c.stdin.Close()
			case "sigkill":
				must(t, s.c.cmd.Process.Signal(syscall.SIGKILL))
			}
			within(t, s.c.exited, "the helper's exit")
			waitFor(t, "the spares' end", func() bool { return len(sparesOf(s.root)) == 0 })
			if held := heldNamespaces(s.c); len(held) != 0 {
				t.Errorf("namespaces still held after the helper's end: %v", held)
			}
			noneLeft(t, m)
		})
	}
}
