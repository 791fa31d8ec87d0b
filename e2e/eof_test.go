//go:build linux

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pipedHelper runs the helper as `printf '%s\n' "$REQ" | termhelper` does:
// every request written at once, then stdin closed. It returns every
// message the helper wrote and its exit code.
func pipedHelper(t *testing.T, root string, requests ...string) ([]message, int) {
	t.Helper()
	cmd := exec.Command(binary, "--root", root)
	cmd.Env = append(os.Environ(), "TERMHELPER_CONFIG_DIR="+t.TempDir(), "SHELL=")
	cmd.Stdin = strings.NewReader(strings.Join(requests, "\n") + "\n")
	done := make(chan struct{})
	var out []byte
	var err error
	go func() {
		out, err = cmd.Output()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(watchdog):
		cmd.Process.Kill()
		t.Fatal("the helper did not exit after its input ended")
	}
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	}
	return decodeLines(t, out), code
}

func decodeLines(t *testing.T, out []byte) []message {
	var msgs []message
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m message
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), "%q", sc.Text())
		msgs = append(msgs, m)
	}
	return msgs
}

func answers(msgs []message) map[string]message {
	byID := map[string]message{}
	for _, m := range msgs {
		if m.ID != nil && m.Method == "" {
			byID[string(*m.ID)] = m
		}
	}
	return byID
}

func TestStdinEOFFinishesTheRequestsInHand(t *testing.T) {
	t.Parallel()
	msgs, code := pipedHelper(t, t.TempDir(),
		`{"jsonrpc":"2.0","id":1,"method":"exec/run","params":{"command":"sleep 0.3; echo one"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"exec/run","params":{"command":"echo two; exit 4"}}`)
	assert.Equal(t, 0, code)
	byID := answers(msgs)
	require.Len(t, byID, 2, "%+v", msgs)
	for id, want := range map[string]string{"1": "one", "2": "two"} {
		var r result
		m := byID[id]
		require.Nil(t, m.Error, "request %s: %+v", id, m.Error)
		require.NoError(t, json.Unmarshal(m.Result, &r))
		assert.Equal(t, want, strings.TrimSpace(r.Output))
		require.NotNil(t, r.ExitCode)
	}
}

func TestStdinEOFEndsBackgroundCommandsAfterTheirAnswer(t *testing.T) {
	t.Parallel()
	m := marker()
	msgs, code := pipedHelper(t, t.TempDir(), fmt.Sprintf(
		`{"jsonrpc":"2.0","id":1,"method":"exec/run","params":{"command":"echo up; setsid sleep %s & sleep %s","background":true,"yieldMs":300}}`, m, m))
	assert.Equal(t, 0, code)
	byID := answers(msgs)
	require.Contains(t, byID, "1")
	var r result
	require.NoError(t, json.Unmarshal(byID["1"].Result, &r))
	assert.NotEmpty(t, r.SessionID, "answered alive at its yield")
	assert.Contains(t, r.Output, "up")
	noneLeft(t, m)
}

// A host that is gone (the reader of the helper's output closed) ends
// every tree at once, even with a foreground command that would run for
// a long time and stdin still open.
func TestHostGoneEndsEverythingAtOnce(t *testing.T) {
	t.Parallel()
	c := start(t, "ndjson", t.TempDir(), nil)
	m := marker()
	c.callAsync("exec/run", map[string]any{"command": fmt.Sprintf("setsid sleep %s & sleep %s", m, m)})
	waitFor(t, "the command to start", func() bool { return len(pidsWith(m)) >= 2 })
	require.NoError(t, c.stdoutReader.Close())
	within(t, c.exited, "the helper's exit")
	noneLeft(t, m)
}

// A host killed with SIGKILL leaves nothing running: its end of both
// pipes closes with it.
func TestKilledHostLeavesNothingRunning(t *testing.T) {
	t.Parallel()
	m := marker()
	host := exec.Command("python3", "-c", `
import subprocess, sys, time
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
p.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"exec/run","params":{"command":"setsid sleep `+m+` & sleep `+m+`"}}\n')
p.stdin.flush()
print(p.pid, flush=True)
time.sleep(600)
`, binary, "--root", t.TempDir())
	host.Env = append(os.Environ(), "TERMHELPER_CONFIG_DIR="+t.TempDir(), "SHELL=")
	out, err := host.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, host.Start())
	t.Cleanup(func() { host.Process.Kill(); host.Wait() })
	var helperPid int
	_, err = fmt.Fscan(out, &helperPid)
	require.NoError(t, err)
	waitFor(t, "the command to start", func() bool { return len(pidsWith(m)) >= 2 })
	require.NoError(t, host.Process.Signal(syscall.SIGKILL))
	noneLeft(t, m)
	waitFor(t, "the helper's exit", func() bool { return syscall.Kill(helperPid, 0) != nil || zombie(helperPid) })
}

func zombie(pid int) bool {
	st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return strings.Contains(string(st), ") Z")
}
