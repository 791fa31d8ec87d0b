package platform

import (
	"errors"
	"os"
	"os/exec"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Spares: the helper keeps one confined process started ahead, confined
// as the last confined command was, for the next command confined alike
// (a SpareConfiner's, whose start is costly). It is made just after the
// command before has ended, or spareDelay after that command started,
// whichever comes first, so that making it does not slow that command
// down. A spare that no longer confines alike or no longer holds is
// ended, never used: the command starts afresh.

// spareDelay is how long a running command has the machine to itself
// before the next spare is made.
const spareDelay = 200 * time.Millisecond

// spareAfterEnd is how long after a command's end the next spare is made:
// once the command's answer has gone out, which making it at once slowed.
const spareAfterEnd = 5 * time.Millisecond

type spare struct {
	confiner SpareConfiner
	launch   SpareLaunch
	st       started
	once     sync.Once // retire's
}

var spares struct {
	sync.Mutex
	ready  *spare
	making bool
	closed bool
}

// fromSpare starts cmd (its files, folder and environment; argv as the
// command) on the spare, when there is one for c that still holds, which
// is checked while the spare, handed the command, wakes. An error is a
// command that may have started and was ended: it is not started again.
func fromSpare(cmd *exec.Cmd, c Confiner, argv []string) (started, bool, error) {
	h, ok := handoffOf(cmd, argv)
	if !ok {
		return started{}, false, nil
	}
	sp := takeSpare(c)
	if sp == nil {
		return started{}, false, nil
	}
	if sp.launch.Hand(h) != nil || !sp.launch.Holds() {
		go sp.end()
		return started{}, false, nil
	}
	beginHandoff()
	pid, err := sp.launch.Go()
	endHandoff(pid)
	if err != nil {
		sp.st.cg.killAll()
		sp.end()
		if errors.Is(err, ErrSpareGone) {
			return started{}, false, nil
		}
		return started{}, false, err
	}
	st := sp.st
	st.from = st.proc.Pid
	if pid != st.proc.Pid { // the spare started it, and watches it
		st.proc, _ = os.FindProcess(pid) // never fails on Linux
		st.spare = sp
	}
	return st, true, nil
}

// handoffOf is what the spare needs of cmd; a folder that is not there
// is left to a fresh start, which fails as it always has.
func handoffOf(cmd *exec.Cmd, argv []string) (Handoff, bool) {
	h := Handoff{Argv: argv, Env: cmd.Env, Dir: cmd.Dir, Ctty: cmd.SysProcAttr.Setctty}
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

// takeSpare takes the spare if it was made for c; one that was not is
// ended.
func takeSpare(c Confiner) *spare {
	spares.Lock()
	sp := spares.ready
	spares.ready = nil
	spares.Unlock()
	if sp == nil {
		return nil
	}
	if !sp.confiner.Same(c) {
		go sp.end()
		return nil
	}
	return sp
}

// scheduleSpare returns what to call when a command confined by c ends
// (nil when c makes no spares). If it has not ended spareDelay after its
// start, a spare is made then, unless one for another confinement is
// ready: a later command's. A cheap spare is made at once, and again
// once the command has ended if the one made was taken.
func scheduleSpare(c Confiner) func() {
	sc, ok := c.(SpareConfiner)
	if !ok {
		return nil
	}
	if sc.SpareIsCheap() { // made at once, beside the command: ready for the next even back to back
		go refillSpare(sc, false)
		return func() { go refillSpare(sc, true) }
	}
	var once sync.Once
	refill := func(replace bool) { once.Do(func() { go refillSpare(sc, replace) }) }
	time.AfterFunc(spareDelay, func() { refill(false) })
	return func() { time.AfterFunc(spareAfterEnd, func() { refill(true) }) }
}

// refillSpare makes a spare for c, unless one is being made or one is
// ready for c, or, unless replace, for any confinement.
func refillSpare(c SpareConfiner, replace bool) {
	spares.Lock()
	if spares.closed || spares.making || (spares.ready != nil && (!replace || spares.ready.confiner.Same(c))) {
		spares.Unlock()
		return
	}
	old := spares.ready
	spares.ready, spares.making = nil, true
	spares.Unlock()
	if old != nil {
		old.end()
	}
	sp := startSpare(c)
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

// startSpare starts a spare for c; nil where there can be none.
func startSpare(c SpareConfiner) *spare {
	launch, err := c.PrepareSpare()
	if err != nil {
		return nil
	}
	cmd := exec.Command("/proc/self/exe")
	cmd.Env, cmd.Dir = []string{"GOMAXPROCS=1"}, "/"
	cmd.SysProcAttr = sysProcAttr(false)
	st, err := startLaunch(cmd, launch, c.MaxProcs())
	if err != nil {
		return nil
	}
	return &spare{confiner: c, launch: launch, st: st}
}

// end ends an unused spare and releases what it holds.
func (sp *spare) end() {
	sp.launch.Abort()
	sp.kill()
	sp.st.cg.release()
	if sp.st.guard != nil {
		sp.st.guard.Close()
	}
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
