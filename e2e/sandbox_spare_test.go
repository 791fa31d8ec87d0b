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

// The helper keeps one confined trampoline ready for the next command;
// it never outlives the helper, however the helper ends.
func TestSandboxSpareEndsWithTheHelper(t *testing.T) {
	for _, how := range []string{"eof", "sigkill"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			s := startConfined(t, "ndjson")
			first := s.c.exec(map[string]any{"command": "echo $$"})
			waitFor(t, "a spare for the next command", func() bool { return len(sparesOf(s.root)) == 1 })
			spare := sparesOf(s.root)[0]
			second := s.c.exec(map[string]any{"command": "echo $$"})
			if lastLine(second.Output) != strconv.Itoa(spare) {
				t.Fatalf("the second command ran as %q, not on the spare %d (the first as %q)", lastLine(second.Output), spare, lastLine(first.Output))
			}
			waitFor(t, "the next spare", func() bool { return len(sparesOf(s.root)) == 1 })
			switch how {
			case "eof":
				s.c.stdin.Close()
			case "sigkill":
				must(t, s.c.cmd.Process.Signal(syscall.SIGKILL))
			}
			within(t, s.c.exited, "the helper's exit")
			waitFor(t, "the spare's end", func() bool { return len(sparesOf(s.root)) == 0 })
		})
	}
}
