package sandbox

import (
	"errors"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
)

// The network filter and its supervisor have tests of their own
// (net_linux_test.go); these hold a whole confined command: the listener
// crosses from the trampoline to the helper before the command runs, the
// command holds neither it nor the socket, what was refused is named, and
// a filter that cannot be installed runs nothing.

// failFilterVar makes the trampoline's filter fail.
const failFilterVar = "SANDBOX_TEST_FAIL_FILTER"

func testTrampoline() {
	if os.Getenv(failFilterVar) != "" {
		netFilter = func(Network) (int, error) { return -1, errors.New("no filter for you") }
	}
}

func requireFilter(t *testing.T) {
	t.Helper()
	if m := measured(); !m.netOK {
		t.Skip(m.noNet)
	}
}

func TestAConfinedCommandReachesLoopbackAndNothingElse(t *testing.T) {
	requireFilter(t)
	eachVariant(t, func(t *testing.T, v variant) {
		w := newWorld(t)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		go acceptAll(ln)
		p := w.plan(WorkspaceWrite)
		p.Network = NetworkProxy
		if r := act(t, w, p, "tcp:"+ln.Addr().String()); r != "allowed" {
			t.Errorf("loopback was refused: %s", r)
		}
		self, _ := os.Executable()
		r := runArgv(t, p, w.env(actionVar+"=tcp:192.0.2.1:80"), self)
		if !strings.HasPrefix(strings.TrimSpace(r.out), "denied") {
			t.Errorf("a direct connection left the machine: %s", r.out)
		}
		if want := (Denial{Kind: "network", Host: "192.0.2.1", Port: 80}); !slices.Contains(r.denied, want) {
			t.Errorf("the refusal is not named: %+v", r.denied)
		}
		fds := run(t, p, w.env(), `ls -l /proc/$$/fd/`)
		if strings.Contains(fds.out, "socket:") || strings.Contains(fds.out, "seccomp") {
			t.Errorf("the command holds the socket or its own listener:\n%s", fds.out)
		}
	})
}

func TestAFilterThatCannotBeInstalledRunsNothing(t *testing.T) {
	requireFilter(t)
	eachVariant(t, func(t *testing.T, v variant) {
		w := newWorld(t)
		p := w.plan(WorkspaceWrite)
		p.Network = NetworkOff
		why := "no filter for you"
		if v.held { // the kernel refuses the stub's program: an instruction it does not know
			why = "filtering the network: invalid argument"
			heldProgram = func(string) string { return "ffff000000000000" }
			t.Cleanup(func() { heldProgram = func(prog string) string { return prog } })
		}
		r := run(t, p, w.env(failFilterVar+"=1"), `echo ran`)
		if r.code != 126 || strings.Contains(r.out, "ran") || !strings.Contains(r.out, why) {
			t.Fatalf("exit %d: %s", r.code, r.out)
		}
	})
}
