//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type checkAnswer struct {
	Decision string   `json:"decision"`
	Reasons  []string `json:"reasons"`
}

func (c *client) check(command string) checkAnswer {
	c.t.Helper()
	raw, rerr := c.call("policy/check", map[string]any{"command": command})
	require.Nil(c.t, rerr, "policy/check %q", command)
	var a checkAnswer
	must(c.t, json.Unmarshal(raw, &a))
	return a
}

// TestPolicyReadOfSecretsIsAsked: the policy's read rules alone, with
// the sandbox off (with it, a read outside the root that is no secret is
// held by the sandbox and not asked about: TestPolicyCheckWithTheSandbox).
func TestPolicyReadOfSecretsIsAsked(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "README.md"), []byte("hello\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".env"), []byte("API_KEY=1\n"), 0o600))
	c := start(t, "ndjson", root, nil, withEnv("HOME="+home), sandboxOff)
	cases := map[string]string{
		"cat .env":           `".env" in "cat .env": reads a protected path: .env*`,
		"cat ~/.ssh/id_rsa":  `"~/.ssh/id_rsa" in "cat ~/.ssh/id_rsa": reads a protected path: .ssh/`,
		"grep -r password ~": `"~" in "grep -r password ~": reads a path outside the project root: ` + home,
		"cat ../outside":     `"../outside" in "cat ../outside": reads a path outside the project root: ` + filepath.Join(filepath.Dir(root), "outside"),
		"head /etc/shadow":   `"/etc/shadow" in "head /etc/shadow": reads a protected path: /etc/shadow`,
		"cat < .env":         `"< .env" in "cat < .env": reads a protected path: .env*`,
	}
	for command, reason := range cases {
		a := c.check(command)
		assert.Equal(t, "ask", a.Decision, command)
		assert.Contains(t, a.Reasons, reason, command)
	}
	a := c.check("cat README.md")
	assert.Equal(t, "allow", a.Decision, "%v", a.Reasons)
	assert.Empty(t, a.Reasons)
	r := c.exec(map[string]any{"command": "cat README.md"})
	assert.Equal(t, "hello", strings.TrimSpace(r.Output))
}

// TestPolicyReadRunsOnlyWhenApproved: the host is asked before cat .env
// runs, and a refusal keeps the file's text out of every answer.
func TestPolicyReadRunsOnlyWhenApproved(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, ".env"), []byte("API_KEY=sk-e2e-secret\n"), 0o600))
	var asked atomic.Int32
	c := approver(t, root, "deny", &asked)
	raw, rerr := c.call("exec/run", map[string]any{"command": "cat .env"})
	require.NotNil(t, rerr)
	assert.Equal(t, -32004, rerr.Code)
	assert.Equal(t, int32(1), asked.Load())
	assert.NotContains(t, string(raw)+string(rerr.Data), "sk-e2e-secret")
	assert.Contains(t, string(rerr.Data), "reads a protected path")
}

// fakeTool puts a script named name first on the helper's PATH, so that
// approving it runs nothing real.
func fakeTool(t *testing.T, name string) opt {
	bin := t.TempDir()
	script := "#!/bin/sh\necho \"" + name + " $*\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755))
	return withEnv("PATH=" + bin + ":" + os.Getenv("PATH"))
}

func TestPolicyReadAlwaysIsNarrow(t *testing.T) {
	root := t.TempDir()
	var asked atomic.Int32
	c := start(t, "ndjson", root, nil, fakeTool(t, "npm"), sandboxOff)
	c.onRequest = func(m message) any {
		asked.Add(1)
		return map[string]string{"decision": "always"}
	}
	_, rerr := c.call("initialize", map[string]any{"capabilities": map[string]bool{"approval": true}})
	require.Nil(t, rerr)

	r := c.exec(map[string]any{"command": "npm install"})
	assert.Equal(t, "npm install", strings.TrimSpace(r.Output))
	require.Equal(t, int32(1), asked.Load())
	r = c.exec(map[string]any{"command": "npm install lodash"})
	assert.Equal(t, "npm install lodash", strings.TrimSpace(r.Output))
	assert.Equal(t, int32(1), asked.Load(), "npm install was approved for good")
	assert.Equal(t, "ask", c.check("npm publish").Decision, "always on npm install never approves npm publish")
	c.exec(map[string]any{"command": "npm publish"})
	assert.Equal(t, int32(2), asked.Load(), "npm publish is asked about")

	data, err := os.ReadFile(filepath.Join(root, ".cfg-"+t.Name(), "allow.json"))
	require.NoError(t, err)
	assert.Contains(t, string(data), `"npm install"`)
	assert.NotContains(t, string(data), `"npm"`)
}

func TestPolicyReadOldAlwaysEntryStillAllows(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, ".cfg-"+t.Name())
	require.NoError(t, os.MkdirAll(cfg, 0o700))
	old, err := json.Marshal(map[string]any{"version": 1, "roots": map[string][]string{root: {"npm"}}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(cfg, "allow.json"), old, 0o600))
	var asked atomic.Int32
	c := approver(t, root, "deny", &asked)
	a := c.check("npm publish")
	assert.Equal(t, "allow", a.Decision, "%v", a.Reasons)
	assert.Equal(t, "ask", c.check("cat .env").Decision, "an old entry for npm says nothing about cat")
}
