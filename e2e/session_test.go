//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPythonREPL(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		r := c.exec(map[string]any{"command": "python3 -i -q"})
		require.Equal(t, "waiting", r.State, "%+v", r)
		require.NotNil(t, r.Prompt)
		assert.Equal(t, ">>>", strings.TrimSpace(r.Prompt.Text))
		assert.False(t, r.Prompt.Secret, "a REPL's raw mode is not a password read")
		id := r.SessionID
		r = c.run("session/write", map[string]any{"sessionId": id, "input": "print(6*7)\n", "yieldMs": 10000})
		assert.Equal(t, "waiting", r.State)
		assert.Contains(t, r.Output, "42")
		r = c.run("session/write", map[string]any{"sessionId": id, "input": "exit()\n", "yieldMs": 10000})
		if r.ExitCode == nil {
			r = c.run("session/read", map[string]any{"sessionId": id, "until": "exit", "yieldMs": 10000})
		}
		require.NotNil(t, r.ExitCode)
		assert.Equal(t, 0, *r.ExitCode)
	})
}

func TestSecretPrompt(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		r := c.exec(map[string]any{"command": `bash -c 'read -s -p "Password: " pw; echo; echo "length ${#pw}"; echo "$pw"'`})
		require.Equal(t, "waiting", r.State, "%+v", r)
		require.NotNil(t, r.Prompt)
		assert.Equal(t, "Password:", strings.TrimSpace(r.Prompt.Text))
		assert.True(t, r.Prompt.Secret)
		id := r.SessionID
		r = c.run("session/write", map[string]any{"sessionId": id, "input": "hunter22\n", "secret": true, "yieldMs": 10000})
		out := r.Output
		if r.ExitCode == nil {
			r = c.run("session/read", map[string]any{"sessionId": id, "until": "exit", "yieldMs": 10000})
			out += r.Output
		}
		require.NotNil(t, r.ExitCode)
		assert.Contains(t, out, "length 8")
		assert.NotContains(t, out, "hunter22", "a secret never comes back, even when a program prints it")
	})
}

func TestPlainPromptIsNotSecret(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		r := c.exec(map[string]any{"command": `read -p "name: " n; echo "hello $n"`})
		require.Equal(t, "waiting", r.State)
		assert.Equal(t, "name:", strings.TrimSpace(r.Prompt.Text))
		assert.False(t, r.Prompt.Secret)
		r = c.run("session/write", map[string]any{"sessionId": r.SessionID, "input": "ada\n", "yieldMs": 10000})
		require.NotNil(t, r.ExitCode, "%+v", r)
		assert.Contains(t, r.Output, "hello ada")
	})
}

func TestSilentCommandIsNeverWaiting(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		r := c.exec(map[string]any{"command": "echo working; sleep 5; echo done"})
		require.NotNil(t, r.ExitCode, "sleep is not a prompt: %+v", r)
		assert.Equal(t, "working\ndone", strings.TrimSpace(r.Output))
		// And when it is polled mid-way, it is running, not waiting.
		m := marker()
		r = c.exec(map[string]any{"command": "sleep " + m, "yieldMs": 1000})
		assert.Equal(t, "running", r.State)
		r = c.run("session/read", map[string]any{"sessionId": r.SessionID, "yieldMs": 1000})
		assert.Equal(t, "running", r.State)
		c.run("session/kill", map[string]any{"sessionId": r.SessionID})
	})
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func TestBackgroundServer(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		port := freePort(t)
		cmd := fmt.Sprintf("python3 -u -m http.server --bind 127.0.0.1 %d", port)
		r := c.exec(map[string]any{"command": cmd, "background": true, "readyPattern": "Serving HTTP"})
		require.Equal(t, "background", r.State, "%+v", r)
		id := r.SessionID
		assert.Contains(t, r.Output, "Serving HTTP")

		raw, rerr := c.call("session/list", nil)
		require.Nil(t, rerr)
		var list struct {
			Sessions []struct{ SessionID, Command, State string }
		}
		require.NoError(t, json.Unmarshal(raw, &list))
		require.Len(t, list.Sessions, 1)
		assert.Equal(t, id, list.Sessions[0].SessionID)
		assert.Equal(t, cmd, list.Sessions[0].Command)
		assert.Equal(t, "background", list.Sessions[0].State)

		conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		require.NoError(t, err)
		fmt.Fprintf(conn, "GET / HTTP/1.0\r\n\r\n")
		conn.Close()
		r = c.run("session/read", map[string]any{"sessionId": id, "yieldMs": 10000})
		assert.Contains(t, r.Output, "GET /")

		r = c.run("session/kill", map[string]any{"sessionId": id})
		require.NotNil(t, r.ExitCode)
		assert.Contains(t, r.Summary, "killed (SIGTERM)")
		c.note("session/exited")
		_, err = net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		assert.Error(t, err, "the server is gone")
	})
}

func TestYieldZeroAnswersAtOnce(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		m := marker()
		for _, bg := range []bool{true, false} {
			r := c.exec(map[string]any{"command": "sleep " + m, "background": bg, "yieldMs": 0})
			require.NotEmpty(t, r.SessionID, "background=%v: %+v", bg, r)
			c.run("session/kill", map[string]any{"sessionId": r.SessionID})
		}
		noneLeft(t, m)
	})
}

func TestBackgroundThatDiesEarlyAnswersFinished(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		r := c.exec(map[string]any{"command": "echo boom; exit 4", "background": true})
		require.NotNil(t, r.ExitCode)
		assert.Equal(t, 4, *r.ExitCode)
		assert.Equal(t, "boom", strings.TrimSpace(r.Output))
	})
}

func TestExitedIsNotifiedWithoutPolling(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		command, open := gated(t, "exit 7")
		r := c.exec(map[string]any{"command": command, "background": true, "yieldMs": 100})
		require.Equal(t, "background", r.State)
		open()
		n := c.note("session/exited")
		var ex struct {
			SessionID string
			ExitCode  int
			Summary   string
		}
		require.NoError(t, json.Unmarshal(n.Params, &ex))
		assert.Equal(t, r.SessionID, ex.SessionID)
		assert.Equal(t, 7, ex.ExitCode)
		assert.True(t, strings.HasPrefix(ex.Summary, "exit 7 · "), ex.Summary)
		// Still readable after its end, and a late kill signals nothing.
		r2 := c.run("session/read", map[string]any{"sessionId": r.SessionID})
		require.NotNil(t, r2.ExitCode)
		assert.Equal(t, 7, *r2.ExitCode)
		r2 = c.run("session/kill", map[string]any{"sessionId": r.SessionID})
		require.NotNil(t, r2.ExitCode)
		assert.Equal(t, 7, *r2.ExitCode)
		assert.NotContains(t, r2.Summary, "killed")
	})
}

func TestWaitingIsNotified(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		command, open := gated(t, "read -p 'continue? ' x")
		r := c.exec(map[string]any{"command": command, "background": true, "yieldMs": 100})
		require.Equal(t, "background", r.State)
		open()
		n := c.note("session/waiting")
		assert.Contains(t, string(n.Params), "continue?")
		c.run("session/kill", map[string]any{"sessionId": r.SessionID, "signal": "SIGKILL"})
	})
}

func TestOutputStreamNotifications(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		_, rerr := c.call("initialize", map[string]any{"capabilities": map[string]bool{"outputStream": true}})
		require.Nil(t, rerr)
		two, open := gated(t, "echo two")
		r := c.exec(map[string]any{"command": "printf '\\033[1mbold\\033[0m\\n'; " + two, "background": true, "yieldMs": 100})
		require.Equal(t, "background", r.State)
		open()
		var got strings.Builder
		for !strings.Contains(got.String(), "two") {
			n := c.note("session/output")
			var o struct{ SessionID, Stream, Data string }
			require.NoError(t, json.Unmarshal(n.Params, &o))
			assert.Equal(t, "output", o.Stream)
			got.WriteString(o.Data)
		}
		assert.Contains(t, got.String(), "\x1b[1mbold", "raw text keeps escapes for hosts that render a terminal")
	})
}

func TestKillReachesEscapedDescendants(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		m := marker()
		r := c.exec(map[string]any{"command": fmt.Sprintf("setsid sleep %s & nohup sleep %s >/dev/null 2>&1 & (sh -c 'sleep %s &' &); sleep %s", m, m, m, m),
			"background": true, "yieldMs": 300})
		require.Equal(t, "background", r.State)
		waitFor(t, "four sleeps", func() bool { return len(pidsWith(m)) >= 4 })
		r = c.run("session/kill", map[string]any{"sessionId": r.SessionID})
		require.NotNil(t, r.ExitCode)
		noneLeft(t, m)
	})
}

func TestTimeoutGoesOnWhileWaiting(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		growing(t, 1500, 24000, func(limit int) bool {
			r := c.exec(map[string]any{"command": "read x", "timeoutMs": limit})
			if r.ExitCode != nil && r.TimedOut {
				return true // ended before its read was seen
			}
			require.Equal(t, "waiting", r.State)
			r = c.run("session/read", map[string]any{"sessionId": r.SessionID, "until": "exit", "yieldMs": 30000})
			require.NotNil(t, r.ExitCode)
			assert.True(t, r.TimedOut)
			return false
		})
	})
}

func TestUnknownSessionAndResize(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		for _, m := range []string{"session/read", "session/write", "session/kill", "session/resize"} {
			_, rerr := c.call(m, map[string]any{"sessionId": "999", "input": "x", "cols": 80, "rows": 24})
			require.NotNil(t, rerr, m)
			assert.Equal(t, -32001, rerr.Code, m)
		}
		r := c.exec(map[string]any{"command": "read x; stty size", "yieldMs": 30000})
		require.Equal(t, "waiting", r.State)
		id := r.SessionID
		_, rerr := c.call("session/resize", map[string]any{"sessionId": id, "cols": 100, "rows": 30})
		require.Nil(t, rerr)
		r = c.run("session/write", map[string]any{"sessionId": id, "input": "\n", "yieldMs": 30000})
		if r.ExitCode == nil { // output may come before the exit
			out := r.Output
			r = c.run("session/read", map[string]any{"sessionId": id, "until": "exit", "yieldMs": 30000})
			r.Output = out + r.Output
		}
		require.NotNil(t, r.ExitCode)
		assert.Contains(t, r.Output, "30 100")
	})
}

func TestHelperKilledThenRestartedLeavesNothing(t *testing.T) {
	root := t.TempDir()
	cache := t.TempDir()
	m := marker()
	c := start(t, "ndjson", root, nil, withEnv("XDG_CACHE_HOME="+cache))
	r := c.exec(map[string]any{"command": fmt.Sprintf("setsid sleep %s & sleep %s", m, m), "background": true, "yieldMs": 200})
	require.Equal(t, "background", r.State)
	waitFor(t, "the sleeps", func() bool { return len(pidsWith(m)) >= 2 })
	require.NoError(t, c.cmd.Process.Signal(syscall.SIGKILL))
	within(t, c.exited, "the helper's death")
	// The direct child dies with its parent; the escaped one is still here.
	c2 := start(t, "ndjson", root, nil, withEnv("XDG_CACHE_HOME="+cache))
	c2.exec(map[string]any{"command": "true"})
	noneLeft(t, m)
}

func TestManySessionsLeaveNothing(t *testing.T) {
	root := t.TempDir()
	c := start(t, "ndjson", root, nil)
	m := marker()
	var ids []string
	for i := range 50 {
		r := c.exec(map[string]any{"command": fmt.Sprintf("while true; do echo line %d; sleep 0.05; done; sleep %s", i, m),
			"background": true, "yieldMs": 10})
		require.Equal(t, "background", r.State)
		ids = append(ids, r.SessionID)
	}
	fdsBefore := countFds(c.cmd.Process.Pid)
	done := make(chan result, len(ids))
	for _, id := range ids {
		go func() {
			raw, _ := c.call("session/kill", map[string]any{"sessionId": id})
			var r result
			json.Unmarshal(raw, &r)
			done <- r
		}()
	}
	for range ids {
		r := within(t, done, "a kill's answer")
		require.NotNil(t, r.ExitCode)
	}
	waitFor(t, "every session's process to end", func() bool {
		return countFds(c.cmd.Process.Pid) < fdsBefore-50
	})
	noneLeft(t, "while true; do echo line")
	// Past the limit, a clear error; under it, room again.
	for range 64 {
		c.exec(map[string]any{"command": "sleep " + m, "background": true, "yieldMs": 1})
	}
	_, rerr := c.call("exec/run", map[string]any{"command": "true"})
	require.NotNil(t, rerr)
	assert.Equal(t, -32006, rerr.Code)
}

func countFds(pid int) int {
	entries, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	return len(entries)
}

func TestLoginEnvironment(t *testing.T) {
	root := t.TempDir()
	dir := t.TempDir()
	// A login shell whose rc file is noisy and sets what nvm or pyenv would.
	shell := filepath.Join(dir, "login-shell")
	script := "#!/bin/sh\necho 'Welcome to the rc file'\nexport FROM_LOGIN=yes\nexport PATH=\"/opt/from-login/bin:$PATH\"\n" +
		"for last in \"$@\"; do :; done\neval \"$last\"\necho bye\n"
	require.NoError(t, os.WriteFile(shell, []byte(script), 0o755))
	c := start(t, "ndjson", root, nil, withEnv("SHELL="+shell, "FROM_HELPER=kept", "XDG_CACHE_HOME="+t.TempDir()))
	_, rerr := c.call("initialize", nil)
	require.Nil(t, rerr)
	var out string
	waitFor(t, "the login environment to arrive", func() bool {
		out = c.exec(map[string]any{"command": `echo "$FROM_LOGIN|$FROM_HELPER|$PATH"`}).Output
		return strings.HasPrefix(out, "yes|")
	})
	assert.True(t, strings.HasPrefix(out, "yes|kept|"), out)
	assert.Contains(t, out, "/opt/from-login/bin")
}
