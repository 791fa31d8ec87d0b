package sandbox

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// forceNamespaces, set by tests only, overrides the measured namespaces:
// "none" takes the Landlock-only path, "user" a user namespace even for
// root.
var forceNamespaces string

type sysLaunch struct {
	plain   bool // mode off: the command runs as it is
	w       wire
	argv    []string
	nsFlags uintptr
	log     *slog.Logger

	cmd        *exec.Cmd
	mine       *os.File // the helper's end of the listener's socket
	theirs     *os.File // the trampoline's end, closed once it started
	theirsOnce sync.Once
	ctl        *os.File // a spare's: the helper's end of the handoff socket
	ctlTheirs  *os.File // a spare's: its end, closed once it started
	held       *heldNS  // the namespaces the stub starts the command in; nil: a trampoline
	heldOnce   sync.Once
	stubSpare  bool // a spare that is the stub, waiting in the held namespaces
	// handed, handedFiles: the command Hand gave a stub spare, sent by
	// Go (the stub starts a command on its receipt).
	handed      []byte
	handedFiles [3]*os.File
}

// Prepare returns how to start argv confined as p says. It refuses a
// plan that this machine cannot apply (ErrUnavailable, with Probe's
// reason): the engine asks for what Probe reported in force.
func Prepare(p Plan, argv []string) (*Launch, error) {
	off, err := p.prepare(argv)
	if err != nil || off {
		return plainLaunch(off), err
	}
	m := measured()
	if m.abi == 0 {
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, m.noLandlock)
	}
	if p.Network != NetworkOpen && !m.netOK {
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, m.noNet)
	}
	l := &Launch{sys: sysLaunch{w: wire{Plan: p}, argv: argv, nsFlags: launchNamespaces(m), log: p.Log}}
	l.sys.w.Namespaces = l.sys.nsFlags != 0
	l.sys.w.NSFlags = l.sys.nsFlags
	l.sys.w.HelperNS = helperNS()
	if len(argv) > 0 && filepath.IsAbs(argv[0]) {
		l.sys.held = heldFor(p)
	}
	if p.Network != NetworkOpen {
		var err error
		if l.sys.mine, l.sys.theirs, err = listenerPair(); err != nil {
			l.sys.releaseHeld()
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	return l, nil
}

// helperNS is the helper's own mount namespace.
var helperNS = sync.OnceValue(mountNamespace)

func launchNamespaces(m machine) uintptr {
	switch forceNamespaces {
	case "none":
		return 0
	case "user":
		return unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWIPC
	}
	return m.nsFlags
}

// Apply sets the launch on cmd: the helper's own executable as the
// trampoline, the plan and argv as its arguments, the socket as an extra
// file and the namespaces to clone. cmd's other process attributes
// (session, terminal) stay as the caller set them.
func (l *Launch) Apply(cmd *exec.Cmd) {
	if l == nil || l.sys.plain {
		return
	}
	s := &l.sys
	s.cmd = cmd
	if s.held != nil {
		s.held.apply(cmd, dirOf(cmd), s.theirs, s.w.PidsCgroup, heldProgram(s.held.prog))
		if s.ctlTheirs != nil { // a spare: its command comes over the socket
			cmd.ExtraFiles = append(cmd.ExtraFiles, s.ctlTheirs)
			cmd.Args = append(cmd.Args[:len(cmd.Args)-1], "w", strconv.Itoa(2+len(cmd.ExtraFiles)))
			s.stubSpare = true
			return
		}
		cmd.Args = append(append(cmd.Args, s.argv[0]), s.argv...)
		return
	}
	if s.theirs != nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, s.theirs)
		s.w.NetFD = 2 + len(cmd.ExtraFiles)
	}
	if s.ctlTheirs != nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, s.ctlTheirs)
		s.w.CtlFD = 2 + len(cmd.ExtraFiles)
	}
	if cmd.Env != nil { // nil: the helper's own, which no request set
		cmd.Env, s.w.Loader = splitLoader(cmd.Env)
	}
	plan, _ := json.Marshal(s.w) // plain strings and ints: it cannot fail
	cmd.Path = "/proc/self/exe"
	tail := append([]string{"--"}, s.argv...)
	if s.ctl != nil {
		tail = []string{spareArg} // its command comes over the socket
	}
	cmd.Args = append([]string{"termhelper", Command, string(plan)}, tail...)
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	applyNamespaces(cmd.SysProcAttr, s.nsFlags)
}

// Started takes over after cmd.Start succeeded: the guard receives the
// network filter's listener from the trampoline, on its own goroutine, and
// serves it. The command cannot connect before the listener is sent, so
// nothing waits here.
func (l *Launch) Started() (*Guard, error) {
	if l == nil || l.sys.plain {
		return nil, nil
	}
	s := &l.sys
	s.closeTheirs()
	s.releaseHeld()
	g := &Guard{}
	if s.mine != nil {
		g.sys.serve(s.mine, s.cmd.Process.Pid, s.log)
	}
	return g, nil
}

// Abort releases the launch after cmd.Start failed.
func (l *Launch) Abort() {
	if l == nil {
		return
	}
	l.sys.closeTheirs()
	l.sys.releaseHeld()
	for _, f := range []*os.File{l.sys.mine, l.sys.ctl} {
		if f != nil {
			f.Close()
		}
	}
}

// releaseHeld gives back the launch's hold of the held namespaces, once
// the command started or will not: a child has its own descriptors.
func (s *sysLaunch) releaseHeld() {
	s.heldOnce.Do(func() {
		s.held.release(false)
		s.held = nil
	})
}

// dirOf is the folder cmd starts in: entering a mount namespace leaves
// the stub at its root, and it goes there again by path.
func dirOf(cmd *exec.Cmd) string {
	if cmd.Dir != "" {
		return cmd.Dir
	}
	wd, _ := unix.Getwd() // the kernel's answer, whatever $PWD says
	return wd
}

func (s *sysLaunch) closeTheirs() {
	s.theirsOnce.Do(func() {
		for _, f := range []*os.File{s.theirs, s.ctlTheirs} {
			if f != nil {
				f.Close()
			}
		}
	})
}

// sysGuard serves one process's network filter.
type sysGuard struct {
	mu     sync.Mutex
	conn   *os.File
	sup    *netSupervisor
	closed bool
	done   chan struct{}
	once   sync.Once
	held   []int // the command's own namespaces, which the stub sent: torn down at Close
}

// serve waits for the listener on conn and supervises it. The wait ends
// with the listener, or at EOF when the trampoline died before sending
// it (its one line on the terminal says why), or at Close.
func (g *sysGuard) serve(conn *os.File, pid int, log *slog.Logger) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	g.conn, g.done = conn, make(chan struct{})
	go func() {
		defer close(g.done)
		listener, held, err := receiveListener(conn)
		conn.Close()
		if err != nil {
			log.Debug("sandbox: no network listener", "pid", pid, "err", err)
			return
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		g.held = held
		if g.closed {
			listener.Close()
			return
		}
		g.sup = superviseNetwork(listener, pid, log)
	}()
}

func (g *sysGuard) denied() []Denial {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.sup == nil {
		return nil
	}
	return g.sup.Denied()
}

func (g *sysGuard) close() { g.once.Do(g.stop) }

func (g *sysGuard) stop() {
	g.mu.Lock()
	g.closed = true
	conn, sup := g.conn, g.sup
	g.mu.Unlock()
	if conn == nil {
		return
	}
	conn.Close() // ends a wait for the listener
	<-g.done
	if sup != nil {
		sup.Close()
	}
	closeAll(g.held) // written by serve before done was closed
}
