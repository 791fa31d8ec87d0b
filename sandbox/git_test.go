//go:build !windows

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// What points git elsewhere is protected in every git folder of the
// repository: the main one, each linked worktree's, each submodule's;
// and a submodule's .git file in the work tree. The files most
// repositories lack are made neutral where missing.
func TestWhatPointsGitElsewhereIsProtected(t *testing.T) {
	root := t.TempDir()
	git := filepath.Join(root, ".git")
	sub := filepath.Join(git, "modules", "lib")
	wt := filepath.Join(git, "worktrees", "side")
	for _, d := range []string{sub, wt, filepath.Join(root, "lib")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(sub, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(sub, "config"), []byte("[core]\n\tworktree = ../../../lib\n"), 0o644)
	os.WriteFile(filepath.Join(root, "lib", ".git"), []byte("gitdir: ../.git/modules/lib\n"), 0o644)
	p := Defaults(root, "/h", env(nil))
	for _, want := range []string{
		filepath.Join(git, "commondir"), filepath.Join(git, "config.worktree"), filepath.Join(git, "info") + "/",
		filepath.Join(git, "objects", "info", "alternates"),
		filepath.Join(wt, "commondir"), filepath.Join(wt, "gitdir"), filepath.Join(wt, "config.worktree"),
		filepath.Join(sub, "commondir"), filepath.Join(sub, "config"), filepath.Join(sub, "info") + "/",
		filepath.Join(root, "lib", ".git"),
		filepath.Join(root, ".vscode", "tasks.json"), filepath.Join(root, ".claude"), filepath.Join(root, ".envrc"),
	} {
		if !slices.Contains(p.Protect, want) {
			t.Errorf("%s is not protected: %v", want, p.Protect)
		}
	}
	for _, want := range []string{filepath.Join(git, "commondir"), filepath.Join(wt, "config.worktree"), filepath.Join(sub, "objects", "info", "alternates")} {
		if !slices.Contains(p.Neutral, want) {
			t.Errorf("%s is not made neutral where missing: %v", want, p.Neutral)
		}
	}
	if slices.Contains(p.Neutral, filepath.Join(root, ".envrc")) {
		t.Error("a file of the project is made where missing")
	}
	if neutralContent(filepath.Join(git, "commondir")) != ".\n" || neutralContent(filepath.Join(git, "config.worktree")) != "" {
		t.Error("a neutral commondir names its own folder; a neutral config is empty")
	}
}
