package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// journalTree is a file, a folder whose entries count and a missing path,
// each under a folder of its own, and the journal armed for them.
type journalTree struct {
	base, file, listed, missing string
	mark                        journalMark
}

func newJournalTree(t *testing.T) *journalTree {
	t.Helper()
	base := t.TempDir()
	j := &journalTree{base: base, file: filepath.Join(base, "a", "b", "file"),
		listed: filepath.Join(base, "a", "listed"), missing: filepath.Join(base, "a", "gone", "deep", "x")}
	mkdir(t, filepath.Dir(j.file))
	mkdir(t, j.listed)
	write(t, j.file, "x")
	write(t, filepath.Join(j.listed, "entry"), "x")
	mark, covered := armJournal([]journalItem{{path: j.file, follow: true, attrs: true}, {path: j.listed, follow: true, entries: true},
		{path: j.missing, follow: true}})
	for i, c := range covered {
		if !c {
			t.Fatalf("item %d is not covered", i)
		}
	}
	if !journalStill(mark) {
		t.Fatal("the journal saw a change with nothing changed")
	}
	j.mark = mark
	return j
}

// Each change to what lies at a covered path, or to what a covered
// folder lists, is in the journal; a change beside them is not.
func TestJournalSeesEachChangeToWhatItCovers(t *testing.T) {
	for _, c := range []struct {
		what   string
		do     func(j *journalTree) error
		change bool
	}{
		{"the file removed", func(j *journalTree) error { return os.Remove(j.file) }, true},
		{"another file renamed over it", func(j *journalTree) error {
			other := filepath.Join(j.base, "a", "b", "other")
			os.WriteFile(other, []byte("y"), 0o644)
			return os.Rename(other, j.file)
		}, true},
		{"its mode changed", func(j *journalTree) error { return os.Chmod(j.file, 0o600) }, true},
		{"a folder on its way made unreadable", func(j *journalTree) error { return os.Chmod(filepath.Join(j.base, "a"), 0o700) }, true},
		{"a folder on its way renamed", func(j *journalTree) error {
			return os.Rename(filepath.Join(j.base, "a", "b"), filepath.Join(j.base, "a", "c"))
		}, true},
		{"a folder on its way replaced by a link to a copy", func(j *journalTree) error {
			a := filepath.Join(j.base, "a")
			if err := os.Rename(a, filepath.Join(j.base, "copy")); err != nil {
				return err
			}
			return os.Symlink(filepath.Join(j.base, "copy"), a)
		}, true},
		{"an entry made in the folder listed", func(j *journalTree) error { return os.WriteFile(filepath.Join(j.listed, "new"), nil, 0o644) }, true},
		{"an entry of the folder listed written in place", func(j *journalTree) error {
			return os.WriteFile(filepath.Join(j.listed, "entry"), []byte("y"), 0o644)
		}, false},
		{"an entry of the folder listed renamed", func(j *journalTree) error {
			return os.Rename(filepath.Join(j.listed, "entry"), filepath.Join(j.listed, "moved"))
		}, true},
		{"its mode changed through another link", func(j *journalTree) error {
			other := filepath.Join(j.base, "link")
			if err := os.Link(j.file, other); err != nil {
				return err
			}
			journalStill(j.mark) // the new link's own event is counted: take it first
			j.mark, _ = armJournal(nil)
			return os.Chmod(other, 0o600)
		}, true},
		{"the first missing step made", func(j *journalTree) error { return os.Mkdir(filepath.Join(j.base, "a", "gone"), 0o755) }, true},
		{"a file made beside the paths", func(j *journalTree) error { return os.WriteFile(filepath.Join(j.base, "a", "beside"), nil, 0o644) }, false},
		{"a file beside the file made", func(j *journalTree) error { return os.WriteFile(filepath.Join(j.base, "a", "b", "beside"), nil, 0o644) }, false},
		{"the file written in place", func(j *journalTree) error { return os.WriteFile(j.file, []byte("y"), 0o644) }, false},
	} {
		t.Run(c.what, func(t *testing.T) {
			j := newJournalTree(t)
			if err := c.do(j); err != nil {
				t.Fatal(err)
			}
			if still := journalStill(j.mark); still == c.change {
				t.Errorf("changed: %v, want %v", !still, c.change)
			}
		})
	}
}

// A path whose way passes a link, or ends in one that is followed, or
// lies on a file system whose changes the kernel may not see made, is
// not covered: its check looks at it each time.
func TestJournalLeavesWhatItCannotCover(t *testing.T) {
	base := t.TempDir()
	mkdir(t, filepath.Join(base, "real"))
	must(t, os.Symlink(filepath.Join(base, "real"), filepath.Join(base, "link")))
	for _, c := range []struct {
		item    journalItem
		covered bool
	}{
		{journalItem{path: filepath.Join(base, "link", "x"), follow: true}, false},
		{journalItem{path: filepath.Join(base, "link", "x")}, false},
		{journalItem{path: filepath.Join(base, "link"), follow: true}, false},
		{journalItem{path: filepath.Join(base, "link")}, true},
		{journalItem{path: filepath.Join(base, "real", "x"), follow: true}, true},
		{journalItem{path: "/proc/self/status", follow: true}, false},
		{journalItem{path: "relative", follow: true}, false},
	} {
		if _, covered := armJournal([]journalItem{c.item}); covered[0] != c.covered {
			t.Errorf("%+v: covered %v, want %v", c.item, covered[0], c.covered)
		}
	}
}

// Events lost count as a change, though every one was beside the paths.
func TestJournalCountsLostEvents(t *testing.T) {
	max, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events")
	n, _ := strconv.Atoi(string(max[:len(max)-1]))
	if err != nil || n <= 0 || n > 100000 {
		t.Skipf("the queue's length here: %q, %v", max, err)
	}
	j := newJournalTree(t)
	var beside [2]string
	for i := range beside {
		beside[i] = filepath.Join(j.base, "a", "b", "beside"+strconv.Itoa(i))
		write(t, beside[i], "")
	}
	now := time.Now()
	for i := range n + 10 {
		// an IN_ATTRIB each, for entries that do not count; alike in turn, never merged
		os.Chtimes(beside[i%2], now, now.Add(time.Duration(i)))
	}
	if journalStill(j.mark) {
		t.Error("the queue overflowed and the journal holds")
	}
	if k := newJournalTree(t); !journalStill(k.mark) {
		t.Error("nothing is tested: the journal does not hold once drained")
	}
}

// A mount on the way is no entry's change: the mark holds the mount
// table's generation. A mount's root notifies no folder above it: a path
// ending there is watched itself where its attributes count.
func TestJournalSeesMountsAndTheirRoots(t *testing.T) {
	if !ownMountNamespace(t) {
		return
	}
	j := newJournalTree(t)
	mountTmpfs(t, filepath.Join(j.base, "a", "b"))
	if journalStill(j.mark) {
		t.Error("a file system mounted on the way and the journal holds")
	}
	mnt := filepath.Join(j.base, "a", "b")
	mark, covered := armJournal([]journalItem{{path: mnt, follow: true, attrs: true}})
	if !covered[0] || !journalStill(mark) {
		t.Fatal("the mount's root is not covered")
	}
	must(t, os.Chmod(mnt, 0o700))
	if journalStill(mark) {
		t.Error("a mount's root changed its mode and the journal holds")
	}
}

// Kept lists follow a file system mounted where they were read: a
// submodule that appears on it is protected as a fresh plan protects it.
func TestKeptListsFollowAMount(t *testing.T) {
	if !ownMountNamespace(t) {
		return
	}
	k := newKeptPlan(t)
	modules := filepath.Join(k.root, ".git", "modules")
	mkdir(t, modules)
	for range 3 {
		k.plan() // made, looked at, armed
	}
	if !keptMark().armed() {
		t.Fatal("the journal was not armed for the kept lists")
	}
	mountTmpfs(t, modules)
	k.write(filepath.Join(modules, "lib", "HEAD"), "ref: refs/heads/main\n")
	want := filepath.Join(modules, "lib", "config")
	if kept := k.plan(); !slices.Contains(kept.Protect, want) {
		t.Errorf("%s, on a file system mounted since, is not protected", want)
	}
}

// A queue that cannot be read ends the journal: an event may be left in
// it, so no mark holds after.
func TestJournalEndsWhenItsQueueCannotBeRead(t *testing.T) {
	j := newJournalTree(t)
	t.Cleanup(func() {
		journal.Lock()
		journal.tried = false // the next arming makes a journal anew
		journal.Unlock()
	})
	// Its reads now fail: the descriptor stays the journal's (a number
	// closed here could be another's by the read, and closed again by it).
	w, err := unix.Open("/dev/null", unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	journal.Lock()
	err = unix.Dup3(w, journal.fd, unix.O_CLOEXEC)
	journal.Unlock()
	unix.Close(w)
	if err != nil {
		t.Fatal(err)
	}
	if journalStill(j.mark) {
		t.Error("the journal's queue could not be read and the journal holds")
	}
	if _, covered := armJournal([]journalItem{{path: j.file}}); covered[0] {
		t.Error("a journal ended for a failed read covers a path again")
	}
}
