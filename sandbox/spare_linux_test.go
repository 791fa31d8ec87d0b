package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/termhelper/termhelper/internal/ownmounts"
	"golang.org/x/sys/unix"
)

// armed checks f once, which arms its journal: the next check is the
// journal's. It fails where the journal covers none of f.
func armed(t *testing.T, f Footprint) Footprint {
	t.Helper()
	if !f.Holds() {
		t.Fatal("the footprint changed with nothing changed")
	}
	f.journal.Lock()
	defer f.journal.Unlock()
	if !f.journal.mark.armed() {
		t.Fatal("the journal covers nothing of the footprint")
	}
	return f
}

func TestFootprintChangesWithWhatLiesAtThePlansPaths(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	os.Mkdir(root, 0o755)
	config := filepath.Join(root, ".termhelper.toml")
	p := Plan{Mode: WorkspaceWrite, Root: root, TempDir: dir,
		Protect: []string{config, filepath.Join(root, ".git", "hooks") + "/"},
		Hide:    []string{filepath.Join(dir, "home", ".aws")}}
	steps := []struct {
		what string
		do   func() error
	}{
		{"the protected file appears", func() error { return os.WriteFile(config, []byte("a"), 0o644) }},
		{"the protected file is replaced", func() error {
			os.WriteFile(config+".new", []byte("b"), 0o644)
			return os.Rename(config+".new", config)
		}},
		{"the folder a protected folder would be made in appears", func() error { return os.Mkdir(filepath.Join(root, ".git"), 0o755) }},
		{"a secret place appears", func() error { return os.MkdirAll(filepath.Join(dir, "home", ".aws"), 0o700) }},
	}
	before := armed(t, FootprintOf(p))
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatal(err)
		}
		if before.Holds() {
			t.Errorf("%s: the footprint did not change", s.what)
		}
		before = armed(t, FootprintOf(p))
	}
	os.WriteFile(config, []byte("written in place"), 0o644) // same file: the spare's mount shows it
	if !before.Holds() {
		t.Error("a write in place changed the footprint")
	}
}

func TestTheTrampolineIsASpareOnlyWithItsSocket(t *testing.T) {
	plan := func(ctl int) string {
		b, _ := json.Marshal(wire{Plan: Plan{Mode: ReadOnly, Network: NetworkOpen, TempDir: "/tmp"}, CtlFD: ctl})
		return string(b)
	}
	for _, args := range [][]string{{plan(0), spareArg}, {plan(3), "--", "true"}, {plan(3), spareArg, "true"}} {
		if _, _, err := parseArgs(args); err == nil {
			t.Errorf("%q was taken", strings.Join(args[1:], " "))
		}
	}
	if _, argv, err := parseArgs([]string{plan(3), spareArg}); err != nil || argv != nil {
		t.Errorf("a spare's arguments: %v, %v", argv, err)
	}
}

// Most secret places are missing, under a few folders: a footprint looks
// at those folders, and at each place only once its folder has changed.
// A place appearing is seen however deep; a change beside it is not one.
func TestFootprintSeesMissingPlacesAppear(t *testing.T) {
	noRacyWindow(t)
	home := t.TempDir()
	os.Mkdir(filepath.Join(home, ".kube"), 0o700)
	os.WriteFile(filepath.Join(home, ".netrc"), nil, 0o600)
	p := Plan{Mode: WorkspaceWrite, Root: home, TempDir: home, Hide: []string{
		filepath.Join(home, ".aws"), filepath.Join(home, ".aws", "credentials"),
		filepath.Join(home, ".config", "gh"), filepath.Join(home, ".config", "glab-cli"),
		filepath.Join(home, ".kube", "config"), filepath.Join(home, ".netrc", "x")}}
	f := FootprintOf(p)
	if len(f.gone) != 2 {
		t.Fatalf("the missing places are not filed by folder: %+v", f.gone)
	}
	steps := []struct {
		what   string
		do     func() error
		change bool
	}{
		{"a file made beside them", func() error { return os.WriteFile(filepath.Join(home, ".viminfo"), nil, 0o600) }, false},
		{"a place appears under a missing folder", func() error { return os.MkdirAll(filepath.Join(home, ".config", "gh"), 0o700) }, true},
		{"a place appears beside one that appeared", func() error { return os.Mkdir(filepath.Join(home, ".config", "glab-cli"), 0o700) }, true},
		{"a place appears in a folder that was there", func() error { return os.WriteFile(filepath.Join(home, ".kube", "config"), nil, 0o600) }, true},
		{"a file is written in a folder that was there", func() error { return os.WriteFile(filepath.Join(home, ".kube", "cache"), nil, 0o600) }, false},
	}
	for _, s := range steps {
		armed(t, f)
		if err := s.do(); err != nil {
			t.Fatal(err)
		}
		if f.Holds() == s.change {
			t.Errorf("%s: changed is %v, want %v", s.what, !f.Holds(), s.change)
		}
		f = FootprintOf(p)
	}
}

// A link to nowhere is not a missing path: what it points to may appear
// anywhere, with no change to the folder that holds the link (a dotfile
// manager's ~/.config, linked to a folder not made yet).
func TestFootprintFollowsLinksToNowhere(t *testing.T) {
	noRacyWindow(t)
	base := t.TempDir()
	home, dotfiles := filepath.Join(base, "home"), filepath.Join(base, "dotfiles")
	must(t, os.MkdirAll(filepath.Join(home, ".kube"), 0o700))
	must(t, os.Symlink(filepath.Join(dotfiles, "config"), filepath.Join(home, ".config")))
	must(t, os.Symlink(filepath.Join(dotfiles, "kube"), filepath.Join(home, ".kube", "config")))
	p := Plan{Mode: WorkspaceWrite, Root: home, TempDir: home,
		Hide: []string{filepath.Join(home, ".config", "gh"), filepath.Join(home, ".kube", "config")}}
	for what, target := range map[string]string{
		"under a linked folder": filepath.Join(dotfiles, "config", "gh"),
		"a linked file":         filepath.Join(dotfiles, "kube"),
	} {
		f := FootprintOf(p)
		f.Holds() // arms the journal for what it covers
		must(t, os.MkdirAll(target, 0o700))
		if f.Holds() {
			t.Errorf("%s: a secret place appeared through a link and the footprint holds", what)
		}
	}
}

// A folder that changed within the racy window files nothing: its next
// change could keep its change time.
func TestFootprintDoesNotTrustAFolderJustChanged(t *testing.T) {
	home := t.TempDir()
	p := Plan{Mode: WorkspaceWrite, Root: home, TempDir: home, Hide: []string{filepath.Join(home, ".aws")}}
	if f := readFootprint(p); len(f.gone) != 0 {
		t.Errorf("a folder made just now holds missing paths: %+v", f.gone)
	}
	noRacyWindow(t)
	if f := readFootprint(p); len(f.gone) != 1 {
		t.Errorf("nothing is tested: the folder holds no missing paths outside the window: %+v", f.gone)
	}
}

// mountTmpfs mounts a tmpfs at dir in the test's own mount namespace
// (ownMountNamespace) until the test ends, or skips where this process
// may not mount.
func mountTmpfs(t *testing.T, dir string) {
	t.Helper()
	if !ownmounts.Own() {
		t.Fatal("a tmpfs mounted here would be the host's: the test calls ownMountNamespace first")
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("mounting a tmpfs here: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
}

func TestFootprintChangesWithTheHelpersMounts(t *testing.T) {
	if !ownMountNamespace(t) {
		return
	}
	dir := t.TempDir()
	p := Plan{Mode: WorkspaceWrite, Root: dir, TempDir: dir}
	mnt := filepath.Join(dir, "mnt")
	os.Mkdir(mnt, 0o755)
	before := FootprintOf(p)
	if !before.Holds() {
		t.Fatal("the footprint changed with nothing changed")
	}
	mountTmpfs(t, mnt)
	if before.Holds() {
		t.Error("a file system mounted on the host did not change the footprint")
	}
	before = FootprintOf(p)
	if !before.Holds() {
		t.Fatal("the footprint changed with nothing changed after a mount")
	}
	if err := unix.Unmount(mnt, 0); err != nil {
		t.Fatal(err)
	}
	if before.Holds() {
		t.Error("a file system unmounted on the host did not change the footprint")
	}
}

// FootprintOf gives its last read again while it holds as read, and reads
// afresh once a folder of missing paths changed (to group them again) or
// a path changed.
func TestFootprintOfKeepsItsLastReadWhileItHolds(t *testing.T) {
	noRacyWindow(t)
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	os.Mkdir(home, 0o755)
	p := Plan{Mode: WorkspaceWrite, Root: dir, TempDir: dir, Hide: []string{filepath.Join(home, ".aws"), filepath.Join(home, ".kube")}}
	same := func(a, b Footprint) bool { return len(a.gone) > 0 && len(b.gone) > 0 && &a.gone[0] == &b.gone[0] }
	first := FootprintOf(p)
	if len(first.gone) != 1 {
		t.Fatalf("nothing is tested: the missing places are not grouped: %+v", first)
	}
	if again := FootprintOf(p); !same(first, again) {
		t.Error("a footprint that holds was read again")
	}
	write(t, filepath.Join(home, "unrelated"), "x") // the folder changes, the places stay missing
	if !first.Holds() {
		t.Fatal("an unrelated file changed the footprint")
	}
	second := FootprintOf(p)
	if same(first, second) {
		t.Error("a footprint whose folder changed was kept: each check would look at every path")
	}
	if _, exact := second.check(); !exact {
		t.Error("the fresh read did not group the missing places under the folder as it is")
	}
	mkdir(t, filepath.Join(home, ".aws"))
	if second.Holds() {
		t.Fatal("a secret place appeared and the footprint holds")
	}
	if third := FootprintOf(p); same(second, third) || !third.Holds() {
		t.Error("a footprint that no longer holds was given again")
	}
}
