package platform_test

import (
	"errors"
	"os"
	"testing"

	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/sandbox"
)

func TestASandboxIsRefusedOnWindows(t *testing.T) {
	plan := &sandbox.Plan{Mode: sandbox.WorkspaceWrite, Network: sandbox.NetworkOpen, Root: t.TempDir(), TempDir: t.TempDir()}
	_, err := platform.Start(platform.Spec{Argv: []string{"cmd.exe", "/c", "exit 0"}, Dir: plan.Root, Env: os.Environ(), Confine: plan.Confiner()})
	if !errors.Is(err, sandbox.ErrUnavailable) {
		t.Fatalf("a sandboxed start on Windows: %v", err)
	}
}
