//go:build linux

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// each runs f once per framing, each with a helper of its own.
func each(t *testing.T, f func(t *testing.T, c *client, root string)) {
	for _, fr := range framings {
		t.Run(fr, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			f(t, start(t, fr, root, nil), root)
		})
	}
}

func TestInitialize(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		raw, rerr := c.call("initialize", map[string]any{"clientInfo": map[string]string{"name": "test"},
			"capabilities": map[string]bool{"approval": false}})
		require.Nil(t, rerr)
		var r struct {
			ServerInfo      struct{ Name string } `json:"serverInfo"`
			ProtocolVersion int                   `json:"protocolVersion"`
			Platform        struct{ OS, Pty string }
			Root            string
			Limits          struct{ TimeoutMs, MaxStreamChars, MaxLineChars int }
		}
		require.NoError(t, json.Unmarshal(raw, &r))
		assert.Equal(t, "termhelper", r.ServerInfo.Name)
		assert.Equal(t, 1, r.ProtocolVersion)
		assert.Equal(t, "linux", r.Platform.OS)
		assert.Equal(t, "unix-pty", r.Platform.Pty)
		real, _ := filepath.EvalSymlinks(root)
		assert.Equal(t, real, r.Root)
		assert.Equal(t, 60000, r.Limits.TimeoutMs)
		assert.Equal(t, 16000, r.Limits.MaxStreamChars)
		assert.Equal(t, 500, r.Limits.MaxLineChars)
	})
}

func TestExitCodes(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		for _, mode := range []string{"pty", "pipes"} {
			r := c.exec(map[string]any{"command": "echo hello; exit 3", "mode": mode})
			require.NotNil(t, r.ExitCode, mode)
			assert.Equal(t, 3, *r.ExitCode, mode)
			assert.Equal(t, "hello", strings.TrimSpace(r.Output), mode)
			assert.Nil(t, r.Signal)
			assert.Empty(t, r.SessionID, "a finished answer names no session")
			assert.Regexp(t, `^exit 3 · \d+ms$`, r.Summary)
		}
		r := c.exec(map[string]any{"command": "true"})
		assert.Equal(t, 0, *r.ExitCode)
		assert.Equal(t, "", r.Output)
	})
}

func TestSignalDeath(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		r := c.exec(map[string]any{"command": "echo before; kill -9 $$"})
		require.NotNil(t, r.ExitCode)
		assert.Equal(t, 137, *r.ExitCode)
		require.NotNil(t, r.Signal)
		assert.Equal(t, "SIGKILL", *r.Signal)
		assert.Contains(t, r.Output, "before")
		assert.Contains(t, r.Summary, "SIGKILL")
	})
}

func TestPipesKeepStderrApart(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		r := c.exec(map[string]any{"command": "echo out; echo err >&2; cat", "mode": "pipes", "stdin": "from stdin\n"})
		assert.Equal(t, "out\nfrom stdin", strings.TrimSpace(r.Output))
		require.NotNil(t, r.Stderr)
		assert.Equal(t, "err", strings.TrimSpace(*r.Stderr))
		// Without stdin the input is empty and closed, so cat ends at once.
		r = c.exec(map[string]any{"command": "cat; echo done", "mode": "pipes"})
		assert.Equal(t, "done", strings.TrimSpace(r.Output))
		// pty mode merges, unless stderr is asked apart.
		r = c.exec(map[string]any{"command": "echo out; echo err >&2"})
		assert.Equal(t, "out\nerr", strings.TrimSpace(r.Output))
		assert.Nil(t, r.Stderr)
		r = c.exec(map[string]any{"command": "echo out; echo err >&2; test -t 1 && echo tty", "stderr": "separate"})
		assert.Equal(t, "out\ntty", strings.TrimSpace(r.Output))
		require.NotNil(t, r.Stderr)
		assert.Equal(t, "err", strings.TrimSpace(*r.Stderr))
	})
}

func TestTerminal(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		r := c.exec(map[string]any{"command": "test -t 0 && test -t 1 && stty size && echo $TERM", "cols": 91, "rows": 37})
		assert.Equal(t, "37 91\nxterm-256color", strings.TrimSpace(r.Output))
		// The command leads its own session and process group.
		r = c.exec(map[string]any{"command": "ps -o sid=,pgid=,pid= -p $$"})
		f := strings.Fields(r.Output)
		require.Len(t, f, 3, r.Output)
		assert.Equal(t, f[2], f[0])
		assert.Equal(t, f[2], f[1])
	})
}

func TestTimeoutKillsGroupAndGrandchild(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		growing(t, 3000, 24000, func(limit int) bool {
			m := marker()
			cmd := fmt.Sprintf("sleep %s & sh -c 'sleep %s'; echo never", m, m)
			done := make(chan result, 1)
			go func() { done <- c.exec(map[string]any{"command": cmd, "timeoutMs": limit}) }()
			// The tree is really there while it runs, unless the limit came
			// before it was.
			early := false
			waitFor(t, "the sleeps to start", func() bool {
				if len(pidsWith(m)) >= 2 {
					return true
				}
				select {
				case <-done:
					early = true
				default:
				}
				return early
			})
			if !early {
				r := within(t, done, "the answer")
				assert.True(t, r.TimedOut)
				require.NotNil(t, r.ExitCode)
				assert.NotEqual(t, 0, *r.ExitCode)
				assert.Equal(t, fmt.Sprintf("timed out · %dms", limit), r.Summary)
			}
			noneLeft(t, m)
			return early
		})
	})
}

func TestCwdStaysInsideRoot(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		require.NoError(t, os.Mkdir(filepath.Join(root, "sub"), 0o755))
		outside := t.TempDir()
		require.NoError(t, os.Symlink(outside, filepath.Join(root, "out")))
		require.NoError(t, os.Symlink(filepath.Join(root, "sub"), filepath.Join(root, "in")))
		require.NoError(t, os.WriteFile(filepath.Join(root, "file"), nil, 0o644))
		for _, cwd := range []string{"..", "../", "sub/../..", outside, "/etc", "out", "out/", "missing", "file"} {
			_, rerr := c.call("exec/run", map[string]any{"command": "touch ran-" + strconv.Itoa(len(cwd)), "cwd": cwd})
			require.NotNil(t, rerr, cwd)
			assert.Equal(t, -32002, rerr.Code, cwd)
		}
		entries, _ := os.ReadDir(outside)
		assert.Empty(t, entries, "nothing ran outside")
		for _, cwd := range []string{"sub", "in", filepath.Join(root, "sub"), "", ".", "sub/.."} {
			r := c.exec(map[string]any{"command": "pwd -P", "cwd": cwd})
			assert.Equal(t, 0, *r.ExitCode, cwd)
			real, _ := filepath.EvalSymlinks(filepath.Join(root, strings.TrimPrefix(cwd, root)))
			assert.Equal(t, real, strings.TrimSpace(r.Output), cwd)
		}
	})
}

func TestEnvSetAndUnset(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		r := c.exec(map[string]any{"command": `echo "$FOO|${HOME-unset}|$PAGER|$GIT_TERMINAL_PROMPT"`,
			"env": map[string]any{"FOO": "bar baz", "HOME": nil}})
		assert.Equal(t, "bar baz|unset|cat|0", strings.TrimSpace(r.Output))
		r = c.exec(map[string]any{"command": `echo "$PAGER"`, "env": map[string]any{"PAGER": "less"}})
		assert.Equal(t, "less", strings.TrimSpace(r.Output))
	})
}

func TestBigOutputIsCappedAndSpilled(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		// 50,000 distinct lines of 100 characters: 5 MB that no folding of
		// repeated lines can shrink.
		r := c.exec(map[string]any{"command": `seq -f '%0100g' 1 50000`})
		assert.Equal(t, 0, *r.ExitCode)
		assert.True(t, r.Truncated)
		assert.LessOrEqual(t, len([]rune(r.Output)), 16000)
		require.NotNil(t, r.FullOutputPath)
		f, err := os.Open(*r.FullOutputPath)
		require.NoError(t, err)
		defer f.Close()
		sc := bufio.NewScanner(f)
		n := 0
		for sc.Scan() {
			if sc.Text() == "" && n == 50000 {
				continue
			}
			require.Equal(t, fmt.Sprintf("%0100d", n+1), sc.Text(), "line %d", n+1)
			n++
		}
		assert.Equal(t, 50000, n)
	})
}

func TestSeqSpillHoldsEveryLineInOrder(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		r := c.exec(map[string]any{"command": "seq 1 200000"})
		assert.Equal(t, 0, *r.ExitCode)
		assert.True(t, r.Truncated)
		assert.True(t, strings.HasPrefix(r.Output, "1\n2\n3\n"), "head kept")
		assert.True(t, strings.HasSuffix(strings.TrimSpace(r.Output), "199999\n200000"), "tail kept")
		require.NotNil(t, r.FullOutputPath)
		data, err := os.ReadFile(*r.FullOutputPath)
		require.NoError(t, err)
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		require.Len(t, lines, 200000)
		for i, l := range lines {
			if l != strconv.Itoa(i+1) {
				t.Fatalf("spill line %d is %q", i+1, l)
			}
		}
	})
}

func TestMultiLineAndHeredoc(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		r := c.exec(map[string]any{"command": "x=1\nif [ $x = 1 ]; then\n  echo one\nfi\ncat <<'EOF'\nhere $x\ndoc\nEOF"})
		assert.Equal(t, "one\nhere $x\ndoc", strings.TrimSpace(r.Output))
	})
}

func TestManySequentialRunsLoseNothing(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		for i := range 200 {
			r := c.exec(map[string]any{"command": fmt.Sprintf("echo run-%d", i)})
			require.Equal(t, fmt.Sprintf("run-%d", i), strings.TrimSpace(r.Output), "run %d: %s; stderr:\n%s", i, describe(r), c.stderr)
		}
	})
}

func TestLastBytesAreNeverLost(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		// A fast writer that exits at once: the tail must still be there.
		for i := range 30 {
			r := c.exec(map[string]any{"command": fmt.Sprintf("seq 1 3000; printf end-%d", i)})
			require.True(t, strings.HasSuffix(r.Output, fmt.Sprintf("2999\n3000\nend-%d", i)), "run %d: %q", i, tail(r.Output))
		}
	})
}

func tail(s string) string {
	if len(s) > 40 {
		return s[len(s)-40:]
	}
	return s
}

func TestGrandchildHoldingTerminalDoesNotDelayAnswer(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		m := marker()
		r := c.exec(map[string]any{"command": fmt.Sprintf("sleep %s & echo started", m)})
		assert.Equal(t, 0, *r.ExitCode)
		assert.Equal(t, "started", strings.TrimSpace(r.Output))
		// Waiting for the grandchild, which sleeps for days, would have
		// ended at the command's time limit.
		assert.False(t, r.TimedOut, "the answer waited for the grandchild")
		noneLeft(t, m)
	})
}

func TestFinishedCommandsDaemonsAreEnded(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		m := marker()
		// Neither holds the terminal, and neither stays in the group.
		cmd := fmt.Sprintf("setsid sleep %s </dev/null >/dev/null 2>&1 & (nohup sleep %s </dev/null >/dev/null 2>&1 &); echo ok", m, m)
		r := c.exec(map[string]any{"command": cmd})
		assert.Equal(t, "ok", strings.TrimSpace(r.Output))
		noneLeft(t, m)
	})
}

func TestRequestsRunConcurrently(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		m := marker()
		slow := c.callAsync("exec/run", map[string]any{"command": "sleep " + m})
		waitFor(t, "the slow command to start", func() bool { return len(pidsWith(m)) >= 1 })
		fast := c.exec(map[string]any{"command": "echo fast"})
		assert.Equal(t, "fast", strings.TrimSpace(fast.Output))
		assert.Empty(t, slow, "the slow command is still running")
		assert.NotEmpty(t, pidsWith(m))
	})
}

func TestBadMessagesKeepTheHelperServing(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		c.sendRaw([]byte(`{"jsonrpc":"2.0","id":1,"method":`))
		m := c.nextNote()
		require.NotNil(t, m.Error, "%+v", m)
		assert.Equal(t, -32700, m.Error.Code)

		c.sendRaw([]byte(`[1,2]`))
		m = c.nextNote()
		require.NotNil(t, m.Error)
		assert.Equal(t, -32600, m.Error.Code)

		c.sendRaw([]byte(`{"jsonrpc":"2.0","id":"x"}`))
		m = c.nextNote()
		require.NotNil(t, m.Error)
		assert.Equal(t, -32600, m.Error.Code)

		// Invalid UTF-8 inside a string becomes U+FFFD; the command runs.
		c.sendRaw([]byte("{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"exec/run\",\"params\":{\"command\":\"echo \xff ok\"}}"))
		m = c.nextNote()
		require.Nil(t, m.Error)
		assert.Contains(t, string(m.Result), "\ufffd ok")

		_, rerr := c.call("no/such", nil)
		require.NotNil(t, rerr)
		assert.Equal(t, -32601, rerr.Code)

		_, rerr = c.call("exec/run", map[string]any{"command": 42})
		require.NotNil(t, rerr)
		assert.Equal(t, -32602, rerr.Code)
		assert.Contains(t, rerr.Message, "command")

		_, rerr = c.call("exec/run", map[string]any{"command": "true", "timeoutMs": "soon"})
		require.NotNil(t, rerr)
		assert.Equal(t, -32602, rerr.Code)
		assert.Contains(t, rerr.Message, "timeoutMs")

		_, rerr = c.call("exec/run", map[string]any{})
		require.NotNil(t, rerr)
		assert.Equal(t, -32602, rerr.Code)

		_, rerr = c.call("exec/run", map[string]any{"command": "true", "mode": "tty"})
		require.NotNil(t, rerr)
		assert.Equal(t, -32602, rerr.Code)

		_, rerr = c.call("session/read", map[string]any{"sessionId": "nope"})
		require.NotNil(t, rerr)
		assert.Equal(t, -32001, rerr.Code)

		r := c.exec(map[string]any{"command": "echo still here"})
		assert.Equal(t, "still here", strings.TrimSpace(r.Output))
	})
}

func TestBinaryOutputIsValidUTF8(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		// Random bytes without ESC and without \302, the lead byte of the
		// UTF-8 C1 controls (a CSI or DCS introducer could, as in a terminal,
		// move the cursor or swallow what follows), then text after them.
		r := c.exec(map[string]any{"command": `head -c 20000 /dev/urandom | tr -d '\033\302'; printf '\ncaf\303\251 \342\234\223\n'`})
		assert.Equal(t, 0, *r.ExitCode)
		assert.True(t, utf8.ValidString(r.Output))
		assert.True(t, strings.HasSuffix(r.Output, "café ✓\n"), "%q", tail(r.Output))
		assert.NotContains(t, r.Output, "\x1b")
	})
}

func TestHugeMessageIsRefused(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		big := strings.Repeat("x", 33<<20)
		c.sendRaw([]byte(`{"jsonrpc":"2.0","id":7,"method":"exec/run","params":{"command":"echo ` + big + `"}}`))
		m := c.nextNote()
		require.NotNil(t, m.Error)
		assert.Equal(t, -32600, m.Error.Code)
		r := c.exec(map[string]any{"command": "echo after"})
		assert.Equal(t, "after", strings.TrimSpace(r.Output))
	})
}

func TestSignalsEndEverything(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			c := start(t, "ndjson", t.TempDir(), nil)
			m := marker()
			c.callAsync("exec/run", map[string]any{"command": fmt.Sprintf("sleep %s", m), "mode": "pipes"})
			waitFor(t, "the command to start", func() bool { return len(pidsWith(m)) >= 1 })
			c.cmd.Process.Signal(sig)
			within(t, c.exited, "the helper's exit")
			assert.Equal(t, 0, c.cmd.ProcessState.ExitCode(), c.stderr.String())
			noneLeft(t, m)
		})
	}
}

func TestShutdownAndExit(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		m := marker()
		c.callAsync("exec/run", map[string]any{"command": "sleep " + m})
		waitFor(t, "the command to start", func() bool { return len(pidsWith(m)) >= 1 })
		raw, rerr := c.call("shutdown", nil)
		require.Nil(t, rerr)
		assert.Equal(t, "null", string(raw))
		noneLeft(t, m)
		c.send(map[string]any{"jsonrpc": "2.0", "method": "exit"})
		within(t, c.exited, "the helper's exit")
		assert.Equal(t, 0, c.cmd.ProcessState.ExitCode())
	})
}

func TestRunSubcommand(t *testing.T) {
	root := t.TempDir()
	cmd := exec.Command(binary, "run", "--root", root, "--", `printf '\033[1mbold\033[0m\n'; pwd -P; exit 3`)
	cmd.Env = append(os.Environ(), "SHELL=", "TERMHELPER_CONFIG_DIR="+t.TempDir())
	out, err := cmd.Output()
	var exitErr *exec.ExitError
	require.ErrorAs(t, err, &exitErr, "the command's exit code is the helper's")
	assert.Equal(t, 3, exitErr.ExitCode())
	real, _ := filepath.EvalSymlinks(root)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, 3, "%q", out)
	assert.Equal(t, "bold", lines[0], "cleaned for a person")
	assert.Equal(t, real, lines[1])
	assert.Regexp(t, `^exit 3 · \d+ms$`, lines[2])

	// A hard block is refused before anything runs.
	cmd = exec.Command(binary, "run", "--root", root, "--", "sudo", "true")
	cmd.Env = append(os.Environ(), "SHELL=", "TERMHELPER_CONFIG_DIR="+t.TempDir())
	out, err = cmd.CombinedOutput()
	require.ErrorAs(t, err, &exitErr)
	assert.NotEqual(t, 0, exitErr.ExitCode())
	assert.Contains(t, string(out), "sudo")
}
