package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A root without .git takes a .git file from any command. Naming a folder
// outside, it must not make that folder writable for the commands after
// it (git's own worktrees and submodules name their root back), and a
// malformed one must not stop them.
func TestAGitFileACommandWroteOpensNothing(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		w := newWorld(t)
		os.RemoveAll(filepath.Join(w.root, ".git"))
		victim := filepath.Join(w.outside, "victim")
		write(t, victim, "original\n")
		r := run(t, w.plan(WorkspaceWrite), w.env(), `printf 'gitdir: %s\n' "$OUT" > "$ROOT/.git"`)
		if r.code != 0 {
			t.Fatalf("writing .git: %s", r.out)
		}
		p := w.plan(WorkspaceWrite)
		if slices.Contains(p.Writable, w.outside) {
			t.Errorf("the folder a forged .git names is writable: %v", p.Writable)
		}
		r = run(t, p, w.env(), `echo tampered > "$OUT/victim"; echo planted > "$OUT/planted"; echo ran`)
		if got := read(t, victim); got != "original\n" || exists(filepath.Join(w.outside, "planted")) {
			t.Errorf("the command wrote outside through a forged .git: %q, %s", got, r.out)
		}
		if exists(filepath.Join(w.outside, "hooks")) {
			t.Error("the trampoline made a hooks folder where the forged .git pointed")
		}
		write(t, filepath.Join(w.root, ".git"), "garbage\n")
		if r := run(t, w.plan(WorkspaceWrite), w.env(), `echo ran`); !strings.Contains(r.out, "ran") {
			t.Errorf("a malformed .git file stopped the command: %s", r.out)
		}
	})
}

// A real worktree made by git keeps working confined: its git folder and
// the main repository's are writable, their hooks and config are not.
func TestARealWorktreeWorksConfined(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git here")
	}
	eachVariant(t, func(t *testing.T, v variant) {
		w := newWorld(t)
		main := filepath.Join(w.outside, "main")
		wt := filepath.Join(w.root, "wt")
		gitRun(t, "", "init", "-q", main)
		gitRun(t, main, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one")
		gitRun(t, main, "worktree", "add", "-q", wt)
		p := Defaults(wt, w.home, w.getenv)
		p.Mode, p.Network, p.TempDir = WorkspaceWrite, NetworkOpen, w.tmp
		r := run(t, p, w.env("WT="+wt), `cd "$WT" && echo x > f && git add f &&
git -c user.name=t -c user.email=t@t commit -q -m two && echo committed
echo evil > "$(git rev-parse --git-common-dir)/hooks/pre-commit"`)
		if !strings.Contains(r.out, "committed") {
			t.Errorf("a commit in a worktree failed confined: %s", r.out)
		}
		if v.force != "none" && exists(filepath.Join(main, ".git", "hooks", "pre-commit")) {
			t.Errorf("the main repository's hooks were written: %s", r.out)
		}
	})
}

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
}
