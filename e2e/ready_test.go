//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The ready line comes after a delay, coloured and split across writes:
// the answer comes with it, long before the line printed seconds later.
func TestReadyPatternAnswersWhenTheLineComes(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		m := marker()
		cmd := `sleep 0.5; printf '\033[32m  VITE\033[0m ready'; sleep 0.3; printf ' in 812 ms\r\n'; sleep 5; echo much later; sleep ` + m
		r := c.exec(map[string]any{"command": cmd, "background": true, "readyPattern": `VITE ready in \d+ ms`})
		require.Equal(t, "background", r.State, "%+v", r)
		require.NotNil(t, r.Ready)
		assert.True(t, *r.Ready)
		assert.Contains(t, r.Output, "VITE ready in 812 ms")
		assert.NotContains(t, r.Output, "much later", "answered at the ready line, not at a yield")
		c.run("session/kill", map[string]any{"sessionId": r.SessionID})
		noneLeft(t, m)
	})
}

func TestReadyPatternThatNeverMatches(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		m := marker()
		r := c.exec(map[string]any{"command": "echo starting; sleep " + m, "background": true,
			"readyPattern": "never printed", "yieldMs": 500})
		require.Equal(t, "background", r.State)
		require.NotNil(t, r.Ready)
		assert.False(t, *r.Ready, "the yield passed first")
		out := r.Output
		if !strings.Contains(out, "starting") { // a slow start: the yield passed before the echo
			out += c.run("session/read", map[string]any{"sessionId": r.SessionID, "yieldMs": 30000}).Output
		}
		assert.Contains(t, out, "starting")
		c.run("session/kill", map[string]any{"sessionId": r.SessionID})
		noneLeft(t, m)
	})
}

func TestServerThatDiesBeforeItIsReady(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		r := c.exec(map[string]any{"command": "echo 'Error: port in use'; exit 1", "background": true, "readyPattern": "ready"})
		require.NotNil(t, r.ExitCode, "the finished shape: %+v", r)
		assert.Equal(t, 1, *r.ExitCode)
		assert.Nil(t, r.Ready)
		assert.Contains(t, r.Output, "port in use")
	})
}

// A server on a chosen port, started by a shell (a grandchild of the
// helper), is answered by readyPort; its port is in the answer and in
// session/list.
func TestReadyPortAndPortsOfAGrandchild(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		port := freePort(t)
		cmd := fmt.Sprintf("sh -c 'python3 -m http.server %d --bind 127.0.0.1 & wait'", port)
		r := c.exec(map[string]any{"command": cmd, "background": true, "readyPort": port})
		require.Equal(t, "background", r.State, "%+v", r)
		require.NotNil(t, r.Ready)
		require.True(t, *r.Ready, "%+v", r)
		assert.Contains(t, r.Ports, port)
		raw, rerr := c.call("session/list", nil)
		require.Nil(t, rerr)
		var list struct{ Sessions []struct{ Ports []int } }
		require.NoError(t, json.Unmarshal(raw, &list))
		require.Len(t, list.Sessions, 1)
		assert.Contains(t, list.Sessions[0].Ports, port)
		c.run("session/kill", map[string]any{"sessionId": r.SessionID})
	})
}

// A server started on port 0 chooses its own; the answer says which, and
// it takes a request there.
func TestPortsOfAServerOnPortZero(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		r := c.exec(map[string]any{"command": "python3 -u -m http.server 0 --bind 127.0.0.1",
			"background": true, "readyPattern": `Serving HTTP on \S+ port \d+`})
		require.True(t, r.Ready != nil && *r.Ready, "%+v", r)
		said := regexp.MustCompile(`port (\d+)`).FindStringSubmatch(r.Output)
		require.NotNil(t, said, r.Output)
		port, _ := strconv.Atoi(said[1])
		require.Equal(t, []int{port}, r.Ports)
		client := http.Client{Timeout: 10 * time.Second}
		resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/", port))
		require.NoError(t, err)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		assert.Equal(t, 200, resp.StatusCode)
		c.run("session/kill", map[string]any{"sessionId": r.SessionID})
	})
}

func TestReadyParamsChecked(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		for _, p := range []map[string]any{
			{"command": "true", "readyPattern": "x"},
			{"command": "true", "background": true, "readyPattern": "(unclosed"},
			{"command": "true", "background": true, "readyPort": 70000},
		} {
			_, rerr := c.call("exec/run", p)
			require.NotNil(t, rerr, "%v", p)
			assert.Equal(t, -32602, rerr.Code, "%v", p)
		}
	})
}

// A dev server reading its shortcut keys in raw mode is idle, not waiting
// for a person: a long poll of it sees no prompt, and its state stays
// background.
func TestIdleServerReadingKeysIsNotWaiting(t *testing.T) {
	t.Parallel()
	c := start(t, "ndjson", t.TempDir(), nil)
	keys := `python3 -c "import sys,tty; tty.setraw(0); print('ready, press h for help', end='\r\n', flush=True); sys.stdin.read(1)"`
	r := c.exec(map[string]any{"command": keys, "background": true, "readyPattern": "press h"})
	require.True(t, r.Ready != nil && *r.Ready, "%+v", r)
	r = c.run("session/read", map[string]any{"sessionId": r.SessionID, "yieldMs": 1500})
	assert.Equal(t, "background", r.State, "%+v", r)
	assert.Nil(t, r.Prompt)
	c.run("session/kill", map[string]any{"sessionId": r.SessionID})
}
