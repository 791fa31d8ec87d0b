package main

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/termhelper/termhelper/platform"
)

// TestMain lets the test binary be the login shell's supervisor, as
// termhelper is.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == platform.LoginEnvCommand {
		os.Exit(platform.ServeLoginEnv(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// loginUser gives the test a user of its own: a home whose profile sets
// FROM_PROFILE and counts its runs, and a cache folder.
func loginUser(t *testing.T) (runs string) {
	if runtime.GOOS == "windows" {
		t.Skip("no login shell on Windows")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("SHELL", "/bin/sh")
	runs = filepath.Join(home, "runs")
	profile := "echo run >> '" + runs + "'\nexport FROM_PROFILE=yes\n"
	if err := os.WriteFile(filepath.Join(home, ".profile"), []byte(profile), 0o644); err != nil {
		t.Fatal(err)
	}
	return runs
}

// A start that comes after close (the helper's input ended at once) must
// leave nothing running.
func TestLazyLoginStartAfterClose(t *testing.T) {
	loginUser(t)
	l := &lazyLogin{}
	l.close()
	l.start(nil)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.env != nil {
		t.Fatal("start after close opened the login environment")
	}
}

// With a fresh cache the first command has the login environment, before
// start, and start runs no shell.
func TestLazyLoginFromCache(t *testing.T) {
	runs := loginUser(t)
	first := &lazyLogin{}
	first.start(nil)
	deadline := time.Now().Add(30 * time.Second)
	for !slices.Contains(first.base(), "FROM_PROFILE=yes") {
		if time.Now().After(deadline) {
			t.Fatal("the login environment was never read")
		}
		time.Sleep(10 * time.Millisecond)
	}
	first.close()

	second := &lazyLogin{}
	if !slices.Contains(second.base(), "FROM_PROFILE=yes") {
		t.Fatal("the first command of a helper with a fresh cache lacks the login environment")
	}
	second.start(nil)
	second.close()
	if b, _ := os.ReadFile(runs); string(b) != "run\n" {
		t.Errorf("login shells run: %q, want one", b)
	}
}
