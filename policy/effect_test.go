package policy

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// The tests in this file show what a line would do next to the verdict:
// they run it for real, unconfined, in a scratch folder, and look for the
// marker file it makes. A line that makes the marker must never be
// allowed.

// scratchRoot is an empty, symlink-free folder to use as a project root.
func scratchRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(root)
}

// runIn runs argv in dir with env added to the test's own environment,
// and waits at most a watchdog's time. Its exit status does not matter:
// only what it leaves behind.
func runIn(t *testing.T, dir string, env []string, argv ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%q did not end: %v", argv, ctx.Err())
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%q: %v", argv, err)
	}
	t.Logf("%q: %s", argv, out)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func writeScript(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func needUnix(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("runs /bin/sh, which Windows does not have")
	}
}

// TestRequestEnvPathRunsTheRepositorysLs: an allowed ls with the request's
// PATH pointing into the repository runs the repository's own ls.
func TestRequestEnvPathRunsTheRepositorysLs(t *testing.T) {
	needUnix(t)
	root := scratchRoot(t)
	marker := root + "/PWNED"
	writeScript(t, root+"/tools/ls", "touch "+marker)
	path := root + "/tools:" + os.Getenv("PATH")
	env := map[string]*string{"PATH": &path}
	p := newPosix(testConfig(), root, nil)
	if v := p.Judge("ls", root, Judging{Trusted: true}); v.Decision != Allow {
		t.Fatalf("ls alone: %+v", v)
	}
	v := p.Judge("ls", root, Judging{Trusted: true, Env: env})
	runIn(t, root, []string{"PATH=" + path}, "/bin/sh", "-c", "ls")
	if !exists(marker) {
		t.Fatal("the repository's ls did not run: the test proves nothing")
	}
	if v.Decision != Ask || !containsReason(v, `"PATH": the request's env sets PATH`) {
		t.Fatalf("ls with PATH into the repository in the request's env: %+v", v)
	}
}

// TestRequestEnvGitConfigRunsACommand: GIT_CONFIG_* in the request's env
// turn an allowed git status into any command (core.fsmonitor).
func TestRequestEnvGitConfigRunsACommand(t *testing.T) {
	needUnix(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git here")
	}
	root := scratchRoot(t)
	marker := root + "/PWNED"
	runIn(t, root, nil, "git", "init", "-q")
	vars := map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor",
		"GIT_CONFIG_VALUE_0": "touch " + marker + " #"}
	env, list := map[string]*string{}, []string{}
	for k, v := range vars {
		env[k] = &v
		list = append(list, k+"="+v)
	}
	cfg := testConfig()
	cfg.Policy.Allow = append(cfg.Policy.Allow, "git status")
	p := newPosix(cfg, root, nil)
	if v := p.Judge("git status", root, Judging{Trusted: true}); v.Decision != Allow {
		t.Fatalf("git status alone: %+v", v)
	}
	v := p.Judge("git status", root, Judging{Trusted: true, Env: env})
	runIn(t, root, list, "git", "status", "--short")
	if !exists(marker) {
		t.Fatal("git did not run core.fsmonitor: the test proves nothing")
	}
	if v.Decision != Ask || !containsReason(v, "GIT_CONFIG_VALUE_0") {
		t.Fatalf("git status with GIT_CONFIG_* in the request's env: %+v", v)
	}
}
