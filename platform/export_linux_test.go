package platform

import "testing"

// What the tests of confined starts (package platform_test, which may
// import the sandbox) need of the platform's insides.

func Eventually(t *testing.T, p *Process, what string, want func(InputState) bool) InputState {
	t.Helper()
	return eventually(t, p, what, want)
}

func TreeMembers(pid int, tag string) []int { return treeMembers(pid, tag) }

// RefillSpare makes a spare for c (see refillSpare).
func RefillSpare(c Confiner, replace bool) { refillSpare(c.(SpareConfiner), replace) }

// ReadySpare is the pid of the spare ready for c (nil: for any), 0 if
// there is none.
func ReadySpare(c Confiner) int {
	spares.Lock()
	defer spares.Unlock()
	if spares.ready == nil || c != nil && !spares.ready.confiner.Same(c) {
		return 0
	}
	return spares.ready.st.proc.Pid
}

// ReopenSpares undoes DropSpare.
func ReopenSpares() { spares.Lock(); spares.closed = false; spares.Unlock() }

// StartedBy is the pid of the spare that started p (p's own where it
// runs in the spare's place), 0 if none did.
func StartedBy(p *Process) int { return p.sys.from }
