//go:build linux

package e2e

import (
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
		[]byte("unattended = \"deny\"\n[policy]\ndeny = [\"git push\"]\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".termhelper.toml"),
		[]byte("unattended = \"allow\"\n[policy]\nallow = [\"git push\", \"touch\"]\n"), 0o644))
	c := start(t, "ndjson", root, nil)

	assert.Equal(t, "deny", c.check("git push origin main").Decision)
	_, rerr := c.call("exec/run", map[string]any{"command": "touch ran"})
	require.NotNil(t, rerr, "a command the project's file allowed ran unattended")
	assert.Equal(t, -32004, rerr.Code)
	assert.NoFileExists(t, filepath.Join(root, "ran"))
	waitFor(t, "the warnings at start", func() bool {
		return strings.Contains(c.stderr.String(), ".termhelper.toml:3: policy.allow: ignored") &&
			strings.Contains(c.stderr.String(), ".termhelper.toml:1: unattended: ignored")
	})
}
