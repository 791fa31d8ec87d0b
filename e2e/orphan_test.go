//go:build linux

package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/termhelper/termhelper/platform"
)

// hider leaves a fork loop behind that kept nothing of its command: a
// cleared environment (no tag), a session of its own, a parent that is
// gone. The command waits for the loop to be in its own session, since
// the terminal's hangup at the command's end would otherwise end it first;
// every process of the loop has m in its command line.
func hider(t *testing.T, m string) string {
	t.Cleanup(func() { endLoop(m) })
	ready := filepath.Join(t.TempDir(), "loop.pid")
	loop := fmt.Sprintf(`echo \$\$ > %s; while :; do sleep %s & sleep 0.01; done`, ready, m)
	return fmt.Sprintf(`env -i /bin/sh -c '(setsid /bin/sh -c "%s" &)'; while [ ! -s %s ]; do sleep 0.01; done`, loop, ready)
}

// endLoop ends whatever a failed test left of a loop, which may fork
// while it is being killed.
func endLoop(m string) {
	for range 100 {
		pids := pidsWith(m)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// hidden waits until the loop of hider runs.
func hidden(t *testing.T, m string) {
	t.Helper()
	waitFor(t, "the fork loop to run", func() bool { return len(pidsWith(m)) >= 2 })
}

// Each way a command or the helper ends leaves nothing of a loop that
// cleared its environment and left its session.
func TestOrphanLoopEndsWithTheCommand(t *testing.T) {
	t.Parallel()
	c := start(t, "ndjson", t.TempDir(), nil)
	m := marker()
	r := c.exec(map[string]any{"command": hider(t, m)})
	require.NotNil(t, r.ExitCode, "%+v", r)
	noneLeft(t, m)
}

func TestOrphanLoopEndsAtTheTimeout(t *testing.T) {
	t.Parallel()
	c := start(t, "ndjson", t.TempDir(), nil)
	m := marker()
	r := c.exec(map[string]any{"command": hider(t, m) + "; sleep 600", "timeoutMs": 1500})
	require.True(t, r.TimedOut, "%+v", r)
	noneLeft(t, m)
}

func TestOrphanLoopEndsWithAKill(t *testing.T) {
	t.Parallel()
	c := start(t, "ndjson", t.TempDir(), nil)
	m := marker()
	id := startedLoop(t, c, m)
	c.run("session/kill", map[string]any{"sessionId": id})
	noneLeft(t, m)
}

func TestOrphanLoopEndsWithTheHelper(t *testing.T) {
	for _, how := range []string{"eof", "host gone", "sigterm"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			c := start(t, "ndjson", t.TempDir(), nil)
			m := marker()
			startedLoop(t, c, m)
			switch how {
			case "eof":
				c.stdin.Close()
			case "host gone":
				require.NoError(t, c.stdoutReader.Close())
			case "sigterm":
				require.NoError(t, c.cmd.Process.Signal(syscall.SIGTERM))
			}
			within(t, c.exited, "the helper's exit")
			noneLeft(t, m)
		})
	}
}

// A helper killed with SIGKILL cannot end anything; the cgroup it left
// holds the loop until the next helper for the root ends it.
func TestOrphanLoopEndsWhenTheNextHelperStarts(t *testing.T) {
	if why := platform.Containment(); why != "" {
		t.Skip(why)
	}
	t.Parallel()
	root := t.TempDir()
	c := start(t, "ndjson", root, nil)
	m := marker()
	startedLoop(t, c, m)
	require.NoError(t, c.cmd.Process.Kill())
	within(t, c.exited, "the helper's exit")
	require.NotEmpty(t, pidsWith(m), "the loop died with the helper: nothing is tested")
	next := start(t, "ndjson", root, nil)
	next.run("session/list", nil)
	noneLeft(t, m)
	require.False(t, strings.Contains(next.stderr.String(), "panic"), next.stderr.String())
}

// startedLoop starts hider in the background and returns its session
// once the loop runs.
func startedLoop(t *testing.T, c *client, m string) string {
	t.Helper()
	r := c.exec(map[string]any{"command": hider(t, m) + "; echo hiding; sleep 600", "background": true, "readyPattern": "hiding"})
	require.NotEmpty(t, r.SessionID, "%+v", r)
	hidden(t, m)
	return r.SessionID
}
