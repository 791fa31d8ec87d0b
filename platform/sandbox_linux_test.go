package platform

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/termhelper/termhelper/sandbox"
)

// The test binary stands for termhelper as the sandbox's trampoline too.
func init() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.Command {
		os.Exit(sandbox.Serve(os.Args[2:]))
	}
}

// confinedPlan is a workspace-write plan for a fresh root, or a skip
// where this machine has no sandbox.
func confinedPlan(t *testing.T) *sandbox.Plan {
	t.Helper()
	if st := sandbox.Probe(sandbox.WorkspaceWrite, sandbox.NetworkOpen); st.Mode == sandbox.Off {
		t.Skip("no sandbox here: " + st.Reason)
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, tmp := filepath.Join(base, "root"), filepath.Join(base, "tmp")
	os.Mkdir(root, 0o755)
	os.Mkdir(tmp, 0o700)
	p := sandbox.Defaults(root, filepath.Join(base, "home"), func(string) string { return "" })
	p.Mode, p.Network, p.TempDir = sandbox.WorkspaceWrite, sandbox.NetworkOpen, tmp
	return &p
}

func TestASandboxedReadIsSeenWaitingAndTheTreeKillLeavesNothing(t *testing.T) {
	plan := confinedPlan(t)
	tag := "sbx-" + t.Name()
	p, err := Start(Spec{Argv: ShellArgv("/bin/bash", `sleep 1000 & read -p "name: " x`), Dir: plan.Root,
		Env: os.Environ(), PTY: true, Tag: tag, Sandbox: plan})
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, p.Output)
	t.Cleanup(func() {
		p.Kill(SIGKILL, 0)
		p.Wait()
		p.Close()
	})
	st := eventually(t, p, "a confined read of the terminal", func(s InputState) bool { return s.Waiting })
	if !st.Known || st.Secret {
		t.Fatalf("a plain read, confined: %+v", st)
	}
	p.Kill(SIGTERM, 5*time.Second)
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	if m := treeMembers(p.Pid, tag); len(m) > 0 {
		t.Fatalf("the tree kill left %v", m)
	}
	if d := p.Denied(); d != nil {
		t.Fatalf("nothing was refused, yet Denied says %v", d)
	}
}

func TestASandboxedCommandOnPipesIsConfined(t *testing.T) {
	plan := confinedPlan(t)
	outside := t.TempDir()
	p, err := Start(Spec{Argv: ShellArgv("/bin/sh", `echo inside > made; echo x > "$OUT/escaped"; echo done`),
		Dir: plan.Root, Env: append(os.Environ(), "OUT="+outside), Tag: "sbx-" + t.Name(), Sandbox: plan})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Kill(SIGKILL, 0); p.Close() })
	go p.WriteInitial()
	out, _ := io.ReadAll(p.Output)
	io.Copy(io.Discard, p.Stderr)
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "done") {
		t.Fatalf("output %q", out)
	}
	if _, err := os.Stat(filepath.Join(plan.Root, "made")); err != nil {
		t.Error("the root was not writable on pipes")
	}
	if _, err := os.Stat(filepath.Join(outside, "escaped")); err == nil {
		t.Error("a confined command on pipes wrote outside the root")
	}
}

func TestAPlanThisMachineCannotApplyIsRefusedAtStart(t *testing.T) {
	plan := confinedPlan(t)
	plan.Mode = "sideways"
	if _, err := Start(Spec{Argv: ShellArgv("/bin/sh", "true"), Dir: plan.Root, Env: os.Environ(), Sandbox: plan}); err == nil {
		t.Fatal("a bad plan started")
	}
}
