//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestSandboxProjectRunners: the files that make another program run
// code when the project is next opened are read-only to a confined
// command where they are there (.vscode/settings.json, .claude/,
// .mcp.json, .envrc, .idea/workspace.xml); one it makes where it was
// missing (.vscode/tasks.json, .cursor/), and a repository it enters in
// the index as a submodule (evil/.git: the user's git status would run
// git there), are named in the next approval question, natively
// (planted, and a reason) and through MCP (the elicitation's text), as
// root and as an ordinary user.
func TestSandboxProjectRunners(t *testing.T) {
	for _, r := range runners(t) {
		for _, front := range []string{"native", "mcp"} {
			t.Run(r.name+"/"+front, func(t *testing.T) {
				t.Parallel()
				g := newGitRepo(t, r)
				there := map[string]string{
					".vscode/settings.json": "{}\n", ".claude/settings.json": "{}\n", ".mcp.json": "{}\n",
					".envrc": "export A=1\n", ".idea/workspace.xml": "<project/>\n",
				}
				for name, content := range there {
					p := filepath.Join(g.root, name)
					must(t, os.MkdirAll(filepath.Dir(p), 0o755))
					must(t, os.WriteFile(p, []byte(content), 0o644))
					g.chown(t, filepath.Dir(p))
					g.chown(t, p)
				}
				var paths []string
				for name := range there {
					paths = append(paths, filepath.Join(g.root, name))
				}
				c, asked := startAsking(t, front, g)
				c.runLine(t, front, attacks(t, g, "runners", paths))
				c.runLine(t, front, "sh -c 'printf %s evil > .vscode/tasks.json; mkdir .cursor && printf %s evil > .cursor/hooks.json'; echo made")
				c.runLine(t, front, "git init -q evil && git -C evil -c user.name=e -c user.email=e@e commit -q --allow-empty -m x && "+
					"git update-index --add --cacheinfo 160000,$(git -C evil rev-parse HEAD),evil && git -C evil config core.fsmonitor false; echo made")
				for name, content := range there {
					if b, _ := os.ReadFile(filepath.Join(g.root, name)); string(b) != content {
						t.Errorf("%s changed: %q", name, b)
					}
				}
				c.askLine(t, front, "true")
				q := asked()
				for _, name := range []string{".vscode/tasks.json", ".cursor/hooks.json", "evil/.git"} {
					if !strings.Contains(q, name) {
						t.Errorf("the question does not name %s: %s", name, q)
					}
				}
				for name := range there {
					if strings.Contains(q, name) {
						t.Errorf("the question names %s, which nothing changed: %s", name, q)
					}
				}
				c.askLine(t, front, "true")
				if q := asked(); strings.Contains(q, "tasks.json") {
					t.Errorf("a second question names again what the first did: %s", q)
				}
			})
		}
	}
}

// startAsking starts a helper for g's root, as g's user, whose host can
// be asked (and declines): asked returns what the last question showed.
func startAsking(t *testing.T, front string, g gitRepo) (*client, func() string) {
	t.Helper()
	var mu sync.Mutex
	last := ""
	env := withEnv("HOME="+g.home, "GIT_CONFIG_NOSYSTEM=1")
	args := []string(nil)
	if front == "mcp" {
		args = []string{"--mcp"}
	}
	probe := start(t, "ndjson", g.root, nil, env, g.r.cred)
	needMounts(t, g, initSandbox(t, probe))
	probe.stop()
	c := start(t, "ndjson", g.root, args, env, g.r.cred)
	c.onRequest = func(m message) any {
		mu.Lock()
		defer mu.Unlock()
		last = string(m.Params)
		if front == "mcp" {
			return map[string]string{"action": "decline"}
		}
		return map[string]string{"decision": "deny"}
	}
	if front == "native" {
		_, rerr := c.call("initialize", map[string]any{"capabilities": map[string]bool{"approval": true}})
		must(t, errOf(rerr))
	} else {
		_, rerr := c.call("initialize", map[string]any{"protocolVersion": "2025-06-18",
			"capabilities": map[string]any{"elicitation": map[string]any{}}, "clientInfo": map[string]string{"name": "e2e", "version": "1"}})
		must(t, errOf(rerr))
		c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	}
	return c, func() string {
		mu.Lock()
		defer mu.Unlock()
		q := last
		last = ""
		if front == "native" {
			var p struct {
				Planted []string `json:"planted"`
				Reasons []string `json:"reasons"`
			}
			json.Unmarshal([]byte(q), &p)
			if len(p.Planted) > 0 && !strings.Contains(strings.Join(p.Reasons, "\n"), p.Planted[0]) {
				t.Errorf("planted %v, but no reason names them: %v", p.Planted, p.Reasons)
			}
			return strings.Join(p.Planted, " ")
		}
		return q
	}
}

// askLine runs a line the host is asked about (it asks for the sandbox
// off), and expects the refusal.
func (c *client) askLine(t *testing.T, front, command string) {
	t.Helper()
	if front == "native" {
		if _, rerr := c.call("exec/run", map[string]any{"command": command, "sandbox": "off"}); rerr == nil {
			t.Errorf("%q ran with the sandbox off, unasked", command)
		}
		return
	}
	raw, rerr := c.call("tools/call", map[string]any{"name": "terminal", "arguments": map[string]any{"command": command, "sandbox": "off"}})
	if rerr != nil || !strings.Contains(string(raw), `"isError":true`) {
		t.Errorf("%q with the sandbox off: %s %v, want a refusal", command, raw, rerr)
	}
}

func errOf(e *rpcError) error {
	if e == nil {
		return nil
	}
	return &json.UnsupportedValueError{Str: e.Message}
}
