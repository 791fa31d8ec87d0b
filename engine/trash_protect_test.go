//go:build unix

package engine

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// forgeTrashEntry writes a trash entry as any command can (the trash
// folder is one of the places a confined command may write): an
// executable item and the path it claims to come from.
func forgeTrashEntry(t *testing.T, trashDir, id, path string) {
	t.Helper()
	dir := filepath.Join(trashDir, id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "item"), []byte("#!/bin/sh\ntouch /tmp/pwned\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "path"), []byte(path), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A restore is done by the helper, outside the sandbox: a forged entry
// must not put a git hook, git's config or .termhelper.toml where a
// confined command could not write them; an ordinary entry still comes
// back.
func TestTrashRestoreNeverWritesAProtectedPath(t *testing.T) {
	e, root := newTestEngine(t, true)
	hooks := filepath.Join(root, ".git", "hooks")
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for id, path := range map[string]string{
		"hook":      filepath.Join(hooks, "pre-commit"),
		"dotdot":    filepath.Join(root, "src", "..", ".git", "hooks", "post-checkout"),
		"config":    filepath.Join(root, ".termhelper.toml"),
		"submodule": filepath.Join(root, ".git", "modules", "m", "hooks", "pre-commit"),
	} {
		forgeTrashEntry(t, e.opts.TrashDir, id, path)
		if id == "submodule" {
			m := filepath.Join(root, ".git", "modules", "m")
			os.MkdirAll(filepath.Join(m, "hooks"), 0o755)
			os.WriteFile(filepath.Join(m, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
		}
		_, err := e.TrashRestore(id)
		var pe *ParamError
		if !errors.As(err, &pe) {
			t.Errorf("%s: restore answered %v, want a refusal", id, err)
		}
		if _, err := os.Lstat(filepath.Clean(path)); err == nil {
			t.Errorf("%s: the restore wrote %s", id, path)
		}
	}
	forgeTrashEntry(t, e.opts.TrashDir, "plain", filepath.Join(root, "src", "app.sh"))
	if _, err := e.TrashRestore("plain"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "src", "app.sh")); err != nil {
		t.Fatal(err)
	}
}
