package sandbox

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestHeldNamespacesFollowTheHostsMounts: a file system mounted on the
// host after namespaces were held for a plan is seen by the plan's next
// command, and one unmounted is gone from it, as for a fresh trampoline.
func TestHeldNamespacesFollowTheHostsMounts(t *testing.T) {
	if len(stubProgram) == 0 || measured().nsFlags == 0 {
		t.Skip("no held namespaces here: no exec stub in this build, or no namespaces")
	}
	if !ownMountNamespace(t) {
		return
	}
	useHeld(t)
	w := newWorld(t)
	p := w.plan(WorkspaceWrite)
	mnt := filepath.Join(w.root, "mnt")
	mkdir(t, mnt)
	list := `ls -A "$ROOT/mnt"; echo end`
	if r := run(t, p, w.env(), list); r.out != "end\n" {
		t.Fatalf("before the mount: %q", r.out)
	}
	mountTmpfs(t, mnt)
	write(t, filepath.Join(mnt, "on-the-mount"), "mounted\n")
	if r := run(t, p, w.env(), list); !strings.Contains(r.out, "on-the-mount") {
		t.Errorf("a file system mounted on the host is not seen: %q", r.out)
	}
	if err := unix.Unmount(mnt, 0); err != nil {
		t.Fatal(err)
	}
	if r := run(t, p, w.env(), list); r.out != "end\n" {
		t.Errorf("a file system unmounted on the host is still seen: %q", r.out)
	}
}
