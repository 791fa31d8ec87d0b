//go:build linux

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/termhelper/termhelper/e2e/fakemodel"
)

// The agent hosts as a person installs them (e2e/hosts/package-lock.json
// pins them; e2e/hosts/install.sh puts them in a cache outside the
// repository), each run headless against a model server of this suite's
// own on loopback that scripts the tool calls, each configured exactly as
// README.md's recipe for it says.

// hostWatchdog bounds one headless run of a host; longWatchdog the run of
// a 90 s command.
const (
	hostWatchdog = 3 * time.Minute
	longWatchdog = 5 * time.Minute
)

// agentHost is one host: how it is installed, configured and run.
type agentHost struct {
	name string // the recipe's name in README.md
	// configure writes the host's configuration for run (the README's
	// recipe and what points the host at the fake model).
	configure func(t *testing.T, r *hostRun)
}

var agentHosts = []agentHost{
	{name: "claude-code", configure: configureClaude},
	{name: "codex", configure: configureCodex},
	{name: "gemini", configure: configureGemini},
}

// hostsDir is the folder whose node_modules/.bin holds the hosts:
// $TERMHELPER_HOSTS (CI sets it; then they must be there), else the
// cache e2e/hosts/install.sh fills (once per run of the tests).
func hostsDir(t *testing.T) string {
	t.Helper()
	skipUnderStress(t, "the agent hosts")
	if dir := os.Getenv("TERMHELPER_HOSTS"); dir != "" {
		return dir
	}
	dir, err := installHosts()
	if err != nil {
		t.Skipf("the agent hosts could not be installed from npm (e2e/hosts/install.sh): %v", err)
	}
	return dir
}

var installHosts = sync.OnceValues(func() (string, error) {
	if _, err := exec.LookPath("npm"); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "bash", "hosts/install.sh").Output()
	return strings.TrimSpace(string(out)), err
})

// hostRun is one headless run of a host in a project of its own.
type hostRun struct {
	t    *testing.T
	host agentHost
	root string // the project
	home string
	env  []string
	srv  *fakemodel.Server
	cmd  *exec.Cmd
	out  *lockedWriter // the host's stdout and stderr
	done chan error
}

// newHostRun makes a project, a home and a fake model serving script, and
// configures host there.
func newHostRun(t *testing.T, bin string, host agentHost, script fakemodel.Script) *hostRun {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	r := &hostRun{t: t, host: host, root: filepath.Join(dir, "project"), home: filepath.Join(dir, "home"),
		out: &lockedWriter{w: &bytes.Buffer{}}}
	for _, d := range []string{r.root, r.home, filepath.Join(dir, "bin"), filepath.Join(dir, "cfg"),
		filepath.Join(r.home, ".codex"), filepath.Join(r.home, ".gemini"), filepath.Join(r.root, ".gemini")} {
		require.NoError(t, os.MkdirAll(d, 0o700))
	}
	// termhelper on PATH, as the recipes name it.
	require.NoError(t, os.Symlink(binary, filepath.Join(dir, "bin", "termhelper")))
	r.srv, err = fakemodel.Start(script)
	require.NoError(t, err)
	t.Cleanup(r.srv.Close)
	r.env = append(os.Environ(), "HOME="+r.home, "PWD="+r.root, "SHELL=",
		"PATH="+filepath.Join(dir, "bin")+":"+bin+":"+os.Getenv("PATH"),
		"TERMHELPER_CONFIG_DIR="+filepath.Join(dir, "cfg"), "XDG_CONFIG_HOME=", "XDG_CACHE_HOME=", "XDG_DATA_HOME=",
		"NO_PROXY=127.0.0.1,localhost", "CI=true", "NO_UPDATE_NOTIFIER=1", "NO_COLOR=1")
	host.configure(t, r)
	return r
}

// start runs the README's headless line for the host, in the project.
func (r *hostRun) start() {
	r.t.Helper()
	env, args := recipeCommand(r.t, recipe(r.t, r.host.name+" headless"), r.env)
	r.cmd = exec.Command(args[0], args[1:]...)
	r.cmd.Dir, r.cmd.Env = r.root, env
	r.cmd.Stdout, r.cmd.Stderr = r.out, r.out
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(r.t, r.cmd.Start())
	r.done = make(chan error, 1)
	go func() { r.done <- r.cmd.Wait() }()
	r.t.Cleanup(r.cleanup)
}

// cleanup ends what a failed run left: the host's group, and anything
// with the project in its command line (termhelper's --root).
func (r *hostRun) cleanup() {
	syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
	for _, pid := range pidsWith(r.root) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// wait waits for the host to exit, within the watchdog.
func (r *hostRun) wait(watchdog time.Duration) error {
	r.t.Helper()
	select {
	case err := <-r.done:
		return err
	case <-time.After(watchdog):
		r.cleanup()
		r.t.Fatalf("%s did not exit within %s; it printed:\n%s\nthe model served: %v", r.host.name, watchdog, r.out.String(), r.srv.Requests())
	}
	return nil
}

// finish waits for the host to exit on its own, and checks it succeeded.
func (r *hostRun) finish(watchdog time.Duration) []string {
	r.t.Helper()
	err := r.wait(watchdog)
	require.NoError(r.t, err, "%s failed; it printed:\n%s", r.host.name, r.out.String())
	return r.srv.Results()
}

// mcpClient is the host's process that runs termhelper (its parent): a
// host started through a launcher (codex.js, Gemini's relaunch) is that
// process, not the launcher.
func (r *hostRun) mcpClient() int {
	r.t.Helper()
	pids := pidsWith(r.root) // termhelper, and what it started with the root in its arguments
	for _, pid := range pids {
		if ppid := parent(pid); !slices.Contains(pids, ppid) {
			return ppid
		}
	}
	r.t.Fatalf("no termhelper with the project as its root")
	return 0
}

// parent is a process's parent, 0 if it is gone.
func parent(pid int) int {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	ppid, _ := strconv.Atoi(fields[1])
	return ppid
}

// comm is a process's name.
func comm(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return strings.TrimSpace(string(b))
}

// recipe is the fenced block under `<!-- recipe: name -->` in README.md.
func recipe(t *testing.T, name string) string {
	t.Helper()
	return docRecipe(t, "README.md", name)
}

// docRecipe is the fenced block under `<!-- recipe: name -->` in the
// repository's file doc.
func docRecipe(t *testing.T, doc, name string) string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", doc))
	require.NoError(t, err)
	_, after, ok := strings.Cut(string(text), "<!-- recipe: "+name+" -->\n```")
	require.True(t, ok, "%s has no recipe %q", doc, name)
	_, after, _ = strings.Cut(after, "\n")
	block, _, ok := strings.Cut(after, "```")
	require.True(t, ok, "%s's recipe %q is not closed", doc, name)
	return block
}

// recipeCommand reads a one-line shell recipe as a person's shell would:
// its assignments added to env, its words expanded with env.
func recipeCommand(t *testing.T, src string, env []string) ([]string, []string) {
	t.Helper()
	file, err := syntax.NewParser().Parse(strings.NewReader(src), "README.md")
	require.NoError(t, err)
	require.Len(t, file.Stmts, 1, "a recipe is one command: %s", src)
	call, ok := file.Stmts[0].Cmd.(*syntax.CallExpr)
	require.True(t, ok, "a recipe is a simple command: %s", src)
	cfg := &expand.Config{Env: expand.ListEnviron(env...)}
	out := append([]string(nil), env...)
	for _, a := range call.Assigns {
		v, err := expand.Literal(cfg, a.Value)
		require.NoError(t, err)
		out = append(out, a.Name.Value+"="+v)
	}
	var args []string
	for _, w := range call.Args {
		v, err := expand.Literal(cfg, w)
		require.NoError(t, err)
		args = append(args, v)
	}
	args[0] = lookPath(t, args[0], cfg.Env.Get("PATH").String())
	return out, args
}

// lookPath finds name in path, as the shell running a recipe would.
func lookPath(t *testing.T, name, path string) string {
	t.Helper()
	for _, dir := range filepath.SplitList(path) {
		if p := filepath.Join(dir, name); syscall.Access(p, 1) == nil {
			return p
		}
	}
	t.Fatalf("%s is not on the PATH %s", name, path)
	return ""
}

// runRecipe runs a one-line recipe to its end, in the project.
func (r *hostRun) runRecipe(name string) {
	r.t.Helper()
	env, args := recipeCommand(r.t, recipe(r.t, name), r.env)
	ctx, cancel := context.WithTimeout(context.Background(), hostWatchdog)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir, cmd.Env = r.root, env
	out, err := cmd.CombinedOutput()
	require.NoError(r.t, err, "%s: %s", args, out)
}

// projectRecipe is a configuration recipe with the project's path in it.
func (r *hostRun) projectRecipe(name string) string {
	return strings.ReplaceAll(recipe(r.t, name), "/path/to/project", r.root)
}

// configureClaude: the recipe's `claude mcp add`, an API key for the fake
// model, and no traffic beside the model's. Tool search off: with it the
// host offers MCP tools only to a model that searches for them first,
// which a scripted model does not.
func configureClaude(t *testing.T, r *hostRun) {
	r.env = append(r.env, "ANTHROPIC_BASE_URL="+r.srv.URL, "ANTHROPIC_API_KEY=sk-e2e", "ENABLE_TOOL_SEARCH=false",
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CLAUDE_CONFIG_DIR=")
	r.runRecipe("claude-code setup")
}

// configureCodex: the fake model as the provider (Responses API), no
// traffic beside the model's (the update check, the plugins' sync from
// GitHub and the analytics each reach out at start), then the recipe; the
// project a git repository, as Codex expects.
func configureCodex(t *testing.T, r *hostRun) {
	provider := fmt.Sprintf(`model = "e2e"
model_provider = "e2e"
check_for_update_on_startup = false

[model_providers.e2e]
name = "e2e"
base_url = "%s/v1"
wire_api = "responses"
env_key = "E2E_API_KEY"

[features]
plugins = false

[analytics]
enabled = false

`, r.srv.URL)
	writeFile(t, filepath.Join(r.home, ".codex"), "config.toml", provider+r.projectRecipe("codex config"))
	r.env = append(r.env, "E2E_API_KEY=e2e", "CODEX_HOME=")
	out, err := exec.Command("git", "init", "-q", r.root).CombinedOutput()
	require.NoError(t, err, "%s", out)
}

// configureGemini: the recipe as the project's settings, the fake model
// through an API key, and no telemetry or update check.
func configureGemini(t *testing.T, r *hostRun) {
	writeFile(t, filepath.Join(r.root, ".gemini"), "settings.json", r.projectRecipe("gemini config"))
	writeFile(t, filepath.Join(r.home, ".gemini"), "settings.json", `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true}
}`)
	r.env = append(r.env, "GEMINI_API_KEY=e2e", "GOOGLE_GEMINI_BASE_URL="+r.srv.URL)
}

var (
	exitRe    = regexp.MustCompile(`(?:\bexit |"exit_code":\s*)(-?\d+)`)
	sessionRe = regexp.MustCompile(`\bsession (\d+)|"session_id":\s*"(\d+)"`)
)

// exitCode is the exit code a tool result reports, -1 if none.
func exitCode(res string) int {
	m := exitRe.FindStringSubmatch(res)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// sessionOf is the session a tool result names, "" if none.
func sessionOf(res string) string {
	m := sessionRe.FindStringSubmatch(res)
	if m == nil {
		return ""
	}
	return m[1] + m[2]
}

// eachHost runs test for every host, in parallel.
func eachHost(t *testing.T, test func(t *testing.T, bin string, h agentHost)) {
	bin := filepath.Join(hostsDir(t), "node_modules", ".bin")
	for _, h := range agentHosts {
		t.Run(h.name, func(t *testing.T) {
			t.Parallel()
			test(t, bin, h)
		})
	}
}

// TestHostsBasics: through each host, the tool is offered to the model;
// `echo hi` and a failing build reach the model with their output and exit
// code; a dev server is ready, then killed, then gone; a prompt is
// answered by a write.
func TestHostsBasics(t *testing.T) {
	eachHost(t, func(t *testing.T, bin string, h agentHost) {
		m := marker()
		steps := []func(results []string) map[string]any{
			func([]string) map[string]any { return map[string]any{"command": "echo hi"} },
			func([]string) map[string]any { return map[string]any{"command": "sh build.sh"} },
			func([]string) map[string]any {
				return map[string]any{"command": "python3 -u -m http.server 0 --bind 127.0.0.1 -d " + m,
					"background": true, "ready_pattern": `Serving HTTP on \S+ port \d+`}
			},
			func(res []string) map[string]any {
				return map[string]any{"session_id": sessionOf(res[2]), "kill": true}
			},
			func([]string) map[string]any {
				return map[string]any{"command": `printf 'Project name? '; read n; echo "created $n"`}
			},
			func(res []string) map[string]any {
				return map[string]any{"session_id": sessionOf(res[4]), "input": "demo\n"}
			},
		}
		r := newHostRun(t, bin, h, func(results []string) fakemodel.Step {
			if len(results) < len(steps) {
				return fakemodel.Step{Call: steps[len(results)](results)}
			}
			return fakemodel.Done
		})
		writeFile(t, r.root, "build.sh", "echo \"main.c:3:1: error: expected ';' before '}' token\" >&2\nexit 2\n")
		require.NoError(t, os.Mkdir(filepath.Join(r.root, m), 0o700))
		r.start()
		res := r.finish(hostWatchdog)
		assert.Contains(t, strings.Join(r.srv.Tools(), " "), "terminal", "the tool was not offered to the model")
		require.Len(t, res, len(steps), "the model got fewer results than it made calls; the host printed:\n%s", r.out.String())
		assert.Regexp(t, `\bhi(\n|\\n)`, res[0], "the output, as text or as JSON")
		assert.Equal(t, 0, exitCode(res[0]), res[0])
		assert.Contains(t, res[1], "error: expected ';'")
		assert.Equal(t, 2, exitCode(res[1]), res[1])
		assert.Contains(t, res[2], "ready", res[2])
		assert.NotEmpty(t, sessionOf(res[2]), res[2])
		assert.Contains(t, res[3], "killed", res[3])
		noneLeft(t, m)
		assert.Contains(t, res[4], "Project name?", res[4])
		assert.Contains(t, res[4], "waiting", res[4])
		assert.Contains(t, res[5], "created demo", res[5])
		assert.Equal(t, 0, exitCode(res[5]), res[5])
	})
}

// TestHostsLongCommand: a 90 s command, sent as a model sends it (no
// timeout_ms), runs to its end through each host: the call yields with
// its session, and the polls that follow bring its last line and end with
// exit 0. It takes two minutes: it runs when TERMHELPER_E2E_LONG is set (CI
// sets it).
func TestHostsLongCommand(t *testing.T) {
	if os.Getenv("TERMHELPER_E2E_LONG") == "" {
		t.Skip("a 90 s command through each host: set TERMHELPER_E2E_LONG=1")
	}
	t.Parallel() // mostly waiting: alongside the other parallel tests
	eachHost(t, func(t *testing.T, bin string, h agentHost) {
		r := newHostRun(t, bin, h, func(results []string) fakemodel.Step {
			switch {
			case len(results) == 0:
				return fakemodel.Step{Call: map[string]any{"command": `for i in $(seq 18); do echo tick $i; sleep 5; done`}}
			case len(results) > 8 || exitCode(results[len(results)-1]) >= 0:
				return fakemodel.Done
			}
			return fakemodel.Step{Call: map[string]any{"session_id": sessionOf(results[0]), "until": "exit"}}
		})
		r.start()
		res := r.finish(longWatchdog)
		require.Greater(t, len(res), 1, "the 90 s command did not yield; the host printed:\n%s", r.out.String())
		assert.NotEmpty(t, sessionOf(res[0]), "the yield names the session: %s", res[0])
		// The last line may come in the answer before the last: a yield
		// that ends just after it, with the exit still to come.
		all, last := strings.Join(res, "\n---\n"), res[len(res)-1]
		assert.Contains(t, all, "tick 18", "the command ran to its end")
		assert.Equal(t, 0, exitCode(last), "every result:\n%s", all)
	})
}

// TestHostsEndedMidCall: a host ended while a command it called runs
// leaves nothing: neither termhelper nor the command. SIGINT is the host
// cancelling the turn (Ctrl-C); SIGTERM and SIGKILL are the host killed.
func TestHostsEndedMidCall(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			eachHost(t, func(t *testing.T, bin string, h agentHost) {
				m := marker()
				r := newHostRun(t, bin, h, func(results []string) fakemodel.Step {
					if len(results) == 0 {
						return fakemodel.Step{Call: map[string]any{"command": "trap '' TERM HUP INT; sleep " + m}}
					}
					return fakemodel.Done
				})
				r.start()
				waitFor(t, "the command running", func() bool { return len(pidsWith(m)) > 0 })
				host := r.mcpClient()
				t.Logf("%s: the process that runs termhelper is %d (%s), started as %d", h.name, host, comm(host), r.cmd.Process.Pid)
				require.NoError(t, syscall.Kill(host, sig))
				r.wait(hostWatchdog)
				noneLeft(t, m)
				noneLeft(t, r.root)
			})
		})
	}
}

// TestHostsAskedLine: what approval means headless, as README.md says. A
// line the policy asks about even in the sandbox (reading a secret) is
// refused through Claude Code and Codex, whose `claude -p` and `codex
// exec` dismiss or decline every question; Gemini CLI asks nothing of the
// server (its trust, given by the recipe, stands for the approval), so
// there it runs, unless termhelper's config says `unattended = "deny"`.
func TestHostsAskedLine(t *testing.T) {
	for _, deny := range []bool{false, true} {
		t.Run(fmt.Sprintf("deny=%v", deny), func(t *testing.T) {
			t.Parallel()
			eachHost(t, func(t *testing.T, bin string, h agentHost) {
				r := newHostRun(t, bin, h, func(results []string) fakemodel.Step {
					if len(results) == 0 {
						return fakemodel.Step{Call: map[string]any{"command": "cat .env"}}
					}
					return fakemodel.Done
				})
				writeFile(t, r.root, ".env", "API_TOKEN=e2e-secret-value\n")
				if deny {
					writeFile(t, filepath.Join(filepath.Dir(r.root), "cfg"), "config.toml", "unattended = \"deny\"\n")
				}
				r.start()
				res := r.finish(hostWatchdog)
				require.Len(t, res, 1, "the host printed:\n%s", r.out.String())
				if deny || h.name != "gemini" {
					assert.Contains(t, res[0], "refused", res[0])
					return
				}
				assert.Equal(t, 0, exitCode(res[0]), res[0])
			})
		})
	}
}
