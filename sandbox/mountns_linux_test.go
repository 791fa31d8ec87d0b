package sandbox

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/termhelper/termhelper/internal/ownmounts"
	"golang.org/x/sys/unix"
)

// ownMountNamespace tells whether the test runs in a mount namespace of
// its own. Where it does not, it runs the test so in a child, takes the
// child's result for the test's, and the test returns at once. As root,
// the whole binary has one already (ownmounts). Footprints, spares and
// journals take any change of the mount table for a change: a test that
// mounted on the host would void those of every other test process on
// the machine.
func ownMountNamespace(t *testing.T) bool {
	t.Helper()
	if ownmounts.Own() {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run", runOnly(t.Name()), "-test.v")
	cmd.Env = append(os.Environ(), ownmounts.Env+"=1")
	cmd.SysProcAttr = newMountNamespace()
	out := &childLog{t: t}
	cmd.Stdout, cmd.Stderr, cmd.WaitDelay = out, out, 10*time.Second
	if err := cmd.Start(); err != nil {
		t.Skipf("no mount namespace of its own for the test: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("in its own mount namespace: %v", err)
	}
	if strings.Contains(out.all.String(), "--- SKIP: "+t.Name()+" ") {
		t.Skip("skipped in its own mount namespace, as logged")
	}
	return false
}

// newMountNamespace asks for a new mount namespace, in a user namespace
// of its own where the test is not root. Go makes / recursively private
// in it when CLONE_NEWNS is among Unshareflags (not Cloneflags): the
// child's mounts propagate to no other namespace.
func newMountNamespace() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS, Pdeathsig: syscall.SIGKILL}
	if uid, gid := os.Geteuid(), os.Getegid(); uid != 0 {
		a.Unshareflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
	}
	return a
}

// runOnly is the -test.run pattern for the test named name alone, a
// subtest's included.
func runOnly(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// childLog passes a child's output to the test's log as it comes, and
// keeps it.
type childLog struct {
	t   *testing.T
	all bytes.Buffer
}

func (l *childLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSuffix(string(p), "\n"))
	return l.all.Write(p)
}
