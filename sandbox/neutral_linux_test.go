package sandbox

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
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
