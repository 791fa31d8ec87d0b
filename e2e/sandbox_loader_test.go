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
