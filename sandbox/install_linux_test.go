package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// fakeNpxInstall lays out termhelper as npx installs it, in npm's cache
// under home, and makes it the executable Defaults sees.
func fakeNpxInstall(t *testing.T, home string) (install, binary string) {
	t.Helper()
	install = filepath.Join(home, ".npm", "_npx", "3f2a9c1d")
	binary = filepath.Join(install, "node_modules", "@termhelper", "linux-x64", "termhelper")
	mkdir(t, filepath.Dir(binary))
	mkdir(t, filepath.Join(install, "node_modules", "termhelper", "lib"))
	write(t, binary, "the real binary\n")
	write(t, filepath.Join(install, "node_modules", "termhelper", "lib", "cli.js"), "the real launcher\n")
	old := executable
	executable = func() (string, error) { return binary, nil }
	t.Cleanup(func() { executable = old })
	return install, binary
}

// termhelper installed by npx lives in npm's cache, which confined
// commands may write: its launcher and binary must stay as installed, or
// the next start would run a command's code outside any sandbox. Other
// npx installs beside it are still made.
func TestTheHelpersOwnInstallStaysAsInstalled(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		if v.force == "none" {
			t.Skip("without a mount namespace a path inside a granted place cannot be kept read-only (Probe says so)")
		}
		w := newWorld(t)
		install, binary := fakeNpxInstall(t, w.home)
		launcher := filepath.Join(install, "node_modules", "termhelper", "lib", "cli.js")
		r := run(t, w.plan(WorkspaceWrite), w.env("INSTALL="+install), `
echo evil > "$INSTALL/node_modules/@termhelper/linux-x64/termhelper"
echo evil > "$INSTALL/node_modules/termhelper/lib/cli.js"
mv "$INSTALL" "$INSTALL.aside"
mv "$HOME/.npm/_npx" "$HOME/.npm/_npx.aside"
mkdir -p "$HOME/.npm/_npx/other" && echo ok > "$HOME/.npm/_npx/other/made"
true`)
		if b := read(t, binary); b != "the real binary\n" {
			t.Errorf("the binary became %q: %s", b, r.out)
		}
		if b := read(t, launcher); b != "the real launcher\n" {
			t.Errorf("the launcher became %q: %s", b, r.out)
		}
		if !exists(filepath.Join(w.home, ".npm", "_npx", "other", "made")) {
			t.Errorf("another npx install could not be made: %s", r.out)
		}
	})
}

// A termhelper inside the root is the project's own: nothing there is
// kept read-only for it.
func TestAnInstallInsideTheRootIsTheProjects(t *testing.T) {
	w := newWorld(t)
	old := executable
	executable = func() (string, error) { return filepath.Join(w.root, "bin", "termhelper"), nil }
	t.Cleanup(func() { executable = old })
	for _, p := range Defaults(w.root, w.home, w.getenv).Protect {
		if p == w.root || p == filepath.Join(w.root, "bin") {
			t.Errorf("%s is protected", p)
		}
	}
	if _, err := os.Stat(w.root); err != nil {
		t.Fatal(err)
	}
}
