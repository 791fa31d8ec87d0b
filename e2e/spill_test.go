//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSpillFolderTakenByAnotherUser: another user (uid 65534) made
// $TMPDIR/termhelper-spill first, open to all; the helper still spills,
// into a folder of its own, and writes nothing into theirs.
func TestSpillFolderTakenByAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a folder to another user needs root")
	}
	tmp := t.TempDir()
	theirs := filepath.Join(tmp, "termhelper-spill")
	require.NoError(t, os.Mkdir(theirs, 0o777))
	require.NoError(t, os.Chmod(theirs, 0o777))
	require.NoError(t, os.Chown(theirs, 65534, 65534))

	c := start(t, "ndjson", t.TempDir(), nil, withEnv("TMPDIR="+tmp))
	r := c.exec(map[string]any{"command": "seq -f '%050g' 1 20000"})
	assert.Equal(t, 0, *r.ExitCode)
	require.True(t, r.Truncated)
	require.NotNil(t, r.FullOutputPath)
	path := *r.FullOutputPath
	dir := filepath.Dir(path)
	assert.NotEqual(t, theirs, dir, "spilled into another user's folder")
	assert.Equal(t, tmp, filepath.Dir(dir), "the spill folder is in $TMPDIR")

	fi, err := os.Lstat(dir)
	require.NoError(t, err)
	assert.True(t, fi.IsDir())
	assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
	assert.Equal(t, uint32(os.Geteuid()), fi.Sys().(*syscall.Stat_t).Uid)
	fi, err = os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, 20000*51, len(data), "the spill file holds the whole output")

	entries, err := os.ReadDir(theirs)
	require.NoError(t, err)
	assert.Empty(t, entries, "wrote into the other user's folder")
	fi, err = os.Stat(theirs)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o777), fi.Mode().Perm(), "changed the other user's folder")
}
