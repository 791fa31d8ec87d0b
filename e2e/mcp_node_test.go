//go:build linux

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// nodeWatchdog bounds npm ci and the whole node run; a hang fails the test.
const nodeWatchdog = 3 * time.Minute

// skipUnderStress skips what runs big node programs under make
// test-stress, whose load (spinners on every core, the system's programs
// evicted from the page cache every few seconds) starves node's start
// itself: a host or an SDK client then outlasts any watchdog, and the
// rest of the suite beside it starves too. It runs in every other pass.
func skipUnderStress(t *testing.T, what string) {
	t.Helper()
	if os.Getenv(stressEnv) != "" {
		t.Skipf("%s: not under make test-stress, where node's own start outlasts the watchdogs (%s is set)", what, stressEnv)
	}
}

// stressEnv is set by make test-stress.
const stressEnv = "TERMHELPER_STRESS"

// TestMCPNode drives the built binary with the TypeScript SDK's MCP client
// (e2e/mcp-node): the same call shapes as the Go SDK tests, from the other
// SDK hosts are built on; and the native protocol with vscode-jsonrpc, as
// a VS Code extension drives it.
func TestMCPNode(t *testing.T) {
	skipUnderStress(t, "the TypeScript SDK and vscode-jsonrpc clients")
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: the TypeScript SDK client test needs node and npm", tool)
		}
	}
	dir, err := filepath.Abs("mcp-node")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), nodeWatchdog)
	defer cancel()
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		runIn(ctx, t, dir, nil, "npm", "ci", "--no-audit", "--no-fund")
	}
	runIn(ctx, t, dir, []string{"TERMHELPER_BIN=" + binary}, "node", "--test", "mcp.test.mjs", "jsonrpc.test.mjs")
}

// runIn runs a command in dir with its output in the test log, failing the
// test if it fails or outlives ctx.
func runIn(ctx context.Context, t *testing.T, dir string, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v (watchdog %s)\n%s", name, args, err, nodeWatchdog, out)
	}
	t.Logf("%s %v:\n%s", name, args, out)
}
