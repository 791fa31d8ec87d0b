//go:build linux

package e2e

import (
	"debug/elf"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxRequestEnvRunsNothingBeforeTheSandbox: a request's env may
// name the dynamic loader's variables. A termhelper built with cgo (as
// this one, with -race) is started by the loader, and the trampoline
// must not obey them before the sandbox is in force: LD_DEBUG_OUTPUT
// would write outside the root, LD_PRELOAD run code unconfined. The
// command itself still gets them.
func TestSandboxRequestEnvRunsNothingBeforeTheSandbox(t *testing.T) {
	requireDynamicBinary(t)
	s := startConfined(t, "ndjson")
	trace := filepath.Join(s.outside, "ld-trace")
	r := s.c.exec(map[string]any{"command": `echo "seen=$LD_TERMHELPER_SEEN"`,
		"env": map[string]any{"LD_DEBUG": "files", "LD_DEBUG_OUTPUT": trace, "LD_TERMHELPER_SEEN": "kept"}})
	if !strings.Contains(r.Output, "seen=kept") {
		t.Errorf("the command did not get the loader's variables: exit %s, %q", exitOf(r), r.Output)
	}
	entries, err := os.ReadDir(s.outside)
	must(t, err)
	for _, e := range entries {
		t.Errorf("%s appeared outside the root: the dynamic loader obeyed the request before the sandbox", e.Name())
	}
}

// requireDynamicBinary skips where the built binary is static: no loader
// runs it, and what the test guards against cannot happen.
func requireDynamicBinary(t *testing.T) {
	t.Helper()
	f, err := elf.Open(binary)
	must(t, err)
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return
		}
	}
	t.Skip("the built termhelper is static (no cgo here): the dynamic loader never starts it")
}

// TestSandboxCommandCannotDisownItsTempDir: the owner file in the helper's
// temporary folder tells a later helper whether the folder's helper is
// gone. A command writes in that folder; were the file its to rewrite
// (a pid that has ended), the next helper would remove the live one's
// folder and every command of the first would fail to start.
func TestSandboxCommandCannotDisownItsTempDir(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	s := startConfined(t, "ndjson", withEnv("TMPDIR="+tmp))
	if s.status.Backend != "landlock+namespaces" {
		t.Skipf("without namespaces a file inside a writable place cannot be kept read-only (%s)", s.status.Backend)
	}
	dir := lastLine(s.c.exec(map[string]any{"command": `echo "$TMPDIR"`}).Output)
	owner := filepath.Join(dir, ".termhelper-pid")
	before, err := os.ReadFile(owner)
	must(t, err)
	ns, _ := os.Readlink("/proc/self/ns/pid")
	s.c.exec(map[string]any{"command": `printf '%s' "999999 ` + ns + `" > "$TMPDIR/.termhelper-pid"`})
	next := start(t, "ndjson", s.root, nil, withEnv("HOME="+s.home, "TMPDIR="+tmp))
	next.exec(map[string]any{"command": "true"})
	next.stop()
	if r := s.c.exec(map[string]any{"command": "echo still-runs"}); !strings.Contains(r.Output, "still-runs") {
		t.Errorf("the first helper's commands no longer run: %q", r.Output)
	}
	s.c.exec(map[string]any{"command": `rm -f "$TMPDIR/.termhelper-pid"; mv "$TMPDIR/.termhelper-pid" "$TMPDIR/x"`})
	after, err := os.ReadFile(owner)
	if err != nil || string(after) != string(before) {
		t.Errorf("the owner file was changed by a command: %q, %v (was %q)", after, err, before)
	}
}
