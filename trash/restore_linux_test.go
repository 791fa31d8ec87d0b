//go:build linux

package trash

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The trash on another file system than the project: the item is copied
// back, also through the folder opened on the way down.
func TestRestoreAcrossFileSystems(t *testing.T) {
	e := newEnv(t)
	shm, err := os.MkdirTemp("/dev/shm", "trash-test-")
	if err != nil {
		t.Skipf("no /dev/shm to put the trash on another file system: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(shm) })
	var a, b syscall.Statfs_t
	if syscall.Statfs(shm, &a) != nil || syscall.Statfs(e.proj, &b) != nil || a.Type == b.Type {
		t.Skip("/dev/shm is on the same kind of file system as the temporary folder")
	}
	e.trash = filepath.Join(shm, "trash")
	e.write("d/e/f.txt", []byte("across"))
	e.sh("rm -r d")
	if _, err := Restore(e.trash, e.proj, e.list()[0].ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(e.proj, "d/e/f.txt")); string(got) != "across" {
		t.Fatal("not restored across file systems")
	}
}
