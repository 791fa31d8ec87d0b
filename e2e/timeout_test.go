//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A test that opens a server and never closes it: node's test runner
// never exits, and its last line, "✔ opens a server ... (6ms)", ends the
// way prompts do.
const openServerTest = `
const test = require("node:test");
const http = require("node:http");
test("opens a server and never closes it", (t, done) => {
  http.createServer().listen(0, "127.0.0.1", done);
});
`

// A command killed at its timeout answers finished, with timedOut, never
// as waiting on its last line while the kill is under way. The race it
// guards against showed about one run in four, so twenty runs go at once.
// (On a machine too busy for node to print its line within the timeout,
// a run proves less, never the wrong thing.)
func TestTimedOutCommandNeverAnswersWaiting(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed here")
	}
	root := t.TempDir()
	// The marker names the file, so the runner and its child carry it.
	m := marker()
	file := "server-" + m + ".test.js"
	require.NoError(t, os.WriteFile(filepath.Join(root, file), []byte(openServerTest), 0o644))
	c := start(t, "ndjson", root, nil)
	var wg sync.WaitGroup
	results := make([]result, 20)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = c.exec(map[string]any{"command": "node --test " + file, "timeoutMs": 5000})
		}()
	}
	wg.Wait()
	for i, r := range results {
		require.NotNil(t, r.ExitCode, "run %d answered alive: %+v", i, r)
		assert.True(t, r.TimedOut, "run %d: %+v", i, r)
		assert.Equal(t, "timed out · 5000ms", r.Summary, "run %d", i)
	}
	noneLeft(t, m)
}

// A native run that yields (yieldMs) outlives the default cap (2 s here)
// while the host keeps waiting on it, each alive answer saying when the
// cap would end it; with timeoutMs the cap stays fixed.
func TestYieldedRunOutlivesTheDefaultCap(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, ".cfg-"+t.Name())
	require.NoError(t, os.MkdirAll(cfg, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(cfg, "config.toml"), []byte("[limits]\ntimeout_ms = 2000\n"), 0o600))
	c := start(t, "ndjson", root, nil)
	r := c.exec(map[string]any{"command": "for i in 1 2 3 4; do echo tick $i; sleep 1; done", "yieldMs": 500})
	require.Equal(t, "running", r.State, "%+v", r)
	assert.True(t, r.CapRenews && r.EndsInMs > 0 && r.EndsInMs <= 2000, "%+v", r)
	for r.ExitCode == nil {
		r = c.run("session/read", map[string]any{"sessionId": r.SessionID, "until": "exit", "yieldMs": 500})
	}
	assert.Equal(t, 0, *r.ExitCode, "%+v", r)
	assert.False(t, r.TimedOut)

	r = c.exec(map[string]any{"command": "sleep 30", "yieldMs": 0, "timeoutMs": 1500})
	assert.False(t, r.CapRenews, "%+v", r)
	assert.Positive(t, r.EndsInMs)
	for r.ExitCode == nil {
		r = c.run("session/read", map[string]any{"sessionId": r.SessionID, "until": "exit", "yieldMs": 500})
	}
	assert.True(t, r.TimedOut)
	assert.Equal(t, "timed out · 1500ms", r.Summary)
}
