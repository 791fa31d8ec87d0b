//go:build linux

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPythonHostExample runs examples/python_host.py, the Python host of
// docs/embedding.md, against the built binary: it must connect, have its
// command approved, print the result and close without leaving anything
// behind.
func TestPythonHostExample(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	version, err := os.ReadFile("../VERSION")
	must(t, err)
	root := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	command := "touch hello.txt && echo made-it"
	cmd := exec.CommandContext(ctx, python, "../examples/python_host.py", root, command)
	// The example shows the approval dialog for a line the policy asks
	// about; with a sandbox in force, touch runs confined without one.
	cmd.Env = append(os.Environ(), "TERMHELPER_BIN="+binary, "SHELL=",
		"TERMHELPER_CONFIG_DIR="+filepath.Join(root, ".cfg"), "TERMHELPER_SANDBOX=off")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python_host.py: %v\n%s", err, out)
	}
	text := string(out)
	for _, want := range []string{
		"connected to termhelper " + strings.TrimSpace(string(version)) + " at " + root,
		"approve? " + command + " (",
		"made-it",
		"exit 0 · ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "hello.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	noneLeft(t, root)
}
