//go:build linux || darwin

package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// keptPlan is a repository and a home for the kept default lists' tests.
type keptPlan struct {
	t          *testing.T
	root, home string
	vars       map[string]string
}

// keptMark is the journal's mark for the kept lists.
func keptMark() journalMark {
	made.Lock()
	defer made.Unlock()
	return made.mark
}

func newKeptPlan(t *testing.T) *keptPlan {
	noRacyWindow(t)
	base := t.TempDir()
	k := &keptPlan{t: t, root: filepath.Join(base, "repo"), home: filepath.Join(base, "home"), vars: map[string]string{}}
	k.write(filepath.Join(k.root, ".git", "config"), "[core]\n\tbare  =  false\n")
	must(t, os.MkdirAll(k.home, 0o755))
	return k
}

func (k *keptPlan) plan() Plan { return Defaults(k.root, k.home, env(k.vars)) }

func (k *keptPlan) write(path, content string) {
	k.t.Helper()
	must(k.t, os.MkdirAll(filepath.Dir(path), 0o755))
	must(k.t, os.WriteFile(path, []byte(content), 0o644))
}

// fresh is the plan made anew, as it would be without kept lists.
func (k *keptPlan) fresh() Plan { return defaults(k.root, k.home, env(k.vars), nil) }

// noRacyWindow trusts change times however recent, for the test: what a
// test writes is read at once.
func noRacyWindow(t *testing.T) {
	old := racyWindow
	racyWindow = 0
	t.Cleanup(func() { racyWindow = old })
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Each thing the default lists are made from, changed after a plan was
// made, is in the next plan: the lists are kept only while nothing
// changed.
func TestKeptListsFollowWhatTheyWereMadeFrom(t *testing.T) {
	for name, change := range map[string]func(k *keptPlan) string{
		"a cache's parent appears": func(k *keptPlan) string {
			must(t, os.MkdirAll(filepath.Join(k.home, ".cargo"), 0o755))
			return filepath.Join(k.home, ".cargo", "registry")
		},
		"the hooks path is set in the config, its time set back": func(k *keptPlan) string {
			config := filepath.Join(k.root, ".git", "config")
			fi, err := os.Stat(config)
			must(t, err)
			k.write(config, "[core]\n\thooksPath = hk\n") // the same size
			must(t, os.Chtimes(config, fi.ModTime(), fi.ModTime()))
			return filepath.Join(k.root, "hk") + "/"
		},
		"a submodule appears": func(k *keptPlan) string {
			k.write(filepath.Join(k.root, ".git", "modules", "lib", "HEAD"), "ref: refs/heads/main\n")
			return filepath.Join(k.root, ".git", "modules", "lib", "config")
		},
		"a variable moves a secret place": func(k *keptPlan) string {
			k.vars["GNUPGHOME"] = "/keys/gnupg"
			return "/keys/gnupg"
		},
		"a folder replaces the link that was .git/modules": func(k *keptPlan) string {
			modules := filepath.Join(k.root, ".git", "modules")
			must(t, os.Rename(modules, modules+".link"))
			k.write(filepath.Join(modules, "lib", "HEAD"), "ref: refs/heads/main\n")
			return filepath.Join(modules, "lib", "config")
		},
		"the repository becomes a worktree": func(k *keptPlan) string {
			main := filepath.Join(filepath.Dir(k.root), "main")
			gitDir := filepath.Join(main, ".git", "worktrees", "repo")
			k.write(filepath.Join(gitDir, "commondir"), "../..\n")
			k.write(filepath.Join(gitDir, "gitdir"), filepath.Join(k.root, ".git")+"\n")
			must(t, os.RemoveAll(filepath.Join(k.root, ".git")))
			k.write(filepath.Join(k.root, ".git"), "gitdir: "+gitDir+"\n")
			return gitDir
		},
	} {
		t.Run(name, func(t *testing.T) {
			k := newKeptPlan(t)
			if strings.Contains(name, "link") {
				must(t, os.Symlink(k.home, filepath.Join(k.root, ".git", "modules")))
			}
			before := k.plan()
			k.plan()
			k.plan() // the second look arms the journal: the change is seen by it
			if runtime.GOOS == "linux" && !keptMark().armed() {
				t.Fatal("the journal was not armed for the kept lists")
			}
			want := change(k)
			after := k.plan()
			if !after.Same(k.fresh()) {
				t.Errorf("the plan is not made anew:\n got %+v\nwant %+v", after, k.fresh())
			}
			if all := slices.Concat(after.Writable, after.Protect, after.Hide); !slices.Contains(all, want) {
				t.Errorf("%s is not in the plan: %+v", want, after)
			}
			if before.Same(after) {
				t.Error("the change made no difference: nothing is tested")
			}
		})
	}
}

// Kept lists are each caller's own, and a missing cache the plan made is
// not taken for a change.
func TestKeptListsAreKept(t *testing.T) {
	k := newKeptPlan(t)
	must(t, os.MkdirAll(filepath.Join(k.home, ".cache"), 0o755))
	first := k.plan()
	if !slices.Contains(first.Writable, filepath.Join(k.home, ".cache", "pip")) {
		t.Fatalf("the missing cache was not made: %v", first.Writable)
	}
	if _, ok := madeBefore(k.root, k.home, env(k.vars)); !ok {
		t.Error("the lists were not kept: the next plan reads everything again")
	}
	first.Hide[0], first.Writable[0] = "changed", "changed"
	if again := k.plan(); !again.Same(k.fresh()) {
		t.Errorf("a caller changed the next one's plan: %+v", again)
	}
	time.Sleep(10 * time.Millisecond)
	if !k.plan().Same(k.fresh()) {
		t.Error("the plan changed with nothing changed")
	}
}

// A path read twice that was not the same both times (the lists may mix
// both), or that changed too recently for its change time to tell its
// next change, leaves nothing kept.
func TestUnsureListsAreNotKept(t *testing.T) {
	k := newKeptPlan(t)
	config := filepath.Join(k.root, ".git", "config")
	r := &reads{}
	r.open(config)
	k.write(config, "[core]\n\thooksPath = elsewhere\n")
	r.open(config)
	keepMade(k.root, k.home, r, Plan{Root: k.root})
	if _, ok := madeBefore(k.root, k.home, env(k.vars)); ok {
		t.Error("lists read from a file that changed while they were made were kept")
	}

	racyWindow = time.Hour
	k.plan()
	if _, ok := madeBefore(k.root, k.home, env(k.vars)); ok {
		t.Error("lists read from a file written within the racy window were kept")
	}
	racyWindow = 0
	k.plan()
	if _, ok := madeBefore(k.root, k.home, env(k.vars)); !ok {
		t.Error("nothing is tested: the lists are not kept even outside the window")
	}
}

// The journal is armed at the second look since the lists were made, so
// lists made again at each command do not pay for arming it.
func TestKeptListsArmTheJournalAtTheSecondLook(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the journal is Linux's")
	}
	k := newKeptPlan(t)
	for i, want := range []bool{false, false, true, true} {
		k.plan()
		if got := keptMark().armed(); got != want {
			t.Fatalf("plan %d: journal armed %v, want %v", i+1, got, want)
		}
	}
	k.write(filepath.Join(k.root, ".git", "config"), "[core]\n\thooksPath = hk\n")
	k.plan()
	if keptMark().armed() {
		t.Error("lists made again after a change armed the journal at once")
	}
}
