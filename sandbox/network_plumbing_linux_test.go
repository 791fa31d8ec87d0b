package sandbox

import (
	"encoding/binary"
	"errors"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The network filter and its supervisor have tests of their own; these
// test the plumbing between them: the listener crosses from the
// trampoline to the helper before the command runs, the command never
// holds it nor the socket, and a filter that cannot be installed runs
// nothing.

// fakeFilterVar makes the trampoline install a stand-in filter: an
// eventfd holding a number, sent as the listener.
const fakeFilterVar = "SANDBOX_TEST_FAKE_FILTER"

func testTrampoline() {
	switch os.Getenv(fakeFilterVar) {
	case "send":
		installFilter = func(Network) (int, error) { return unix.Eventfd(42, unix.EFD_CLOEXEC) }
	case "fail":
		installFilter = func(Network) (int, error) { return -1, errors.New("no filter for you") }
	}
}

// received is what the stand-in supervisor got.
type received struct {
	mu    sync.Mutex
	count uint64
	pid   int
	done  chan struct{}
}

func fakeSupervisor(t *testing.T) *received {
	r := &received{done: make(chan struct{})}
	old := supervise
	supervise = func(l *os.File, pid int, _ *slog.Logger) *netSupervisor {
		b := make([]byte, 8)
		l.Read(b)
		l.Close()
		r.mu.Lock()
		r.count, r.pid = binary.NativeEndian.Uint64(b), pid
		r.mu.Unlock()
		close(r.done)
		return &netSupervisor{}
	}
	forceNetwork = true
	t.Cleanup(func() { supervise, forceNetwork = old, false })
	return r
}

func TestTheListenerReachesTheHelperBeforeTheCommandRuns(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		got := fakeSupervisor(t)
		w := newWorld(t)
		p := w.plan(WorkspaceWrite)
		p.Network = NetworkProxy
		r := run(t, p, w.env(fakeFilterVar+"=send"), `ls -l /proc/$$/fd/; echo ran`)
		select {
		case <-got.done:
		case <-time.After(watchdog):
			t.Fatal("the supervisor never got the listener")
		}
		if got.count != 42 || got.pid <= 0 {
			t.Errorf("the supervisor got the count %d for pid %d", got.count, got.pid)
		}
		if !strings.Contains(r.out, "ran") || strings.Contains(r.out, "socket:") || strings.Contains(r.out, "eventfd") {
			t.Errorf("the command must run holding neither the socket nor the listener:\n%s", r.out)
		}
	})
}

func TestAFilterThatCannotBeInstalledRunsNothing(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		fakeSupervisor(t)
		w := newWorld(t)
		p := w.plan(WorkspaceWrite)
		p.Network = NetworkOff
		r := run(t, p, w.env(fakeFilterVar+"=fail"), `echo ran`)
		if r.code != 126 || strings.Contains(r.out, "ran") || !strings.Contains(r.out, "no filter for you") {
			t.Fatalf("exit %d: %s", r.code, r.out)
		}
	})
}
