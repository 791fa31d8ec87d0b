//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestLoginShellRunsNoFileOfTheProject: the helper reads the user's login
// environment with their own shell, outside any sandbox. Rc files that
// source a file of the folder they start in (dotenv and autoenv plugins
// do) must not find the project's, which any confined command may write:
// the shell starts in the home folder, wherever the host started the
// helper.
func TestLoginShellRunsNoFileOfTheProject(t *testing.T) {
	h := newLoginHome(t)
	root, outside := t.TempDir(), t.TempDir()
	ran := filepath.Join(outside, "ran")
	must(t, os.WriteFile(filepath.Join(root, "proj-rc.sh"), []byte("touch "+ran+"\n"), 0o644))
	profile := "[ -f ./proj-rc.sh ] && . ./proj-rc.sh\n" + loginProfile
	must(t, os.WriteFile(filepath.Join(h.home, ".bash_profile"), []byte(profile), 0o644))
	c := start(t, "ndjson", root, nil, withEnv("SHELL=/bin/bash", "HOME="+h.home, "XDG_CACHE_HOME="+h.cache),
		func(cmd *exec.Cmd) { cmd.Dir = root }) // as a host that starts it in the project
	c.exec(map[string]any{"command": "true"})
	waitFor(t, "the login shell to read the profile", func() bool { return h.runs(t) > 0 })
	endHelper(t, c, "eof")
	h.settle(t)
	if _, err := os.Stat(ran); err == nil {
		t.Error("the login shell ran a file of the project, outside the sandbox")
	}
}
