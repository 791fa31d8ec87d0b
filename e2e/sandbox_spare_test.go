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

// The helper keeps one confined trampoline ready for the next command,
// which runs in the namespaces it made; it never outlives the helper,
// however the helper ends, and neither does a command it started.
func TestSandboxSpareEndsWithTheHelper(t *testing.T) {
	for _, how := range []string{"eof", "sigkill"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			s := startConfined(t, "ndjson")
			first := s.c.exec(map[string]any{"command": "readlink /proc/$$/ns/mnt"})
			spare, ns := readySpare(t, s)
			second := s.c.exec(map[string]any{"command": "readlink /proc/$$/ns/mnt"})
			if lastLine(second.Output) != ns {
				t.Fatalf("the second command ran in %q, not in the spare %d's %q (the first in %q)", lastLine(second.Output), spare, ns, lastLine(first.Output))
			}
			// On pipes, no terminal's hangup ends it when the helper goes.
			m := marker()
			readySpare(t, s)
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
			noneLeft(t, m)
		})
	}
}
