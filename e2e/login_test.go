//go:build linux

package e2e

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// loginProfile stands for rc files that take a lock (as pyenv's shim lock
// is taken, with noclobber) and release it in an EXIT trap. Each run is
// counted in runs; a run that finds the lock taken notes it in busy, one
// whose work is cut short notes it in interrupted.
const loginProfile = `echo run >> "$HOME/runs"
export FROM_PROFILE=from-profile
if ( set -o noclobber; : > "$HOME/lock" ) 2>/dev/null; then
	trap 'rm -f "$HOME/lock"' EXIT
	sleep 0.4 || echo "sleep: $?" >> "$HOME/interrupted"
else
	echo busy >> "$HOME/busy"
fi
`

// loginHome is a user's home and cache folder for the login shell tests.
type loginHome struct {
	home, cache string
}

func newLoginHome(t *testing.T) loginHome {
	h := loginHome{home: t.TempDir(), cache: t.TempDir()}
	must(t, os.WriteFile(filepath.Join(h.home, ".bash_profile"), []byte(loginProfile), 0o644))
	return h
}

// start runs a helper as this user, with bash as the login shell.
func (h loginHome) start(t *testing.T) *client {
	t.Helper()
	return start(t, "ndjson", t.TempDir(), nil,
		withEnv("SHELL=/bin/bash", "HOME="+h.home, "XDG_CACHE_HOME="+h.cache))
}

func (h loginHome) runs(t *testing.T) int {
	b, err := os.ReadFile(filepath.Join(h.home, "runs"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

func (h loginHome) cached() bool {
	m, _ := filepath.Glob(filepath.Join(h.cache, "termhelper", "loginenv", "*.json"))
	return len(m) > 0
}

// settle waits, bounded, for every supervisor of this home's login shell
// to end: the shell's time limit (10 s) and its grace, with room to spare.
// The supervisor is the only process with the cache folder in its
// command line.
func (h loginHome) settle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(25 * time.Second)
	for len(pidsWith(h.cache)) > 0 {
		if time.Now().After(deadline) {
			pids := pidsWith(h.cache)
			for _, p := range pids {
				syscall.Kill(p, syscall.SIGKILL)
			}
			t.Fatalf("the login shell's supervisor did not end: %v", pids)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// intact fails if a login shell left its lock, met another's, or was cut
// short.
func (h loginHome) intact(t *testing.T, when string) {
	t.Helper()
	for _, name := range []string{"lock", "busy", "interrupted"} {
		if b, err := os.ReadFile(filepath.Join(h.home, name)); err == nil {
			t.Fatalf("%s: %s found (%q): a login shell was broken", when, name, b)
		}
	}
}

// endHelper ends the helper as a host would: its input closed, SIGTERM or
// SIGKILL, and waits for it to exit.
func endHelper(t *testing.T, c *client, how string) {
	t.Helper()
	switch how {
	case "eof":
		c.stdin.Close()
	case "sigterm":
		c.cmd.Process.Signal(syscall.SIGTERM)
	case "sigkill":
		c.cmd.Process.Kill()
	}
	within(t, c.exited, "the helper to exit")
}

// cpuLoad keeps n busy processes running until the test ends, so that the
// login shell and the helper's end race as on a loaded machine.
func cpuLoad(t *testing.T, n int) {
	for range n {
		cmd := exec.Command("sh", "-c", "while :; do :; done")
		must(t, cmd.Start())
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
		})
	}
}

func TestLoginShellOutlivesHelperEOF(t *testing.T)     { loginRounds(t, "eof") }
func TestLoginShellOutlivesHelperSIGTERM(t *testing.T) { loginRounds(t, "sigterm") }
func TestLoginShellOutlivesHelperSIGKILL(t *testing.T) { loginRounds(t, "sigkill") }

// loginRounds ends a helper at a random moment soon after its first
// answer, after which it starts the login shell (or, every other round,
// soon after the shell started), and checks that the shell was
// left to finish its rc files; then that the next helper takes the
// environment from the cache, from its first command, with no shell.
func loginRounds(t *testing.T, how string) {
	cpuLoad(t, 2)
	for round := range 3 {
		h := newLoginHome(t)
		c := h.start(t)
		c.exec(map[string]any{"command": "true"})
		if round%2 == 1 { // surely while the rc file holds its lock
			waitFor(t, "the login shell to start", func() bool { return h.runs(t) > 0 })
		}
		time.Sleep(time.Duration(rand.N(300)) * time.Millisecond)
		endHelper(t, c, how)
		h.settle(t)
		h.intact(t, how)
		cached := h.cached()
		if !cached {
			h.fill(t) // ended before it started the shell
		}
		h.fromCache(t)
		t.Logf("round %d: the ended helper's login shell cached: %v", round, cached)
	}
}

// fill lets a helper read the login environment, and cache it.
func (h loginHome) fill(t *testing.T) {
	t.Helper()
	c := h.start(t)
	waitFor(t, "the login environment", func() bool {
		return strings.TrimSpace(c.exec(map[string]any{"command": `echo "$FROM_PROFILE"`}).Output) == "from-profile"
	})
	endHelper(t, c, "eof")
	h.settle(t)
	h.intact(t, "filling the cache")
}

// fromCache checks that a helper sees the cached environment in its first
// command and starts no login shell.
func (h loginHome) fromCache(t *testing.T) {
	t.Helper()
	runs := h.runs(t)
	c := h.start(t)
	out := c.exec(map[string]any{"command": `echo "$FROM_PROFILE"`}).Output
	if strings.TrimSpace(out) != "from-profile" {
		t.Fatalf("the first command of a helper with a fresh cache saw FROM_PROFILE=%q", out)
	}
	endHelper(t, c, "eof")
	h.settle(t)
	if n := h.runs(t); n != runs {
		t.Fatalf("%d login shell(s) ran with a fresh cache, want none", n-runs)
	}
	h.intact(t, "with a fresh cache")
}
