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
// the same plan (sandbox.PrepareSpare says why). It is made just after the
// command before has ended, or spareDelay after that command started,
// whichever comes first, so that making it does not slow that command
// down. A spare whose plan or footprint no longer holds is ended, never
// used: the command starts through a fresh trampoline.

// spareDelay is how long a running command has the machine to itself
// before the next spare is made.
const spareDelay = 200 * time.Millisecond

// spareAfterEnd is how long after a command's end the next spare is made:
// once the command's answer has gone out, which making it at once slowed.
const spareAfterEnd = 5 * time.Millisecond

type spare struct {
	plan      sandbox.Plan
	footprint sandbox.Footprint
	launch    *sandbox.Launch
	st        started
	once      sync.Once // retire's
}

var spares struct {
	sync.Mutex
	ready  *spare
	making bool
	closed bool
}

// fromSpare starts cmd (its files, folder and environment; argv as the
// command) on the spare, when there is one for plan that still holds: its
// footprint is checked while the spare, handed the command, wakes. An
// error is a command that may have started and was ended: it is not
// started again.
func fromSpare(cmd *exec.Cmd, plan sandbox.Plan, argv []string) (started, bool, error) {
	h, ok := handoffOf(cmd, argv)
	if !ok {
		return started{}, false, nil
	}
	sp := takeSpare(plan)
	if sp == nil {
		return started{}, false, nil
	}
	if sp.launch.Hand(h) != nil || !sp.footprint.Holds() {
		go sp.end()
		return started{}, false, nil
	}
	beginHandoff()
	pid, err := sp.launch.Go()
	endHandoff(pid)
	if err != nil {
		sp.st.cg.killAll()
		sp.end()
		return started{}, false, err
	}
	st := sp.st
	if pid != st.proc.Pid { // the spare started it, and watches it
		st.proc, _ = os.FindProcess(pid) // never fails on Linux
		st.spare = sp
	}
	return st, true, nil
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

// takeSpare takes the spare if it was made for plan; one that was not is
// ended.
func takeSpare(plan sandbox.Plan) *spare {
	spares.Lock()
	sp := spares.ready
	spares.ready = nil
	spares.Unlock()
	if sp == nil {
		return nil
	}
	if !sp.plan.Same(plan) {
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
	return func() { time.AfterFunc(spareAfterEnd, func() { refill(true) }) }
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
	footprint := sandbox.FootprintOf(plan) // before the spare reads the places
	cmd := exec.Command("/proc/self/exe")
	cmd.Env, cmd.Dir = []string{"GOMAXPROCS=1"}, "/"
	cmd.SysProcAttr = sysProcAttr(false)
	st, err := startLaunch(cmd, launch, plan.MaxProcs)
	if err != nil {
		return nil
	}
	return &spare{plan: plan, footprint: footprint, launch: launch, st: st}
}

// end ends an unused spare and releases what it holds.
func (sp *spare) end() {
	sp.launch.Abort()
	sp.kill()
	sp.st.cg.release()
	sp.st.guard.Close()
}

// retire ends the spare that started a command, once the command has
// ended: killed first, so that the end of its socket is not taken for
// the helper's. What it held (the cgroup, the guard) is the command's.
func (sp *spare) retire() {
	if sp == nil {
		return
	}
	sp.once.Do(func() {
		sp.kill()
		sp.launch.Retire()
	})
}

func (sp *spare) kill() {
	unix.Kill(sp.st.proc.Pid, unix.SIGKILL)
	sp.st.proc.Wait()
	unregister(sp.st.proc.Pid)
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
