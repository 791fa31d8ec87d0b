package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A submodule's .git file in the work tree and what its git folder reads
// to find its config (commondir, config, alternates) cannot be pointed
// elsewhere by a confined command, where a mount namespace holds them;
// the neutral files made for it change nothing git reads.
func TestASubmodulesPointersStay(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		if v.force == "none" {
			t.Skip("without a mount namespace the policy alone guards what is inside the root")
		}
		w := newWorld(t)
		mod := filepath.Join(w.root, ".git", "modules", "lib")
		mkdir(t, filepath.Join(mod, "objects", "info"))
		mkdir(t, filepath.Join(w.root, "lib"))
		write(t, filepath.Join(mod, "HEAD"), "ref: refs/heads/main\n")
		write(t, filepath.Join(mod, "config"), "[core]\n\tworktree = ../../../lib\n")
		dotGit := filepath.Join(w.root, "lib", ".git")
		write(t, dotGit, "gitdir: ../.git/modules/lib\n")
		p := w.plan(WorkspaceWrite)
		r := run(t, p, w.env("MOD="+mod, "DOTGIT="+dotGit, "OUT="+w.outside), `
echo "gitdir: $OUT" > "$DOTGIT"; rm -f "$DOTGIT"; echo "gitdir: $OUT" > "$DOTGIT"
echo "$OUT" > "$MOD/commondir"; rm -f "$MOD/commondir"; ln -s "$OUT/c" "$MOD/commondir"
echo "$OUT" > "$MOD/objects/info/alternates"; mv "$MOD/objects/info" "$MOD/objects/aside"
echo "[core] fsmonitor = evil" >> "$MOD/config"; echo ran`)
		for path, want := range map[string]string{
			dotGit: "gitdir: ../.git/modules/lib\n", filepath.Join(mod, "config"): "[core]\n\tworktree = ../../../lib\n",
			filepath.Join(mod, "commondir"): ".\n", filepath.Join(mod, "objects", "info", "alternates"): "",
		} {
			if got, err := os.ReadFile(path); err != nil || string(got) != want {
				t.Errorf("%s: %q %v, want %q (%s)", path, got, err, want, r.out)
			}
		}
	})
}

// A file the repository's config includes (include.path, includeIf's
// path: projects ship a shared config and tell people to include it) is
// config too: a confined command can neither change one that is there
// nor make one that is missing, in the root or in a cache.
func TestWhatTheConfigIncludesStays(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		if v.force == "none" {
			t.Skip("without a mount namespace the policy alone guards what is inside the root")
		}
		w := newWorld(t)
		shared := filepath.Join(w.root, "tools", "shared.gitconfig")
		missing := filepath.Join(w.cache, "local.gitconfig")
		mkdir(t, filepath.Dir(shared))
		write(t, shared, "[user]\n\tname = t\n[core]\n\thooksPath = .githooks\n")
		hook := filepath.Join(w.root, ".githooks", "pre-commit")
		mkdir(t, filepath.Dir(hook))
		write(t, hook, "#!/bin/sh\nexit 0\n")
		write(t, filepath.Join(w.root, ".git", "config"), "[core]\n[include]\n\tpath = ../tools/shared.gitconfig\n"+
			"[includeIf \"gitdir:/\"]\n\tpath = "+missing+"\n")
		r := run(t, w.plan(WorkspaceWrite), w.env("SHARED="+shared, "MISSING="+missing, "HOOK="+hook), `
echo "[core] fsmonitor = evil" >> "$SHARED"; rm -f "$SHARED"; echo "[core] fsmonitor = evil" > "$SHARED"
echo evil >> "$HOOK"; rm -f "$HOOK"; echo evil > "$HOOK"
echo "[core] fsmonitor = evil" > "$MISSING"; echo ran`)
		if got := read(t, hook); got != "#!/bin/sh\nexit 0\n" {
			t.Errorf("a hook where an included config puts them changed: %q (%s)", got, r.out)
		}
		if got := read(t, shared); got != "[user]\n\tname = t\n[core]\n\thooksPath = .githooks\n" {
			t.Errorf("the included config changed: %q (%s)", got, r.out)
		}
		if got, err := os.ReadFile(missing); err == nil && len(got) > 0 {
			t.Errorf("a config the repository includes was planted: %q (%s)", got, r.out)
		}
	})
}

// An include that names a folder (git refuses it) protects nothing: the
// root stays the command's to write.
func TestAnIncludedFolderIsNotProtected(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		w := newWorld(t)
		write(t, filepath.Join(w.root, ".git", "config"), "[core]\n[include]\n\tpath = ../\n")
		r := run(t, w.plan(WorkspaceWrite), w.env(), `echo new > "$ROOT/new" && echo wrote`)
		if !strings.Contains(r.out, "wrote") || !exists(filepath.Join(w.root, "new")) {
			t.Errorf("an include naming the root made it read-only: %s", r.out)
		}
	})
}

// A submodule whose git folder is in its work tree (added from a
// repository already there, or by an old git) has its config, hooks and
// pointers protected like the main repository's: the user's git status
// in the root runs git there.
func TestAnInPlaceSubmodulesConfigStays(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git here")
	}
	eachVariant(t, func(t *testing.T, v variant) {
		if v.force == "none" {
			t.Skip("without a mount namespace the policy alone guards what is inside the root")
		}
		w := newWorld(t)
		os.RemoveAll(filepath.Join(w.root, ".git"))
		gitRun(t, w.root, "init", "-q")
		sub := filepath.Join(w.root, "sub")
		gitRun(t, w.root, "init", "-q", "sub")
		gitRun(t, sub, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one")
		head, err := exec.Command("git", "-C", sub, "rev-parse", "HEAD").Output()
		if err != nil {
			t.Fatal(err)
		}
		gitRun(t, w.root, "update-index", "--add", "--cacheinfo", "160000,"+strings.TrimSpace(string(head))+",sub")
		config := filepath.Join(sub, ".git", "config")
		before := read(t, config)
		r := run(t, w.plan(WorkspaceWrite), w.env("SUB="+sub), `
echo "[core] fsmonitor = evil" >> "$SUB/.git/config"; echo "$OUT" > "$SUB/.git/commondir"; echo ran`)
		if got := read(t, config); got != before {
			t.Errorf("an in-place submodule's config changed: %q (%s)", got, r.out)
		}
		if got := read(t, filepath.Join(sub, ".git", "commondir")); got != ".\n" {
			t.Errorf("an in-place submodule's commondir: %q, want the neutral one (%s)", got, r.out)
		}
	})
}
