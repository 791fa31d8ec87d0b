package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// sysvSegment is a SysV shared memory segment of this (unconfined)
// process holding "original", removed with the test.
func sysvSegment(t *testing.T) (id int, mem []byte) {
	t.Helper()
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o600)
	if err != nil {
		t.Skipf("no SysV shared memory here: %v", err)
	}
	t.Cleanup(func() { unix.SysvShmCtl(id, unix.IPC_RMID, nil) })
	if mem, err = unix.SysvShmAttach(id, 0, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.SysvShmDetach(mem) })
	copy(mem, "original")
	return id, mem
}

// The shared memory of processes outside the sandbox stays theirs: a
// SysV segment (reached by its id, whatever its permissions say to the
// same user) and a file in /dev/shm. The command gets an IPC namespace
// and a /dev/shm of its own, where its own shared memory still works.
func TestOtherProcessesSharedMemoryIsOutOfReach(t *testing.T) {
	if fi, err := os.Stat("/dev/shm"); err != nil || !fi.IsDir() {
		t.Skip("no /dev/shm here")
	}
	eachVariant(t, func(t *testing.T, v variant) {
		if v.force == "none" {
			t.Skip("without namespaces the command shares the machine's shared memory (Probe says so)")
		}
		w := newWorld(t)
		id, mem := sysvSegment(t)
		if got := act(t, w, w.plan(WorkspaceWrite), "shm:"+strconv.Itoa(id)); !strings.HasPrefix(got, "denied") {
			t.Errorf("attaching another process's segment: %s", got)
		}
		if string(mem[:8]) != "original" {
			t.Errorf("the segment became %q", mem[:8])
		}
		theirs := filepath.Join("/dev/shm", fmt.Sprintf("termhelper-test-%d-%s", os.Getpid(), v.name))
		write(t, theirs, "original\n")
		t.Cleanup(func() { os.Remove(theirs) })
		r := run(t, w.plan(WorkspaceWrite), w.env("THEIRS="+theirs), `
echo tampered > "$THEIRS"
echo mine > /dev/shm/own && cat /dev/shm/own`)
		if got := read(t, theirs); got != "original\n" {
			t.Errorf("%s became %q: %s", theirs, got, r.out)
		}
		if !strings.Contains(r.out, "mine") {
			t.Errorf("the command could not use a /dev/shm of its own: %s", r.out)
		}
	})
}
