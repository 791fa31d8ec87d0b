//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sandbox = "container" in the user's config: the container is the
// sandbox, termhelper confines nothing and initialize says so.
func TestSandboxContainerIsReportedAndOff(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	user := filepath.Join(root, ".cfg-"+t.Name())
	must(t, os.MkdirAll(user, 0o700))
	must(t, os.WriteFile(filepath.Join(user, "config.toml"), []byte("sandbox = \"container\"\n"), 0o600))
	c := start(t, "ndjson", root, nil)
	if s := initSandbox(t, c); s.Mode != "off" || s.Backend != "container" || s.Network != "open" || s.Reason != nil {
		t.Fatalf("initialize's sandbox: %+v", s)
	}
	outside := filepath.Join(t.TempDir(), "written")
	c.exec(map[string]any{"command": "touch " + outside})
	if _, err := os.Stat(outside); err != nil {
		t.Fatalf("a write outside the root was stopped: the sandbox is not off: %v", err)
	}
}

// A project's file cannot make its container the sandbox: that would
// turn off the user's.
func TestSandboxContainerNotFromTheProject(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, ".termhelper.toml"), []byte("sandbox = \"container\"\n"), 0o644))
	c := start(t, "ndjson", root, nil)
	if s := initSandbox(t, c); s.Backend == "container" {
		t.Fatalf("the project's sandbox = \"container\" was taken: %+v", s)
	}
	waitFor(t, "the ignored key named at start", func() bool {
		return strings.Contains(c.stderr.String(), ".termhelper.toml:1: sandbox: ignored")
	})
}
