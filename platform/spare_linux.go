package platform

import (
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/termhelper/termhelper/sandbox"
	"golang.org/x/sys/unix"
)

// Spares: the helper keeps one sandbox trampoline started ahead, confined
// by the plan of the last confined command, for the next command with
// the same plan (sandbox.PrepareSpare says why). It is made once the
// command before has ended, or spareDelay after that command started,
// whichever comes first, so that making it does not slow that command
// down. A spare whose plan or footprint no longer holds is ended, never
// used: the command starts through a fresh trampoline.

// spareDelay is how long a running command has the machine to itself
// before the next spare is made.
const spareDelay = 200 * time.Millisecond

type spare struct {
	plan      sandbox.Plan
	footprint string
	launch    *sandbox.Launch
	st        started
}

var spares struct {
	sync.Mutex
	ready  *spare
	making bool
	closed bool
}

// fromSpare starts cmd (its files, folder and environment; argv as the
// command) on the spare, when there is one for plan that still holds.
func fromSpare(cmd *exec.Cmd, plan sandbox.Plan, argv []string) (started, bool) {
	h, ok := handoffOf(cmd, argv)
	if !ok {
		return started{}, false
	}
	sp := takeSpare(plan)
	if sp == nil {
		return started{}, false
	}
	if err := sp.launch.Hand(h); err != nil {
		sp.end()
		return started{}, false
	}
	return sp.st, true
}

// handoffOf is what the spare needs of cmd; a folder that is not there
// is left to a fresh start, which fails as it always has.
func handoffOf(cmd *exec.Cmd, argv []string) (sandbox.Handoff, bool) {
	h := sandbox.Handoff{Argv: argv, Env: cmd.Env, Dir: cmd.Dir, Ctty: cmd.SysProcAttr.Setctty}
	for i, s := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		f, ok := s.(*os.File)
		if !ok {
			return h, false
		}
		h.Stdio[i] = f
	}
	if fi, err := os.Stat(h.Dir); err != nil || !fi.IsDir() {
		return h, false
	}
	return h, true
}

// takeSpare takes the spare if it was made for plan and its footprint
// holds; a spare that does not fit is ended.
func takeSpare(plan sandbox.Plan) *spare {
	spares.Lock()
	sp := spares.ready
	spares.ready = nil
	spares.Unlock()
	if sp == nil {
		return nil
	}
	if !sp.plan.Same(plan) || sandbox.Footprint(plan) != sp.footprint {
		go sp.end()
		return nil
	}
	return sp
}

// scheduleSpare returns what to call when a command confined by plan
// ends. If it has not ended spareDelay after its start, a spare is made
// then, unless one for another plan is ready: a later command's.
func scheduleSpare(plan sandbox.Plan) func() {
	var once sync.Once
	refill := func(replace bool) { once.Do(func() { go refillSpare(plan, replace) }) }
	time.AfterFunc(spareDelay, func() { refill(false) })
	return func() { refill(true) }
}

// refillSpare makes a spare for plan, unless one is being made or one is
// ready for plan, or, unless replace, for any plan.
func refillSpare(plan sandbox.Plan, replace bool) {
	spares.Lock()
	if spares.closed || spares.making || (spares.ready != nil && (!replace || spares.ready.plan.Same(plan))) {
		spares.Unlock()
		return
	}
	old := spares.ready
	spares.ready, spares.making = nil, true
	spares.Unlock()
	if old != nil {
		old.end()
	}
	sp := startSpare(plan)
	spares.Lock()
	spares.making = false
	if sp != nil && !spares.closed {
		spares.ready, sp = sp, nil
	}
	spares.Unlock()
	if sp != nil {
		sp.end()
	}
}

// startSpare starts a spare for plan; nil where there can be none.
func startSpare(plan sandbox.Plan) *spare {
	launch, err := sandbox.PrepareSpare(plan)
	if err != nil {
		return nil
	}
	footprint := sandbox.Footprint(plan) // before the spare reads the places
	cmd := exec.Command("/proc/self/exe")
	cmd.Env, cmd.Dir = []string{"GOMAXPROCS=1"}, "/"
	cmd.SysProcAttr = sysProcAttr(false)
	st, err := startLaunch(cmd, launch)
	if err != nil {
		return nil
	}
	return &spare{plan: plan, footprint: footprint, launch: launch, st: st}
}

// end ends an unused spare and releases what it holds.
func (sp *spare) end() {
	sp.launch.Abort()
	pid := sp.st.cmd.Process.Pid
	unix.Kill(pid, unix.SIGKILL)
	sp.st.cmd.Wait()
	unregister(pid)
	sp.st.cg.release()
	sp.st.guard.Close()
}

// DropSpare ends the spare, and any made from now on: the helper is going.
func DropSpare() {
	spares.Lock()
	spares.closed = true
	sp := spares.ready
	spares.ready = nil
	spares.Unlock()
	if sp != nil {
		sp.end()
	}
}
