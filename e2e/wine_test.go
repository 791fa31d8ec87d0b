//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// termhelper.exe, driven as a host drives it on Windows, under Wine in the
// Debian chroot that .ci/wine builds and enters. Where there is no such
// chroot (or no root to enter it), the tests skip saying so. Under Wine
// PowerShell is an empty stub and a pseudo console shows only what a
// program writes to CONOUT$, so commands run in pipes mode with
// shell = "cmd"; every Windows process is a Linux process there, so the
// tests find a command's tree from /proc as on Linux.

// wine is what the tests need: the script that enters the chroot, and the
// Windows binaries, built once into the package's scratch folder (inside
// the temporary folder, which the script mounts at the same path).
type wine struct {
	script, exe, child string
}

var wineSetup = sync.OnceValues(func() (*wine, error) {
	script, err := filepath.Abs("../.ci/wine")
	if err != nil {
		return nil, err
	}
	if out, err := exec.Command(script, "ready").CombinedOutput(); err != nil {
		return nil, skipReason(strings.TrimSpace(string(out)))
	}
	dir := filepath.Dir(binary)
	w := &wine{script: script, exe: filepath.Join(dir, "termhelper.exe"), child: filepath.Join(dir, "winchild.exe")}
	for out, pkg := range map[string]string{w.exe: "..", w.child: "./testdata/winchild"} {
		build := exec.Command("go", "build", "-o", out, pkg)
		build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
		if msg, err := build.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("building %s for Windows: %v\n%s", pkg, err, msg)
		}
	}
	return w, nil
})

// skipReason is why the Wine tests cannot run here, as opposed to a failure.
type skipReason string

func (s skipReason) Error() string { return string(s) }

func wineFor(t *testing.T) *wine {
	t.Helper()
	w, err := wineSetup()
	if reason, ok := err.(skipReason); ok {
		t.Skip("no Wine here:", string(reason))
	}
	require.NoError(t, err)
	return w
}

// winPath is a Linux path as Wine's programs see it: Z: is /.
func winPath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }

// argv is how the script runs termhelper.exe with args in the chroot, its
// config folder at cfgDir.
func (w *wine) argv(cfgDir string, args ...string) []string {
	return append([]string{w.script, "enter", "env", "TERMHELPER_CONFIG_DIR=" + winPath(cfgDir),
		"wine", w.exe}, args...)
}

// configDir writes a user config folder holding toml.
func configDir(t *testing.T, toml string) string {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.toml"), []byte(toml), 0o600))
	return dir
}

const cmdShell = "shell = \"cmd\"\n"

// startWine starts termhelper.exe for root in framing, with config toml.
func startWine(t *testing.T, framing, root, toml string) *client {
	t.Helper()
	w := wineFor(t)
	cfg := configDir(t, toml)
	return start(t, framing, root, nil, func(c *exec.Cmd) {
		argv := w.argv(cfg, "--root", winPath(root), "--framing", framing)
		c.Path, c.Args = argv[0], argv
	})
}

// eachWine runs f on a helper of its own under Wine in each framing.
func eachWine(t *testing.T, toml string, f func(t *testing.T, c *client, root string)) {
	for _, fr := range framings {
		t.Run(fr, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			f(t, startWine(t, fr, root, toml), root)
		})
	}
}

func TestWineInitialize(t *testing.T) {
	eachWine(t, cmdShell, func(t *testing.T, c *client, root string) {
		raw, rerr := c.call("initialize", map[string]any{"capabilities": map[string]bool{"approval": false}})
		require.Nil(t, rerr)
		var r struct {
			Platform struct{ OS, Shell, Pty string }
			Root     string
		}
		require.NoError(t, json.Unmarshal(raw, &r))
		assert.Equal(t, "windows", r.Platform.OS)
		assert.Equal(t, "conpty", r.Platform.Pty)
		assert.True(t, strings.HasSuffix(strings.ToLower(r.Platform.Shell), `\cmd.exe`), r.Platform.Shell)
		assert.True(t, strings.EqualFold(winPath(root), r.Root), "root %s", r.Root)
	})
}

// TestWinePipesCmd: cmd in pipes mode, as a host sees it: output (beyond
// ASCII too), exit codes, stderr apart, input, several lines, a cwd
// outside the root refused.
func TestWinePipesCmd(t *testing.T) {
	eachWine(t, cmdShell, func(t *testing.T, c *client, root string) {
		pipes := func(command string, more ...any) result {
			p := map[string]any{"command": command, "mode": "pipes"}
			for i := 0; i+1 < len(more); i += 2 {
				p[more[i].(string)] = more[i+1]
			}
			return c.exec(p)
		}
		r := pipes("echo héllo wörld 日本語 ✓")
		assert.Equal(t, "héllo wörld 日本語 ✓\n", r.Output)
		r = pipes("exit /b 3")
		require.NotNil(t, r.ExitCode)
		assert.Equal(t, 3, *r.ExitCode)
		r = pipes("echo out& echo err 1>&2")
		assert.Equal(t, "out\n", r.Output)
		require.NotNil(t, r.Stderr)
		assert.Equal(t, "err\n", *r.Stderr)
		r = pipes("sort", "stdin", "pear\napple\n")
		assert.Equal(t, "apple\npear\n", r.Output)
		r = pipes("echo one\necho two")
		assert.Equal(t, "one\ntwo\n", r.Output)
		r = pipes("cd")
		assert.True(t, strings.EqualFold(winPath(root)+"\n", r.Output), "cwd %q", r.Output)
		_, rerr := c.call("exec/run", map[string]any{"command": "cd", "mode": "pipes", "cwd": `C:\`})
		require.NotNil(t, rerr)
		assert.Equal(t, -32002, rerr.Code)
	})
}

// childCommand is the command that starts the Windows child in mode, and
// the marker its processes carry in their command line.
func (w *wine) childCommand(mode string) (mark, command string) {
	mark = "th-wine-" + marker()
	return mark, fmt.Sprintf(`"%s" %s %s`, winPath(w.child), mode, mark)
}

func TestWineTimeoutKillsTheTree(t *testing.T) {
	t.Parallel()
	w := wineFor(t)
	c := startWine(t, "ndjson", t.TempDir(), cmdShell)
	// The tree must be up before the timeout strikes; on a slow machine it
	// may not be within a short one, so the timeout doubles until it is.
	for timeout := 2000; ; timeout *= 2 {
		mark, command := w.childCommand("tree")
		r := c.exec(map[string]any{"command": command, "mode": "pipes", "timeoutMs": timeout})
		assert.True(t, r.TimedOut, "%+v", r)
		noneLeft(t, mark)
		if strings.Contains(r.Output, "tree ") {
			return // a grandchild was started, and the timeout ended it
		}
		require.Less(t, timeout, int(watchdog/time.Millisecond), "the tree never came up: %q", r.Output)
	}
}

// background starts the child in mode in the background, answered once it
// has said it is up, and waits for its whole tree to show in /proc.
func background(t *testing.T, c *client, w *wine, mode, ready string, procs int) (string, result) {
	t.Helper()
	mark, command := w.childCommand(mode)
	r := c.exec(map[string]any{"command": command, "mode": "pipes", "background": true, "readyPattern": ready})
	require.NotEmpty(t, r.SessionID, "%+v", r)
	require.NotNil(t, r.Ready)
	require.True(t, *r.Ready, "%+v", r)
	waitFor(t, "the command's processes", func() bool { return len(pidsWith(mark)) >= procs })
	return mark, r
}

func TestWineKill(t *testing.T) {
	t.Parallel()
	w := wineFor(t)
	c := startWine(t, "ndjson", t.TempDir(), cmdShell)
	mark, r := background(t, c, w, "tree", `sleeping`, 2)
	k := c.run("session/kill", map[string]any{"sessionId": r.SessionID})
	require.NotNil(t, k.ExitCode, "%+v", k)
	noneLeft(t, mark)
}

// TestWineStdinEOF: a host that closes the helper's input ends the helper
// and every command it started.
func TestWineStdinEOF(t *testing.T) {
	t.Parallel()
	w := wineFor(t)
	c := startWine(t, "lsp", t.TempDir(), cmdShell)
	mark, _ := background(t, c, w, "tree", `sleeping`, 2)
	c.stdin.Close()
	within(t, c.exited, "the helper's exit after stdin EOF")
	noneLeft(t, mark)
}

var listeningOn = regexp.MustCompile(`listening on (\d+)`)

// TestWinePorts: the ports a command's tree listens on, from Windows' own
// table (GetExtendedTcpTable).
func TestWinePorts(t *testing.T) {
	t.Parallel()
	w := wineFor(t)
	c := startWine(t, "ndjson", t.TempDir(), cmdShell)
	mark, r := background(t, c, w, "listen", `listening on \d+`, 1)
	m := listeningOn.FindStringSubmatch(r.Output)
	require.NotNil(t, m, "output %q", r.Output)
	port, _ := strconv.Atoi(m[1])
	waitFor(t, fmt.Sprintf("port %d in session/list", port), func() bool {
		raw, rerr := c.call("session/list", nil)
		require.Nil(t, rerr)
		var l struct{ Sessions []result }
		require.NoError(t, json.Unmarshal(raw, &l))
		return len(l.Sessions) == 1 && assert.ObjectsAreEqual([]int{port}, l.Sessions[0].Ports)
	})
	c.run("session/kill", map[string]any{"sessionId": r.SessionID})
	noneLeft(t, mark)
}

func TestWineMCP(t *testing.T) {
	t.Parallel()
	w := wineFor(t)
	root := t.TempDir()
	argv := w.argv(configDir(t, cmdShell), "--mcp", "--root", winPath(root))
	client := sdk.NewClient(&sdk.Implementation{Name: "e2e-wine", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: exec.Command(argv[0], argv[1:]...)}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	h := &mcpHost{t: t, cs: cs, root: root}
	res := h.call(map[string]any{"command": "echo from mcp & exit /b 2", "mode": "pipes"})
	assert.False(t, res.IsError, text(res))
	assert.Contains(t, text(res), "from mcp")
	assert.Contains(t, text(res), "exit 2")
	res = h.call(map[string]any{"command": "cd", "mode": "pipes", "cwd": `C:\`})
	assert.True(t, res.IsError, text(res))
}

// windowsPolicyTable is the policy's table of Windows lines; its presence
// says the policy judges Windows lines by the shell that runs them.
const windowsPolicyTable = "../testdata/policy/windows.txt"

// TestWinePolicyOnPowerShellLines: with the default config (PowerShell)
// and a host that cannot approve, the Windows hard blocks refuse these
// lines before anything runs, as termhelper.exe judges them on Windows.
// Running them is harmless here in any case: Wine's PowerShell is a stub.
func TestWinePolicyOnPowerShellLines(t *testing.T) {
	if _, err := os.Stat(windowsPolicyTable); err != nil {
		t.Skip("the policy does not judge PowerShell lines yet (no " + windowsPolicyTable + ")")
	}
	for _, fr := range framings {
		t.Run(fr, func(t *testing.T) {
			t.Parallel()
			c := startWine(t, fr, t.TempDir(), "")
			_, rerr := c.call("initialize", map[string]any{"capabilities": map[string]bool{"approval": false}})
			require.Nil(t, rerr)
			for _, line := range []string{
				"Remove-Item -Recurse -Force $HOME", "rm -r -fo C:\\", "Remove-Item -r C:\\",
				"iex (iwr http://127.0.0.1:9/x.ps1)", "iwr http://127.0.0.1:9/x.ps1 | iex",
				"Start-Process powershell -Verb RunAs", "Set-ExecutionPolicy Unrestricted",
				"powershell -enc bABzAA==", "del /s /q C:\\*",
			} {
				_, rerr := c.call("exec/run", map[string]any{"command": line, "mode": "pipes"})
				if assert.NotNil(t, rerr, "%q ran", line) {
					assert.Equal(t, -32003, rerr.Code, "%q: %s", line, rerr.Message)
				}
			}
		})
	}
}
