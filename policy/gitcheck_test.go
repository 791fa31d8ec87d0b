package policy

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/termhelper/termhelper/config"
)

// gitIn runs git in dir with a fixed identity, for building test
// repositories.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	runIn(t, dir, []string{"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"},
		append([]string{"git", "-c", "user.name=u", "-c", "user.email=u@x", "-c", "init.defaultBranch=main"}, args...)...)
}

// TestGitRunsWhatTheRepositorySays: a repository can ship a bare
// repository whose config names commands (diff.external, a textconv
// driver); with git diff or git log allowed, cd into it ran them. The
// line runs to show the marker, and is asked about.
func TestGitRunsWhatTheRepositorySays(t *testing.T) {
	needUnix(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git here")
	}
	root, tmpl := scratchRoot(t), scratchRoot(t)
	gitIn(t, root, "init", "-q")
	gitIn(t, tmpl, "init", "-q")
	for _, body := range []string{"a\n", "b\n"} {
		if err := os.WriteFile(tmpl+"/f", []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		gitIn(t, tmpl, "add", "f")
		gitIn(t, tmpl, "commit", "-qm", body)
	}
	gitIn(t, root, "clone", "-q", "--bare", tmpl, root+"/vendor/evil.git")
	marker := root + "/PWNED"
	writeScript(t, root+"/evil.sh", "touch "+marker)
	gitIn(t, root+"/vendor/evil.git", "config", "diff.external", root+"/evil.sh")
	cfg := config.Default()
	cfg.Policy.Allow = append(cfg.Policy.Allow, "git diff", "git log", "git status")
	p := New(cfg, root, nil)
	line := "cd vendor/evil.git && git diff HEAD~1 HEAD"
	runIn(t, root, []string{"GIT_CONFIG_GLOBAL=/dev/null"}, "/bin/sh", "-c", line)
	if !exists(marker) {
		t.Fatal("git did not run diff.external: the test proves nothing")
	}
	for _, l := range []string{line, "cd vendor/evil.git/refs && git log -p", "cd vendor/evil.git; git diff"} {
		if v := p.Check(l, true); v.Decision != Ask || !containsReason(v, "diff.external") {
			t.Errorf("%q: %+v", l, v)
		}
	}
	for _, l := range []string{"git status", "git diff HEAD", "git log -p"} {
		if v := p.Check(l, true); v.Decision != Allow {
			t.Errorf("%q in the root's own repository: %+v", l, v)
		}
	}
}

// TestGitOptionsThatRunWriteOrRead: with git subcommands on the allow
// list, options that write files, run commands or read outside the
// repository are asked about; those that only read it are not.
func TestGitOptionsThatRunWriteOrRead(t *testing.T) {
	cfg := config.Default()
	cfg.Policy.Allow = append(cfg.Policy.Allow, "git diff", "git log", "git show", "git grep", "git ls-remote",
		"git rebase", "git submodule", "git bisect", "git status")
	p := testPolicy(t, cfg)
	for _, line := range []string{"git diff --no-index ~/.ssh/id_rsa /dev/null", "git diff --no-index .env /dev/null",
		"git diff --output=x HEAD", "git log --outp=x -1", "git show --output=x", "git grep -O./evil.sh x",
		"git grep --open-files-in-pager=./evil.sh x", "git show HEAD:.env", "git log -p -- .env",
		"git ls-remote --upload-pack='touch x' .", "git rebase --exec 'touch x' HEAD~1",
		"git submodule foreach 'touch x'", "git bisect run ./evil.sh", "git diff --no-index ../outside README.md"} {
		if v := p.Check(line, true); v.Decision != Ask {
			t.Errorf("%q: %+v, want ask", line, v)
		}
	}
	for _, line := range []string{"git status", "git log --oneline -3", "git diff HEAD", "git show HEAD:README.md",
		"git log -c -1", "git diff --output-indicator-new=+ HEAD", "git grep hello", "git submodule status"} {
		if v := p.Check(line, true); v.Decision != Allow {
			t.Errorf("%q: %+v, want allow", line, v)
		}
	}
	if v := p.Judge("git show HEAD:.env", testRoot, Judging{Trusted: true, Sandboxed: true}); v.Decision != Ask {
		t.Errorf("a secret read through git, in a sandbox: %+v", v)
	}
}

// TestGitConfigKeysByUse: an alias that is a shell command counts for its
// own subcommand, and keys that run on fetch, commit or push count only
// for subcommands that do such things.
func TestGitConfigKeysByUse(t *testing.T) {
	needUnix(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git here")
	}
	root := scratchRoot(t)
	gitIn(t, root, "init", "-q")
	gitIn(t, root, "config", "alias.st", "!touch x")
	gitIn(t, root, "config", "core.sshCommand", "touch y")
	gitIn(t, root, "config", "core.fsmonitor", "true")
	cfg := config.Default()
	cfg.Policy.Allow = append(cfg.Policy.Allow, "git st", "git status", "git fetch", "git log")
	p := New(cfg, root, nil)
	for line, want := range map[string]Decision{"git st": Ask, "git fetch origin": Ask, "git status": Allow, "git log": Allow} {
		if v := p.Check(line, true); v.Decision != want {
			t.Errorf("%q: %+v, want %s", line, v, want)
		}
	}
}

// TestGitConfigWithACredential: a checkout made by CI keeps its token in
// .git/config (actions/checkout's http.*.extraheader); reading that file,
// or searching a folder that holds it, reads a secret. A config without
// one is no secret.
func TestGitConfigWithACredential(t *testing.T) {
	needUnix(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git here")
	}
	root, plain := scratchRoot(t), scratchRoot(t)
	gitIn(t, root, "init", "-q")
	gitIn(t, plain, "init", "-q")
	gitIn(t, root, "config", "http.https://github.com/.extraheader", "AUTHORIZATION: basic czNjcjN0LXRva2Vu")
	p := New(config.Default(), root, nil)
	for _, line := range []string{"cat .git/config", "grep -r AUTHORIZATION .", "head .git/config"} {
		if out := output(t, root, line); !strings.Contains(out, "czNjcjN0") {
			t.Errorf("%q printed %q, not the token: the line proves nothing", line, out)
		}
		if v := p.Judge(line, root, Judging{Trusted: true, Sandboxed: true}); v.Decision != Ask || !containsReason(v, "credential") {
			t.Errorf("%q: %+v", line, v)
		}
	}
	if v := p.Check("grep -r AUTHORIZATION --exclude-dir=.git .", true); v.Decision != Allow {
		t.Errorf("with .git excluded: %+v", v)
	}
	q := New(config.Default(), plain, nil)
	for _, line := range []string{"cat .git/config", "grep -r x ."} {
		if v := q.Check(line, true); v.Decision != Allow {
			t.Errorf("%q with no credential: %+v", line, v)
		}
	}
	gitIn(t, plain, "remote", "add", "origin", "https://u:ghp_s3cr3t@github.com/o/r.git")
	cfg := config.Default()
	cfg.Policy.Allow = append(cfg.Policy.Allow, "git remote", "git config")
	q = New(cfg, plain, nil)
	for _, line := range []string{"cat .git/config", "git remote -v", "git config --list"} {
		if v := q.Check(line, true); v.Decision != Ask {
			t.Errorf("%q with a token in a remote's URL: %+v", line, v)
		}
	}
}
