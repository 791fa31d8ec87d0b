package sandbox

import (
	"debug/elf"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dynamicTrampoline skips unless the trampoline (this test binary) is
// started by the dynamic loader, the only case where the loader's
// variables can act before the sandbox is in force.
func dynamicTrampoline(t *testing.T) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return
		}
	}
	t.Skip("the test binary is linked statically (no cgo here): the dynamic loader never runs the trampoline")
}

// The loader's variables (LD_PRELOAD, LD_AUDIT, LD_DEBUG_OUTPUT, ...) come
// with a request's env. A termhelper built with cgo is started by the
// dynamic loader, which would obey them in the trampoline, before any of
// the sandbox is in force: LD_DEBUG_OUTPUT writes a file anywhere, and
// LD_PRELOAD runs any code unconfined. They must reach the command alone.
func TestTheLoadersVariablesDoNotActBeforeTheSandbox(t *testing.T) {
	dynamicTrampoline(t)
	eachVariant(t, func(t *testing.T, _ variant) {
		w := newWorld(t)
		trace := filepath.Join(w.outside, "ld-trace")
		r := run(t, w.plan(WorkspaceWrite), w.env("LD_DEBUG=files", "LD_DEBUG_OUTPUT="+trace,
			"LD_TERMHELPER_SEEN=kept"), `echo "seen=$LD_TERMHELPER_SEEN"`)
		if !strings.Contains(r.out, "seen=kept") {
			t.Errorf("the command lost the loader's variables (exit %d): %q", r.code, r.out)
		}
		entries, err := os.ReadDir(w.outside)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			t.Errorf("the dynamic loader wrote %s outside the sandbox before it was in force", e.Name())
		}
	})
}
