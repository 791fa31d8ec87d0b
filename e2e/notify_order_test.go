//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// notesOf collects, in the order they came, the notifications of session
// id until its session/exited.
func notesOf(c *client, id string) []string {
	c.t.Helper()
	var seen []string
	for {
		m := c.nextNote()
		var p struct{ SessionID string }
		if m.Method == "" || json.Unmarshal(m.Params, &p) != nil || p.SessionID != id {
			continue
		}
		if m.Method == "session/output" {
			continue
		}
		seen = append(seen, m.Method)
		if m.Method == "session/exited" {
			return seen
		}
	}
}

// A session that waits, is answered and exits is notified "waiting"
// before "exited", every time.
func TestWaitingIsNotifiedBeforeExited(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		for i := range 10 {
			// The gate lets the first answer hand the session over before
			// it waits, so its waiting is notified.
			gate := filepath.Join(root, fmt.Sprintf("gate%d", i))
			r := c.exec(map[string]any{"command": fmt.Sprintf("while [ ! -e %s ]; do sleep 0.01; done; printf 'go? '; read x; echo ok", gate), "yieldMs": 50})
			require.Equal(t, "running", r.State, "%+v", r)
			id := r.SessionID
			must(t, os.WriteFile(gate, nil, 0o600))
			for r.State == "running" { // output may come before the prompt is seen
				r = c.run("session/read", map[string]any{"sessionId": id, "yieldMs": 30000})
			}
			require.Equal(t, "waiting", r.State, "%+v", r)
			r = c.run("session/write", map[string]any{"sessionId": id, "input": "y\n", "yieldMs": 30000})
			if r.ExitCode == nil {
				r = c.run("session/read", map[string]any{"sessionId": id, "until": "exit", "yieldMs": 30000})
			}
			require.NotNil(t, r.ExitCode, "%+v", r)
			require.Equal(t, []string{"session/waiting", "session/exited"}, notesOf(c, id))
		}
	})
}
