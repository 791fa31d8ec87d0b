//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func needNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed here")
	}
}

func writeFile(t *testing.T, dir, name, text string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
}

// askInRawMode asks as npx does: the question printed, then the keys read
// in raw mode. It asks once the file named by its argument exists.
const askInRawMode = `
const fs = require("fs");
const ask = () => {
  process.stdout.write("Need to install the following packages:\nhttp-server@14.1.1\nOk to proceed? (y) ");
  process.stdin.setRawMode(true);
  process.stdin.once("data", (k) => { process.stdout.write("\nanswered " + k + "\n"); process.exit(0); });
};
const when = process.argv[2];
if (!when) ask();
else { const t = setInterval(() => { if (fs.existsSync(when)) { clearInterval(t); ask(); } }, 20); }
`

// A background server that asks a question before it starts is waiting,
// with its question, at once: not "background, not ready" after the
// whole wait for its port.
func TestBackgroundQuestionInRawModeIsWaiting(t *testing.T) {
	needNode(t)
	each(t, func(t *testing.T, c *client, root string) {
		writeFile(t, root, "ask.js", askInRawMode)
		r := c.exec(map[string]any{"command": "node ask.js", "background": true, "readyPort": freePort(t)})
		require.Equal(t, "waiting", r.State, "%+v", r)
		require.NotNil(t, r.Prompt)
		assert.Equal(t, "Ok to proceed? (y)", r.Prompt.Text)
		require.NotNil(t, r.Ready)
		assert.False(t, *r.Ready)
		r = c.run("session/write", map[string]any{"sessionId": r.SessionID, "input": "y", "yieldMs": 20000})
		if r.ExitCode == nil {
			r = c.run("session/read", map[string]any{"sessionId": r.SessionID, "until": "exit", "yieldMs": 20000})
		}
		require.NotNil(t, r.ExitCode, "%+v", r)
		assert.Contains(t, r.Output, "answered y")
	})
}

// A question that comes after the first answer is told to the host.
func TestBackgroundQuestionIsNotified(t *testing.T) {
	needNode(t)
	each(t, func(t *testing.T, c *client, root string) {
		writeFile(t, root, "ask.js", askInRawMode)
		r := c.exec(map[string]any{"command": "node ask.js go", "background": true, "yieldMs": 0})
		require.Equal(t, "background", r.State, "%+v", r)
		writeFile(t, root, "go", "")
		n := c.note("session/waiting")
		var w struct {
			SessionID string
			Prompt    struct{ Text string }
		}
		require.NoError(t, json.Unmarshal(n.Params, &w))
		assert.Equal(t, r.SessionID, w.SessionID)
		assert.Equal(t, "Ok to proceed? (y)", w.Prompt.Text)
		c.run("session/kill", map[string]any{"sessionId": r.SessionID})
	})
}

// npx itself, asking before it installs a package it has not cached (a
// fresh cache, the user's npm config left out since it may say yes=false).
func TestNpxQuestionInTheBackgroundIsWaiting(t *testing.T) {
	if _, err := exec.LookPath("npx"); err != nil {
		t.Skip("npx is not installed here")
	}
	root := t.TempDir()
	writeFile(t, root, "empty.npmrc", "")
	c := start(t, "ndjson", root, nil)
	port := freePort(t)
	r := c.exec(map[string]any{"command": fmt.Sprintf("npx http-server -p %d", port), "background": true, "readyPort": port,
		"env": map[string]any{"npm_config_cache": filepath.Join(root, "npm-cache"), "npm_config_userconfig": filepath.Join(root, "empty.npmrc"),
			"npm_config_fetch_retries": "0", "CI": nil}})
	if r.ExitCode != nil {
		t.Skipf("npx could not ask here (no registry?): %s", r.Output)
	}
	require.Equal(t, "waiting", r.State, "%+v", r)
	require.NotNil(t, r.Prompt)
	assert.Contains(t, r.Prompt.Text, "Ok to proceed?")
	r = c.run("session/write", map[string]any{"sessionId": r.SessionID, "input": "n\r", "yieldMs": 20000})
	if r.ExitCode == nil {
		r = c.run("session/read", map[string]any{"sessionId": r.SessionID, "until": "exit", "yieldMs": 20000})
	}
	require.NotNil(t, r.ExitCode, "%+v", r)
	assert.NotEqual(t, 0, *r.ExitCode, "declined: nothing installed, nothing served")
}

// listenForShortcuts is a dev server as vite is: it prints its address and
// a key hint, then reads keys in raw mode while it serves, logging each
// request on a line that ends the way prompts do.
const listenForShortcuts = `
const http = require("http");
const port = Number(process.argv[2]);
http.createServer((q, r) => { console.log("  GET " + q.url + " (200)"); r.end("ok"); }).listen(port, "127.0.0.1", () => {
  process.stdout.write("\n  VITE v5.4.0  ready in 312 ms\n\n  ➜  Local:   http://localhost:" + port + "/\n  ➜  press h + enter to show help\n");
  process.stdin.setRawMode(true);
  process.stdin.on("data", (k) => { if (k[0] === 3) process.exit(130); });
});
`

// A dev server listening for its shortcuts is not waiting, before and
// after it logs; reads longer than the quiet a prompt needs say so.
func TestShortcutListenerIsNotWaiting(t *testing.T) {
	needNode(t)
	each(t, func(t *testing.T, c *client, root string) {
		writeFile(t, root, "server.js", listenForShortcuts)
		port := freePort(t)
		r := c.exec(map[string]any{"command": fmt.Sprintf("node server.js %d", port), "background": true, "readyPort": port})
		require.Equal(t, "background", r.State, "%+v", r)
		require.NotNil(t, r.Ready)
		require.True(t, *r.Ready)
		id := r.SessionID
		r = c.run("session/read", map[string]any{"sessionId": id, "yieldMs": 4000})
		assert.Equal(t, "background", r.State, "%+v", r)
		conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		require.NoError(t, err)
		fmt.Fprintf(conn, "GET /index.html HTTP/1.0\r\n\r\n")
		conn.Close()
		r = c.run("session/read", map[string]any{"sessionId": id, "yieldMs": 20000})
		assert.Contains(t, r.Output, "GET /index.html (200)")
		r = c.run("session/read", map[string]any{"sessionId": id, "yieldMs": 4000})
		assert.Equal(t, "background", r.State, "%+v", r)
		c.run("session/kill", map[string]any{"sessionId": id})
		for len(c.notes) > 0 {
			n := <-c.notes
			assert.NotEqual(t, "session/waiting", n.Method, "%s", n.Params)
		}
	})
}

// Password prompts that read /dev/tty rather than their input.
func TestPasswordReadFromDevTTYIsWaiting(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		r := c.exec(map[string]any{"command": `python3 -c 'import getpass; p = getpass.getpass("DB password: "); print("length", len(p))'`})
		require.Equal(t, "waiting", r.State, "%+v", r)
		require.NotNil(t, r.Prompt)
		assert.Equal(t, "DB password:", r.Prompt.Text)
		assert.True(t, r.Prompt.Secret)
		r = c.run("session/write", map[string]any{"sessionId": r.SessionID, "input": "s3cret-pw\n", "secret": true, "yieldMs": 20000})
		if r.ExitCode == nil {
			r = c.run("session/read", map[string]any{"sessionId": r.SessionID, "until": "exit", "yieldMs": 20000})
		}
		require.NotNil(t, r.ExitCode, "%+v", r)
		assert.Contains(t, r.Output, "length 9")
		assert.NotContains(t, r.Output, "s3cret-pw")
	})
}

// psql -W asks for the password on /dev/tty before it connects.
func TestPsqlPasswordPromptIsWaiting(t *testing.T) {
	if _, err := exec.LookPath("psql"); err != nil {
		t.Skip("psql is not installed here")
	}
	root := t.TempDir()
	c := start(t, "ndjson", root, nil)
	cmd := fmt.Sprintf("psql -W -h 127.0.0.1 -p %d -U nobody -d nothing -c 'select 1'", freePort(t))
	r := c.exec(map[string]any{"command": cmd})
	require.Equal(t, "waiting", r.State, "%+v", r)
	require.NotNil(t, r.Prompt)
	assert.True(t, strings.HasPrefix(r.Prompt.Text, "Password"), r.Prompt.Text)
	assert.True(t, r.Prompt.Secret)
	c.run("session/kill", map[string]any{"sessionId": r.SessionID})
}
