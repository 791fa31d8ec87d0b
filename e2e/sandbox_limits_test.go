//go:build linux

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// startCapped is startConfined with the process and temporary folder caps
// of the user's config set low.
func startCapped(t *testing.T, maxProcs, tempMiB int, opts ...opt) confined {
	t.Helper()
	cfg := t.TempDir()
	toml := fmt.Sprintf("[limits]\nmax_processes = %d\ntemp_mib = %d\n", maxProcs, tempMiB)
	must(t, os.WriteFile(filepath.Join(cfg, "config.toml"), []byte(toml), 0o600))
	return startConfined(t, "ndjson", append(opts, withEnv("TERMHELPER_CONFIG_DIR="+cfg))...)
}

// reasonHas reports whether the sandbox status's reason names what.
func reasonHas(s confined, what string) bool {
	return strings.Contains(deref(s.status.Reason), what)
}

// A fork loop is stopped at the configured process cap: the answer says
// so, the helper serves on, and nothing of it is left.
func TestSandboxProcessCapStopsAForkLoop(t *testing.T) {
	s := startCapped(t, 64, 0)
	if reasonHas(s, "process limit") {
		t.Skipf("no process cap here: %s", deref(s.status.Reason))
	}
	if !strings.Contains(strings.Join(s.status.Limits, "\n"), "processes: 64 per command") {
		t.Errorf("initialize does not say the process cap holds: %q", s.status.Limits)
	}
	// The first command of a plan starts through a trampoline; once the
	// helper is settled, the next through its spare (the exec stub in
	// held namespaces, where it holds them).
	first := forkLoop(t, s, "the plan's first command")
	settled(t, s)
	second := forkLoop(t, s, "a command started by the spare")
	s.c.stop()
	noneLeft(t, first)
	noneLeft(t, second)
}

// forkLoop runs a fork loop under the cap of 64 and checks that the cap
// stopped it, the answer says so, and the helper serves on; it returns
// the marker in its children's command lines.
func forkLoop(t *testing.T, s confined, which string) string {
	t.Helper()
	m := marker()
	r := s.c.exec(map[string]any{"command": fmt.Sprintf(
		`i=0; while [ $i -lt 6000 ]; do sleep %s & i=$((i+1)); done; echo started=$i`, m)})
	if strings.Contains(r.Output, "started=6000") {
		t.Fatalf("%s: 6000 children started under a cap of 64: %s", which, describe(r))
	}
	if n := len(pidsWith(m)); n > 64 {
		t.Errorf("%s: %d processes under a cap of 64", which, n)
	}
	if !slices.Contains(r.denied(), "limit ") && !strings.Contains(string(r.Sandbox), "process limit 64 reached") {
		t.Errorf("%s: the answer does not say the cap was reached: %s %q", which, r.Sandbox, lastLine(r.Output))
	}
	if got := s.c.exec(map[string]any{"command": "echo still-serving"}); !strings.Contains(got.Output, "still-serving") {
		t.Errorf("%s: the helper stopped serving: %s", which, describe(got))
	}
	return m
}

// A write past the temporary folder's cap fails with no space, the
// answer says so, and the helper serves on.
func TestSandboxTempCapStopsABigWrite(t *testing.T) {
	s := startCapped(t, 0, 8)
	if reasonHas(s, "temporary folder's size limit") {
		t.Skipf("no temporary folder cap here: %s", deref(s.status.Reason))
	}
	if !slices.Contains(s.status.Limits, "temporary folder: 8 MiB per command (tmpfs)") {
		t.Errorf("initialize does not say the temporary folder's cap holds: %q", s.status.Limits)
	}
	r := s.c.exec(map[string]any{"command": `head -c 16777216 /dev/zero > "$TMPDIR/big"; echo rc=$?; du -k "$TMPDIR/big"`})
	if strings.Contains(r.Output, "rc=0") {
		t.Fatalf("16 MiB went into a folder capped at 8 MiB: %q", r.Output)
	}
	if !strings.Contains(strings.ToLower(r.Output), "no space left") {
		t.Errorf("the write did not fail for space: %q", r.Output)
	}
	if !strings.Contains(string(r.Sandbox), "temporary folder limit 8 MiB reached") {
		t.Errorf("the answer does not say the cap was reached: %s", r.Sandbox)
	}
	if got := s.c.exec(map[string]any{"command": `echo small > "$TMPDIR/s" && cat "$TMPDIR/s"`}); !strings.Contains(got.Output, "small") {
		t.Errorf("the helper stopped serving: %s %q", describe(got), got.Output)
	}
}

// Through MCP, a cap the command reached is the result's sandbox line and
// a denial of its structured content.
func TestMCPSandboxCapReached(t *testing.T) {
	probe := startCapped(t, 0, 8)
	if probe.status.Mode == "off" || reasonHas(probe, "temporary folder's size limit") {
		t.Skipf("no temporary folder cap here: %s", deref(probe.status.Reason))
	}
	h := startMCP(t, mcpOpts{config: "[limits]\ntemp_mib = 8\n"})
	res := h.call(map[string]any{"command": `head -c 16777216 /dev/zero > "$TMPDIR/big"`})
	if !strings.Contains(text(res), "sandbox stopped: temporary folder limit 8 MiB reached") {
		t.Errorf("the result does not say the cap was reached: %q", text(res))
	}
	if !strings.Contains(string(structured(t, res).Sandbox), `"kind":"limit"`) {
		t.Errorf("the structured content has no limit: %s", structured(t, res).Sandbox)
	}
}
