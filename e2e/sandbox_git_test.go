//go:build linux

package e2e

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// runner is who the helper runs as: root, or an ordinary user.
type runner struct {
	name     string
	uid, gid uint32
	ordinary bool
}

// cred makes a command run as r.
func (r runner) cred(c *exec.Cmd) {
	if r.ordinary && os.Getuid() == 0 {
		c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: r.uid, Gid: r.gid}}
	}
}

// throwawayUser is the ordinary user the tests run the helper as when
// they run as root: made with useradd once (no home, no login), and
// removed when the tests end.
const throwawayUser = "termhelper-e2e"

var ordinaryOnce struct {
	sync.Once
	r    runner
	err  error
	made bool // by these tests: removed when they end
}

// removeThrowawayUser removes the user the tests made, if they made one.
func removeThrowawayUser() {
	if ordinaryOnce.made {
		exec.Command("userdel", throwawayUser).Run()
	}
}

// runners are root (when the tests run as root) and an ordinary user:
// the one running the tests, or a throwaway one root makes. A runner
// that cannot be had is skipped with the reason.
func runners(t *testing.T) []runner {
	t.Helper()
	if os.Getuid() != 0 {
		return []runner{{name: "user", uid: uint32(os.Getuid()), gid: uint32(os.Getgid()), ordinary: true}}
	}
	ordinaryOnce.Do(func() {
		if _, err := user.Lookup(throwawayUser); err != nil {
			if out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", throwawayUser).CombinedOutput(); err != nil {
				ordinaryOnce.err = errors.New("useradd: " + strings.TrimSpace(string(out)))
				return
			}
			ordinaryOnce.made = true
		}
		u, err := user.Lookup(throwawayUser)
		if err != nil {
			ordinaryOnce.err = err
			return
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		ordinaryOnce.r = runner{name: "user", uid: uint32(uid), gid: uint32(gid), ordinary: true}
		// The built binary's folder is root's own (0700): the user must
		// reach the binary.
		ordinaryOnce.err = os.Chmod(filepath.Dir(binary), 0o755)
	})
	out := []runner{{name: "root"}}
	if ordinaryOnce.err != nil {
		t.Logf("no ordinary user: %v", ordinaryOnce.err)
		return out
	}
	return append(out, ordinaryOnce.r)
}

// gitRepo is a repository made for r in a fresh folder beside a home:
// its root, a linked worktree of it, and the home.
type gitRepo struct {
	base, root, worktree, home string
	r                          runner
}

func newGitRepo(t *testing.T, r runner) gitRepo {
	t.Helper()
	base, err := os.MkdirTemp("", "termhelper-git-")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(base) })
	must(t, os.Chmod(base, 0o755))
	g := gitRepo{base: base, root: filepath.Join(base, "proj"), worktree: filepath.Join(base, "wt"), home: filepath.Join(base, "home"), r: r}
	must(t, os.Mkdir(g.home, 0o755))
	must(t, os.Mkdir(g.root, 0o755))
	if r.ordinary && os.Getuid() == 0 {
		must(t, exec.Command("chown", "-R", strconv.Itoa(int(r.uid))+":"+strconv.Itoa(int(r.gid)), base).Run())
	}
	g.git(t, g.root, "init", "-q", "-b", "main")
	g.git(t, g.root, "config", "user.name", "e2e")
	g.git(t, g.root, "config", "user.email", "e2e@example.com")
	must(t, os.WriteFile(filepath.Join(g.root, "a"), []byte("a\n"), 0o644))
	g.chown(t, filepath.Join(g.root, "a"))
	g.git(t, g.root, "add", "a")
	g.git(t, g.root, "commit", "-q", "-m", "first")
	g.git(t, g.root, "worktree", "add", "-q", g.worktree)
	return g
}

func (g gitRepo) chown(t *testing.T, path string) {
	if g.r.ordinary && os.Getuid() == 0 {
		must(t, os.Chown(path, int(g.r.uid), int(g.r.gid)))
	}
}

// git runs git as the repository's user, outside any sandbox, as the
// user's own terminal would, and returns its output.
func (g gitRepo) git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+g.home, "GIT_CONFIG_NOSYSTEM=1")
	g.r.cred(cmd)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return string(out)
}

// pointers are the files git reads to find its config, hooks and
// objects, as they were before the attacks: content, or "" for missing.
func (g gitRepo) pointers(t *testing.T) map[string]string {
	t.Helper()
	dotGit := filepath.Join(g.root, ".git")
	admin := filepath.Join(dotGit, "worktrees", "wt")
	out := map[string]string{}
	for _, p := range []string{
		filepath.Join(dotGit, "commondir"), filepath.Join(dotGit, "config.worktree"),
		filepath.Join(dotGit, "objects", "info", "alternates"), filepath.Join(dotGit, "config"),
		filepath.Join(dotGit, "info", "exclude"), filepath.Join(dotGit, "info", "attributes"),
		filepath.Join(dotGit, "hooks", "pre-commit"),
		filepath.Join(admin, "commondir"), filepath.Join(admin, "gitdir"), filepath.Join(admin, "config.worktree"),
		filepath.Join(g.worktree, ".git"),
	} {
		b, err := os.ReadFile(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			out[p] = ""
		case err != nil:
			t.Fatalf("reading %s: %v", p, err)
		default:
			out[p] = string(b)
		}
	}
	return out
}

// attacks writes a script that tries, for each of paths, every way of
// changing what git reads there: create or overwrite from sh and from
// Python, rename a file over it, replace it with a link, remove it and
// write it again, move its folder aside. It returns the line that runs
// it (a script the policy cannot read, as a model would write one) and
// then says so.
func attacks(t *testing.T, g gitRepo, name string, paths []string) string {
	t.Helper()
	evil := filepath.Join(g.base, ".cache-evil")
	var b strings.Builder
	for i, p := range paths {
		tmp := filepath.Join(filepath.Dir(p), ".evil-"+strconv.Itoa(i))
		for _, a := range []string{
			"printf '%s\\n' " + evil + " > " + p,
			"printf '%s\\n' " + evil + " >> " + p,
			python + ` -c "open('` + p + `','w').write('` + evil + `')"`,
			python + ` -c "import os; open('` + tmp + `','w').write('` + evil + `'); os.replace('` + tmp + `','` + p + `')"`,
			"printf '%s\\n' " + evil + " > " + tmp + " && mv -f " + tmp + " " + p,
			"ln -sfn " + evil + " " + p,
			"rm -rf " + p + " && printf '%s\\n' " + evil + " > " + p,
			"mv " + filepath.Dir(p) + " " + filepath.Dir(p) + ".aside && mkdir -p " + filepath.Dir(p) + " && printf '%s\\n' " + evil + " > " + p,
		} {
			b.WriteString(a + " 2>/dev/null\n")
		}
	}
	script := filepath.Join(g.base, name+".sh")
	must(t, os.WriteFile(script, []byte(b.String()), 0o644))
	return "sh " + script + "; echo attacks-done"
}

// TestSandboxKeepsGitPointers: a confined command, run unasked, cannot
// point git elsewhere: the files git reads to find its config, hooks and
// objects (commondir, config.worktree, objects/info/alternates, info/,
// a linked worktree's commondir and gitdir, a worktree's .git file) are
// unchanged, or still absent, after every way of writing them was
// tried, in the main repository and in a linked worktree (whose .git is
// a file), through the native protocol and through MCP, as root and as
// an ordinary user. Afterwards git still works: the user's git status,
// and a confined git commit.
func TestSandboxKeepsGitPointers(t *testing.T) {
	for _, r := range runners(t) {
		for _, front := range []string{"native", "mcp"} {
			t.Run(r.name+"/"+front, func(t *testing.T) {
				t.Parallel()
				g := newGitRepo(t, r)
				before := g.pointers(t)
				dotGit := filepath.Join(g.root, ".git")
				admin := filepath.Join(dotGit, "worktrees", "wt")
				mainPaths := []string{
					filepath.Join(dotGit, "commondir"), filepath.Join(dotGit, "config.worktree"),
					filepath.Join(dotGit, "objects", "info", "alternates"), filepath.Join(dotGit, "config"),
					filepath.Join(dotGit, "info", "exclude"), filepath.Join(dotGit, "info", "attributes"),
					filepath.Join(admin, "commondir"), filepath.Join(admin, "gitdir"), filepath.Join(admin, "config.worktree"),
					filepath.Join(dotGit, "hooks", "pre-commit"),
				}
				wtPaths := append([]string{filepath.Join(g.worktree, ".git")}, mainPaths...)
				run := confinedRunner(t, front, g)
				run(g.root, attacks(t, g, "main", mainPaths))
				run(g.worktree, attacks(t, g, "worktree", wtPaths))
				after := g.pointers(t)
				for p, was := range before {
					if after[p] != was && !(was == "" && after[p] == neutral(p)) {
						t.Errorf("%s changed: %q, was %q", p, after[p], was)
					}
				}
				for _, dir := range []string{g.root, g.worktree} {
					common := strings.TrimSpace(g.git(t, dir, "rev-parse", "--path-format=absolute", "--git-common-dir"))
					if common != dotGit {
						t.Errorf("git in %s takes %s for its common folder, want %s", dir, common, dotGit)
					}
					g.git(t, dir, "status", "--short")
				}
				out := run(g.root, "echo b > b && git add b && git commit -q -m second && echo commits=$(git log --oneline | wc -l)")
				if !strings.Contains(out, "commits=2") {
					t.Errorf("a confined git commit: %q, want 2 commits", out)
				}
				if log := g.git(t, g.root, "log", "--oneline"); strings.Count(log, "\n") != 2 {
					t.Errorf("the user's git log after the confined commit:\n%s", log)
				}
				g.git(t, g.root, "status", "--short")
			})
		}
	}
}

// neutral is what the sandbox leaves in a missing file git would follow
// elsewhere, so that nothing can be planted there: a commondir naming
// its own folder, anything else empty.
func neutral(path string) string {
	if filepath.Base(path) == "commondir" {
		return ".\n"
	}
	return ""
}

// confinedRunner starts a helper for each root asked of it, as g's user,
// through front, and returns a function that runs a line there, without
// an approval capability (so that nothing is asked: a line runs
// confined), and returns its output. A helper without a sandbox skips.
func confinedRunner(t *testing.T, front string, g gitRepo) func(root, command string) string {
	helpers := map[string]*client{}
	return func(root, command string) string {
		t.Helper()
		c := helpers[root]
		if c == nil {
			c = startAs(t, front, root, g)
			helpers[root] = c
		}
		out := c.runLine(t, front, command)
		if strings.Contains(command, "attacks-done") && !strings.Contains(out, "attacks-done") {
			t.Fatalf("the attacks did not all run: %q", out)
		}
		return out
	}
}

func startAs(t *testing.T, front, root string, g gitRepo) *client {
	t.Helper()
	env := withEnv("HOME="+g.home, "GIT_CONFIG_NOSYSTEM=1")
	c := start(t, "ndjson", root, nil, env, g.r.cred)
	needMounts(t, g, initSandbox(t, c))
	if front == "native" {
		return c
	}
	c.stop()
	c = start(t, "ndjson", root, []string{"--mcp"}, env, g.r.cred)
	_, rerr := c.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]string{"name": "e2e", "version": "1"}})
	if rerr != nil {
		t.Fatalf("MCP initialize: %v", rerr.Message)
	}
	c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return c
}

// needMounts skips where the sandbox has no mount namespace: there what
// is protected inside the root is held by the policy alone, as
// docs/protocol.md says, and a script the policy cannot read gets
// through.
func needMounts(t *testing.T, g gitRepo, st sandboxStatus) {
	t.Helper()
	if st.Mode == "off" || st.Backend != "landlock+namespaces" {
		t.Skipf("no mount namespace for %s here (%s, %s): %v", g.r.name, st.Mode, st.Backend, deref(st.Reason))
	}
}

// runLine runs command and returns its output (MCP: the result's text).
func (c *client) runLine(t *testing.T, front, command string) string {
	t.Helper()
	if front == "native" {
		return c.exec(map[string]any{"command": command}).Output
	}
	raw, rerr := c.call("tools/call", map[string]any{"name": "terminal", "arguments": map[string]any{"command": command}})
	if rerr != nil {
		t.Fatalf("tools/call: %v", rerr.Message)
	}
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	must(t, json.Unmarshal(raw, &res))
	var b strings.Builder
	for _, c := range res.Content {
		b.WriteString(c.Text)
	}
	if res.IsError {
		t.Fatalf("tools/call %q: %s", command, b.String())
	}
	return b.String()
}
