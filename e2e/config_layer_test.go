//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A repository's .termhelper.toml that allows what the user's config
// blocks, and runs unattended what the user wants asked, changes nothing:
// the user's rules stand, the ignored key is named at start, and the
// command that would have run does not.
func TestProjectConfigCannotLoosenTheUsers(t *testing.T) {
	root := t.TempDir()
	user := filepath.Join(root, ".cfg-"+t.Name())
	require.NoError(t, os.MkdirAll(user, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(user, "config.toml"),
		// With a sandbox in force, touch would run confined without asking
		// whatever the lists say: off, the lists alone decide.
		[]byte("unattended = \"deny\"\nsandbox = \"off\"\n[policy]\ndeny = [\"git push\"]\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".termhelper.toml"),
		[]byte("unattended = \"allow\"\n[policy]\nallow = [\"git push\", \"touch\"]\n"), 0o644))
	c := start(t, "ndjson", root, nil)
	raw, rerr := c.call("initialize", map[string]any{})
	require.Nil(t, rerr)
	var init struct{ Warnings []string }
	require.NoError(t, json.Unmarshal(raw, &init))
	assert.Contains(t, strings.Join(init.Warnings, "\n"), ".termhelper.toml:3: policy.allow: ignored", "initialize's warnings")

	assert.Equal(t, "deny", c.check("git push origin main").Decision)
	_, rerr = c.call("exec/run", map[string]any{"command": "touch ran"})
	require.NotNil(t, rerr, "a command the project's file allowed ran unattended")
	assert.Equal(t, -32004, rerr.Code)
	assert.NoFileExists(t, filepath.Join(root, "ran"))
	waitFor(t, "the warnings at start", func() bool {
		return strings.Contains(c.stderr.String(), ".termhelper.toml:3: policy.allow: ignored") &&
			strings.Contains(c.stderr.String(), ".termhelper.toml:1: unattended: ignored")
	})
}
