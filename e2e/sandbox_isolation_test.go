//go:build linux

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// Two sessions of one helper are two sandboxes: a command in one cannot
// kill the other's process, nor the trampoline watching it, nor the spare
// made ahead for the next command, and cannot type into the other's
// terminal.
func TestSandboxSessionsCannotReachEachOther(t *testing.T) {
	s := startConfined(t, "ndjson")
	s.c.exec(map[string]any{"command": "true"})
	held := readyAhead(t, s) // B starts on it: a spare stays beside B
	m := marker()
	b := s.c.exec(map[string]any{"command": "echo ready; exec sleep " + m, "background": true, "readyPattern": "ready"})
	if b.SessionID == "" || b.Pid == 0 {
		t.Fatalf("session B did not start: %s %q", describe(b), b.Output)
	}
	tty, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/0", b.Pid))
	if err != nil || !strings.HasPrefix(tty, "/dev/pts/") {
		t.Fatalf("session B's terminal: %q %v", tty, err)
	}
	before := sparesOf(s.root)
	targets := filepath.Join(t.TempDir(), "targets")
	cmd, open := gated(t, fmt.Sprintf(`for p in $(cat %s); do kill -9 $p; echo kill-$p=$?; done; `+
		`echo INTRUDER-%s > %s; echo write=$?`, targets, m, tty))
	a := s.c.exec(map[string]any{"command": cmd, "background": true})
	victims := []int{b.Pid}
	var ahead int
	if !held { // held namespaces need no spare
		waitFor(t, "a spare made ahead beside A", func() bool {
			for _, p := range sparesOf(s.root) {
				if !slices.Contains(before, p) {
					ahead = p
				}
			}
			return ahead != 0
		})
		victims = append(victims, ahead)
	}
	// A's own trampoline, in A's namespaces and Landlock domain, is
	// A's to end; every other is out of its reach.
	own, _ := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", a.Pid))
	for _, p := range before {
		if ns, _ := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", p)); ns != own {
			victims = append(victims, p)
		}
	}
	var list []string
	for _, p := range victims {
		list = append(list, strconv.Itoa(p))
	}
	t.Logf("A tries B %d, the spare ahead %d and the trampolines of others in %v", b.Pid, ahead, victims[1:])
	must(t, os.WriteFile(targets, []byte(strings.Join(list, " ")), 0o644))
	open()
	end := s.c.run("session/read", map[string]any{"sessionId": a.SessionID, "until": "exit", "yieldMs": 30000})
	out := a.Output + end.Output
	if !strings.Contains(out, "write=") {
		t.Fatalf("session A did not run to its end: %s %q", describe(end), out)
	}
	for _, p := range victims {
		if strings.Contains(out, fmt.Sprintf("kill-%d=0", p)) || syscall.Kill(p, 0) != nil {
			t.Errorf("session A killed %d (B %d, spare ahead %d): %q", p, b.Pid, ahead, out)
		}
	}
	if strings.Contains(out, "write=0") {
		t.Errorf("session A wrote into session B's terminal: %q", out)
	}
	gone := s.c.run("session/kill", map[string]any{"sessionId": b.SessionID})
	if strings.Contains(gone.Output, "INTRUDER-"+m) {
		t.Errorf("session B's output holds what A wrote: %q", gone.Output)
	}
	noneLeft(t, m)
}

// keyScript adds a key named name to the command's user keyring
// ("add"), or looks it up there ("find"), through python3's ctypes.
func keyScript(verb, name string) string {
	return fmt.Sprintf(`python3 - <<'PY'
import ctypes, os, platform
nr = {"x86_64": (248, 250), "aarch64": (217, 219)}[platform.machine()]
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
if %q == "add":
    r = libc.syscall(nr[0], b"user", b"%s", b"SECRET", 6, -4)
else:
    r = libc.syscall(nr[1], 10, -4, b"user", b"%s", 0)
print("%s-ok" if r > 0 else "%s-failed %%d" %% ctypes.get_errno())
PY`, verb, name, name, verb, verb)
}

// A confined command reaches no kernel keyring, on the plan's first
// command and on the spare: not the user's keyring the test put a key in
// (root's is every root process's), and it cannot add a key to pass to
// another session.
func TestSandboxCommandsReachNoKeyring(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 here to reach a keyring")
	}
	name := "termhelper-e2e-" + marker()
	id, err := unix.AddKey("user", name, []byte("SECRET"), unix.KEY_SPEC_USER_KEYRING)
	if err != nil {
		t.Skipf("no keyring for the test itself: %v", err)
	}
	t.Cleanup(func() { unix.KeyctlInt(unix.KEYCTL_UNLINK, id, unix.KEY_SPEC_USER_KEYRING, 0, 0) })
	s := startConfined(t, "ndjson")
	for i := 0; i < 3; i++ {
		if i > 0 {
			settled(t, s)
		}
		if r := s.c.exec(map[string]any{"command": keyScript("find", name)}); !strings.Contains(r.Output, "find-failed") {
			t.Errorf("command %d found the user's key: %s %q", i, describe(r), r.Output)
		}
		if r := s.c.exec(map[string]any{"command": keyScript("add", name+"-"+strconv.Itoa(i))}); !strings.Contains(r.Output, "add-failed") {
			t.Errorf("command %d added a key: %s %q", i, describe(r), r.Output)
		}
	}
}
