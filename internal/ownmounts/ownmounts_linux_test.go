package ownmounts

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) { os.Exit(Run(m)) }

// As root, the tests run in a child whose mount namespace is not its
// parent's, and a mount made in it does not reach the parent.
func TestTheTestsMountsAreTheirOwn(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: the tests run in the host's mount namespace")
	}
	if !Own() {
		t.Fatal("the tests run as root without a mount namespace of their own")
	}
	parent := os.Getppid()
	mine, _ := os.Readlink("/proc/self/ns/mnt")
	theirs, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", parent))
	if err != nil || mine == theirs {
		t.Fatalf("the tests' mount namespace %q, their parent's %q (%v)", mine, theirs, err)
	}
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=1m"); err != nil {
		t.Fatal(err)
	}
	defer unix.Unmount(dir, unix.MNT_DETACH)
	if !strings.Contains(mountinfo(t, "self"), " "+dir+" ") {
		t.Fatal("the mount is not in the tests' own table: nothing is tested")
	}
	if strings.Contains(mountinfo(t, fmt.Sprint(parent)), " "+dir+" ") {
		t.Error("a mount the tests made reached their parent's namespace")
	}
}

func mountinfo(t *testing.T, pid string) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + pid + "/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
