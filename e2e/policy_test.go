//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sandboxOff runs a helper with the sandbox off: for the tests of the
// approval of lines the policy asks about, which with a sandbox in force
// run confined without a question (sandbox_test.go has those).
var sandboxOff = withEnv("TERMHELPER_SANDBOX=off")

// approver starts a helper, with the sandbox off, whose host answers
// approval requests with decision, counting them.
func approver(t *testing.T, root, decision string, asked *atomic.Int32) *client {
	c := start(t, "ndjson", root, nil, sandboxOff)
	c.onRequest = func(m message) any {
		if m.Method == "approval/request" {
			asked.Add(1)
			return map[string]string{"decision": decision}
		}
		return nil
	}
	_, rerr := c.call("initialize", map[string]any{"capabilities": map[string]bool{"approval": true}})
	require.Nil(t, rerr)
	return c
}

func TestApprovalRoundTrip(t *testing.T) {
	root := t.TempDir()
	var asked atomic.Int32
	c := approver(t, root, "allow", &asked)
	r := c.exec(map[string]any{"command": "ls"})
	assert.Equal(t, 0, *r.ExitCode)
	assert.Equal(t, int32(0), asked.Load(), "allowed commands are not asked about")
	r = c.exec(map[string]any{"command": "git --version"})
	assert.Equal(t, 0, *r.ExitCode)
	assert.Equal(t, int32(1), asked.Load())
	_, rerr := c.call("exec/run", map[string]any{"command": "sudo true"})
	require.NotNil(t, rerr)
	assert.Equal(t, -32003, rerr.Code)
	assert.Contains(t, string(rerr.Data), "sudo")
	assert.Equal(t, int32(1), asked.Load(), "a hard block is never asked about")

	denier := approver(t, t.TempDir(), "deny", &asked)
	_, rerr = denier.call("exec/run", map[string]any{"command": "touch made"})
	require.NotNil(t, rerr)
	assert.Equal(t, -32004, rerr.Code)
	assert.Equal(t, "user declined to run this command", rerr.Message)
}

// TestApprovalDismissedByTheHost: a host that answers approval/request
// with an error, or with a decision it was not offered ("cancel"), closed
// the question without an answer: the refusal says the host dismissed it,
// not that the person declined.
func TestApprovalDismissedByTheHost(t *testing.T) {
	for _, answer := range []any{&rpcError{Code: -32800, Message: "dialog closed"}, map[string]string{"decision": "cancel"}} {
		root := t.TempDir()
		c := start(t, "ndjson", root, nil, sandboxOff)
		c.onRequest = func(message) any { return answer }
		_, rerr := c.call("initialize", map[string]any{"capabilities": map[string]bool{"approval": true}})
		require.Nil(t, rerr)
		_, rerr = c.call("exec/run", map[string]any{"command": "touch made"})
		require.NotNil(t, rerr)
		assert.Equal(t, -32004, rerr.Code)
		assert.Contains(t, rerr.Message, "the host dismissed the approval question")
		assert.NotContains(t, rerr.Message, "declined to run")
		assert.NoFileExists(t, filepath.Join(root, "made"))
	}
}

func TestAlwaysSurvivesRestart(t *testing.T) {
	root := t.TempDir()
	var asked atomic.Int32
	c := approver(t, root, "always", &asked)
	c.exec(map[string]any{"command": "git --version"})
	require.Equal(t, int32(1), asked.Load())
	c.stop()

	c2 := approver(t, root, "deny", &asked)
	r := c2.exec(map[string]any{"command": "git --version"})
	assert.Equal(t, 0, *r.ExitCode, "git was allowed for good")
	assert.Equal(t, int32(1), asked.Load())
	raw, rerr := c2.call("policy/check", map[string]any{"command": "git status"})
	require.Nil(t, rerr)
	assert.Contains(t, string(raw), `"ask"`, "always on git --version approves nothing more")
}

func TestHostWithoutApproval(t *testing.T) {
	root := t.TempDir()
	c := start(t, "ndjson", root, nil, sandboxOff)
	r := c.exec(map[string]any{"command": "git --version"})
	assert.Equal(t, 0, *r.ExitCode, "a host without the capability approves what it sends")
	_, rerr := c.call("exec/run", map[string]any{"command": "sudo true"})
	require.NotNil(t, rerr)
	assert.Equal(t, -32003, rerr.Code)

	strict := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(strict, ".termhelper.toml"), []byte("unattended = \"deny\"\n"), 0o644))
	c = start(t, "ndjson", strict, nil, sandboxOff)
	_, rerr = c.call("exec/run", map[string]any{"command": "git --version"})
	require.NotNil(t, rerr)
	assert.Equal(t, -32004, rerr.Code)
	r = c.exec(map[string]any{"command": "echo allowed"})
	assert.Equal(t, "allowed", strings.TrimSpace(r.Output))
}

func TestUntrustedHost(t *testing.T) {
	c := start(t, "ndjson", t.TempDir(), nil)
	_, rerr := c.call("initialize", map[string]any{"trusted": false})
	require.Nil(t, rerr)
	_, rerr = c.call("exec/run", map[string]any{"command": "echo hi"})
	require.NotNil(t, rerr, "without approval an untrusted host runs nothing")
	assert.Equal(t, -32004, rerr.Code)

	var asked atomic.Int32
	c = approver(t, t.TempDir(), "allow", &asked)
	_, rerr = c.call("initialize", map[string]any{"trusted": false, "capabilities": map[string]bool{"approval": true}})
	require.Nil(t, rerr)
	r := c.exec(map[string]any{"command": "echo hi"})
	assert.Equal(t, "hi", strings.TrimSpace(r.Output))
	assert.Equal(t, int32(1), asked.Load(), "even ls-class commands are asked about")
}

func TestHostDisconnectingDuringApproval(t *testing.T) {
	root := t.TempDir()
	c := start(t, "ndjson", root, nil, sandboxOff)
	requested := make(chan struct{})
	c.onRequest = func(m message) any {
		close(requested)
		select {} // never answers
	}
	_, rerr := c.call("initialize", map[string]any{"capabilities": map[string]bool{"approval": true}})
	require.Nil(t, rerr)
	ch := c.callAsync("exec/run", map[string]any{"command": "touch ran"})
	within(t, requested, "the approval request")
	c.stdin.Close()
	m := within(t, ch, "the answer")
	require.NotNil(t, m.Error)
	assert.Equal(t, -32004, m.Error.Code)
	within(t, c.exited, "the helper's exit")
	assert.NoFileExists(t, filepath.Join(root, "ran"))
}

func TestBadConfigStopsTheHelper(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, ".termhelper.toml")
	require.NoError(t, os.WriteFile(cfg, []byte("[limits]\ntimeout_ms = 5\ntimeuot = 3\n"), 0o644))
	out, err := exec.Command(binary, "--root", root).CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), ".termhelper.toml")
	assert.Contains(t, string(out), ":3")
	assert.Contains(t, string(out), "timeuot")
	require.NoError(t, os.WriteFile(cfg, []byte("shell = 5\n"), 0o644))
	out, err = exec.Command(binary, "--root", root).CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "shell")
}

func TestRmGoesToTrashAndComesBack(t *testing.T) {
	root := t.TempDir()
	c := start(t, "ndjson", root, nil)
	r := c.exec(map[string]any{"command": "mkdir -p build/sub && echo data > build/sub/f && rm -rf build && test ! -e build && echo gone"})
	require.Equal(t, "gone", strings.TrimSpace(r.Output))
	raw, rerr := c.call("trash/list", nil)
	require.Nil(t, rerr)
	var list struct {
		Entries []struct {
			ID, Path, Command string
			DeletedAt         time.Time
			Size              int64
		}
	}
	require.NoError(t, json.Unmarshal(raw, &list))
	require.Len(t, list.Entries, 1)
	real, _ := filepath.EvalSymlinks(root)
	assert.Equal(t, filepath.Join(real, "build"), list.Entries[0].Path)
	assert.WithinDuration(t, time.Now(), list.Entries[0].DeletedAt, time.Hour)
	assert.Equal(t, int64(5), list.Entries[0].Size)
	assert.Contains(t, list.Entries[0].Command, "rm -rf build")
	_, rerr = c.call("trash/restore", map[string]any{"id": list.Entries[0].ID})
	require.Nil(t, rerr)
	data, err := os.ReadFile(filepath.Join(root, "build/sub/f"))
	require.NoError(t, err)
	assert.Equal(t, "data\n", string(data))
	// Restoring again would overwrite: refused.
	c.exec(map[string]any{"command": "rm -r build/sub && mkdir build/sub"})
	raw, _ = c.call("trash/list", nil)
	require.NoError(t, json.Unmarshal(raw, &list))
	require.NotEmpty(t, list.Entries)
	_, rerr = c.call("trash/restore", map[string]any{"id": list.Entries[0].ID})
	require.NotNil(t, rerr)
	assert.Contains(t, rerr.Message, "overwrite")
}
