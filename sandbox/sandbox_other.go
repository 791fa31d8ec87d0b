//go:build !linux && !darwin

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

// Here there is no sandbox: Probe says so, Prepare refuses, and the
// policy guards alone.

type sysLaunch struct{ plain bool }

type sysGuard struct{}

func (sysGuard) denied() []Denial { return nil }
func (sysGuard) close()           {}

// Probe says what a command asked to run in mode with network gets here:
// nothing confines it.
func Probe(mode Mode, net Network) Status {
	st := Status{Mode: Off, Backend: "none", Network: NetworkOpen}
	if mode != Off || net != NetworkOpen {
		st.Reason = "termhelper has no sandbox on " + runtime.GOOS + " yet: commands run unconfined, reach the network directly, and the policy asks as before."
	}
	return st
}

// Prepare refuses every plan but mode off.
func Prepare(p Plan, argv []string) (*Launch, error) {
	off, err := p.prepare(argv)
	if err != nil || off {
		return plainLaunch(off), err
	}
	return nil, fmt.Errorf("%w: termhelper has no sandbox on %s", ErrUnavailable, runtime.GOOS)
}

// Apply changes nothing here.
func (l *Launch) Apply(cmd *exec.Cmd) {}

// Started returns no guard: nothing is confined.
func (l *Launch) Started() (*Guard, error) { return nil, nil }

// Abort has nothing to release here.
func (l *Launch) Abort() {}

// Serve has no trampoline to be here.
func Serve(args []string) int {
	fmt.Fprintln(os.Stderr, "termhelper: there is no sandbox on "+runtime.GOOS+": the command did not run")
	return 126
}
