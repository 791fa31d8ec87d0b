package sandbox

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/termhelper/termhelper/platform"
	"golang.org/x/sys/unix"
)

// The trampoline makes a neutral file only in a writable place, even
// while another confined command swaps the folder that holds it for a
// link to a folder outside, between the check and the making.
func TestNeutralFileIsMadeOnlyInAWritablePlace(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	dir, aside := filepath.Join(root, "info"), filepath.Join(root, "info.aside")
	for _, d := range []string{outside, dir, aside} {
		mkdir(t, d)
	}
	link := filepath.Join(root, "info.link")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "alternates")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { swapFolder(stop, dir, aside, link) })
	for range 20000 {
		if err := makeNeutral(path, []string{path}, []string{root}); err != nil {
			t.Errorf("making %s: %v", path, err)
			break
		}
		os.Remove(filepath.Join(aside, "alternates"))
		if exists(filepath.Join(outside, "alternates")) {
			t.Error("a neutral file was made outside the writable places, through a folder swapped for a link")
			break
		}
	}
	close(stop)
	wg.Wait()
}

// swapFolder swaps dir between a folder and a link to outside until
// stop closes, as a confined command racing the trampoline would.
func swapFolder(stop chan struct{}, dir, aside, link string) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		os.Rename(dir, aside+".tmp")
		os.Rename(link, dir)
		os.Rename(dir, link)
		os.Rename(aside+".tmp", dir)
	}
}

// A neutral file appears whole: the only event for its name is its
// making, never a write after it (an empty commondir, read by a git
// running beside the holder, stops that git).
func TestNeutralFileAppearsWhole(t *testing.T) {
	for _, byName := range []bool{false, true} {
		root := t.TempDir()
		mkdir(t, filepath.Join(root, ".git"))
		path := filepath.Join(root, ".git", "commondir")
		fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
		if err != nil {
			t.Skipf("no inotify here: %v", err)
		}
		defer unix.Close(fd)
		if _, err := unix.InotifyAddWatch(fd, filepath.Dir(path), unix.IN_CREATE|unix.IN_MODIFY|unix.IN_CLOSE_WRITE|unix.IN_MOVED_TO); err != nil {
			t.Fatal(err)
		}
		if byName {
			dirfd, _ := openWritableDir(filepath.Dir(path), []string{root})
			err = linkWholeByName(dirfd, "commondir", neutralContent(path))
			unix.Close(dirfd)
		} else {
			err = makeNeutral(path, []string{path}, []string{root})
		}
		if err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != ".\n" {
			t.Fatalf("by name %v: commondir holds %q, %v", byName, b, err)
		}
		var events []uint32
		buf := make([]byte, 4096)
		n, _ := unix.Read(fd, buf)
		platform.InotifyEvents(buf[:max(n, 0)], func(ev *unix.InotifyEvent, name string) {
			if name == "commondir" {
				events = append(events, ev.Mask)
			}
		})
		if len(events) != 1 || events[0] != unix.IN_CREATE {
			t.Errorf("by name %v: the events for commondir are %x, want its making alone", byName, events)
		}
		if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
			t.Errorf("by name %v: something else was left beside it: %v", byName, entries)
		}
	}
}
