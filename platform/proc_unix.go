//go:build unix

package platform

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// TagVar is the environment variable that carries a command's tag to every
// process it starts.
const TagVar = "TERMHELPER_SESSION"

type sysProcess struct {
	proc   *os.Process
	spare  *spare   // the spare that started the command and watches it, ended by Close
	from   int      // the pid of the spare that started the command, 0 if none did
	master *os.File // pty mode: the terminal's master side
	stdin  *os.File // pipes mode: the write end of the input, closed by Close
	tag    string
	cg     *treeCgroup // the command's own cgroup (Linux), nil without one
	ended  func()      // called once the command's own process ended; may be nil

	mu     sync.Mutex
	exited bool
}

// Start starts spec in its own session and process group.
func Start(spec Spec) (*Process, error) {
	if len(spec.Argv) == 0 {
		return nil, errors.New("start: empty argv")
	}
	cmd := exec.Command(spec.Argv[0], spec.Argv[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = append(spec.Env[:len(spec.Env):len(spec.Env)], TagVar+"="+spec.Tag)
	if spec.PTY {
		return startPTY(cmd, spec)
	}
	return startPipes(cmd, spec)
}

// started is a command just started: its process, its cgroup, its
// confinement's guard, which lives as long as the process, what to call when it
// ends (a confined command's: the next spare), and the spare that started
// it, if one did.
type started struct {
	proc  *os.Process
	from  int // the spare's pid
	spare *spare
	cg    *treeCgroup
	guard Guard
	ended func()
}

// startConfined starts cmd in a cgroup of its own where it can, confined
// as spec says when it says: on the spare made for its plan where there
// is one, else through a fresh trampoline.
func startConfined(cmd *exec.Cmd, spec Spec) (started, error) {
	if spec.Confine == nil {
		cmd, cg, err := startContained(cmd, newTreeCgroup())
		if err != nil {
			return started{}, err
		}
		return started{proc: cmd.Process, cg: cg}, nil
	}
	st, ok, err := fromSpare(cmd, spec.Confine, spec.Argv)
	if err != nil {
		return started{}, fmt.Errorf("start: %w", err)
	}
	if !ok {
		launch, err := spec.Confine.Prepare(spec.Argv)
		if err != nil {
			return started{}, fmt.Errorf("start: %w", err)
		}
		if st, err = startLaunch(cmd, launch, spec.Confine.MaxProcs()); err != nil {
			return started{}, err
		}
	}
	st.ended = scheduleSpare(spec.Confine)
	return st, nil
}

// startLaunch starts cmd through the trampoline launch sets on it, its
// tree capped at maxProcs processes where a cgroup can (0: no cap).
func startLaunch(cmd *exec.Cmd, launch Launch, maxProcs int) (started, error) {
	cg := newTreeCgroup()
	limitProcs(cg, launch, maxProcs)
	launch.Apply(cmd)
	cmd, cg, err := startContained(cmd, cg)
	if err != nil {
		launch.Abort()
		return started{}, fmt.Errorf("start in the sandbox: %w", err)
	}
	guard, err := launch.Started()
	if err != nil {
		KillTree(cmd.Process.Pid, "", SIGKILL, 0)
		cmd.Wait()
		unregister(cmd.Process.Pid)
		cg.release()
		return started{}, err
	}
	return started{proc: cmd.Process, cg: cg, guard: guard}, nil
}

func startPTY(cmd *exec.Cmd, spec Spec) (*Process, error) {
	master, tty, err := takePTY()
	if err != nil {
		return nil, fmt.Errorf("open pty: %w", err)
	}
	defer tty.Close()
	if err := setSize(master, spec.Cols, spec.Rows); err != nil {
		master.Close()
		return nil, fmt.Errorf("size pty: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	var errR, errW *os.File
	if spec.SeparateStderr {
		if errR, errW, err = os.Pipe(); err != nil {
			master.Close()
			return nil, err
		}
		cmd.Stderr = errW
	}
	cmd.SysProcAttr = sysProcAttr(true)
	st, err := startConfined(cmd, spec)
	if err != nil {
		master.Close()
		closeAll(errR, errW)
		return nil, err
	}
	addTree(st.proc.Pid)
	closeAll(errW)
	p := &Process{Pid: st.proc.Pid, Output: master, Input: master, guard: st.guard}
	if errR != nil {
		p.Stderr = errR
	}
	p.sys = sysProcess{proc: st.proc, spare: st.spare, from: st.from, master: master, tag: spec.Tag, cg: st.cg, ended: st.ended}
	p.initial = initialInput{data: spec.Stdin, to: master}
	return p, nil
}

func startPipes(cmd *exec.Cmd, spec Spec) (*Process, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(outR, outW)
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		closeAll(outR, outW, errR, errW)
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = sysProcAttr(false)
	st, err := startConfined(cmd, spec)
	if err != nil {
		closeAll(outR, outW, errR, errW, inR, inW)
		return nil, err
	}
	addTree(st.proc.Pid)
	closeAll(outW, errW, inR)
	p := &Process{Pid: st.proc.Pid, Output: outR, Stderr: errR, guard: st.guard}
	// The input is written then closed, whether or not the command reads it.
	p.initial = initialInput{data: spec.Stdin, to: inW, close: inW}
	p.sys = sysProcess{proc: st.proc, spare: st.spare, from: st.from, stdin: inW, tag: spec.Tag, cg: st.cg, ended: st.ended}
	return p, nil
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}

// ptys is a terminal pair opened ahead for the next command: opening one
// (/dev/ptmx, then its other side) costs the kernel more than anything
// else the helper does to start a command, and it is the same pair for
// every command.
var ptys struct {
	sync.Mutex
	master, tty *os.File
	opening     bool
}

// takePTY is the pair opened ahead, or a pair opened now when there is
// none; the next is opened beside the command.
func takePTY() (master, tty *os.File, err error) {
	ptys.Lock()
	master, tty = ptys.master, ptys.tty
	ptys.master, ptys.tty = nil, nil
	refill := !ptys.opening
	ptys.opening = true
	ptys.Unlock()
	if refill {
		go refillPTY()
	}
	if master != nil {
		return master, tty, nil
	}
	return openPTY()
}

// refillPTY opens the pair that the next takePTY takes.
func refillPTY() {
	master, tty, err := openPTY()
	ptys.Lock()
	defer ptys.Unlock()
	ptys.opening = false
	if err == nil && ptys.master == nil {
		ptys.master, ptys.tty, master, tty = master, tty, nil, nil
	}
	closeAll(master, tty)
}

// openPTY opens a terminal pair. creack/pty leaves the master in blocking
// mode (its ioctls go through Fd), where reads cannot be interrupted by a
// deadline or Close; a duplicate in non-blocking mode joins Go's poller.
func openPTY() (master, tty *os.File, err error) {
	m, tty, err := pty.Open()
	if err != nil {
		return nil, nil, err
	}
	defer m.Close()
	// Close-on-exec from the start: a command started meanwhile on
	// another goroutine must not inherit the master.
	fd, err := unix.FcntlInt(m.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		tty.Close()
		return nil, nil, err
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		tty.Close()
		return nil, nil, err
	}
	return os.NewFile(uintptr(fd), "/dev/ptmx"), tty, nil
}

// setSize sets the terminal size through Control, which keeps the master
// non-blocking and open for the call.
func setSize(master *os.File, cols, rows int) error {
	if cols <= 0 {
		cols = 160
	}
	if rows <= 0 {
		rows = 48
	}
	rc, err := master.SyscallConn()
	if err != nil {
		return err
	}
	ws := &unix.Winsize{Col: uint16(cols), Row: uint16(rows)}
	var ioErr error
	if err := rc.Control(func(fd uintptr) { ioErr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, ws) }); err != nil {
		return err
	}
	return ioErr
}

// Wait waits for the command's own process (not its descendants) to end.
func (p *Process) Wait() (Exit, error) {
	state, err := p.sys.proc.Wait()
	unregister(p.Pid)
	if p.sys.ended != nil {
		p.sys.ended()
	}
	p.sys.mu.Lock()
	p.sys.exited = true
	p.sys.mu.Unlock()
	if state == nil {
		return Exit{Code: -1}, err
	}
	ws, ok := state.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		return Exit{Code: 128 + int(ws.Signal()), Signal: unix.SignalName(ws.Signal())}, nil
	}
	return Exit{Code: state.ExitCode()}, nil
}

// Alive reports whether any process of the command's tree is still running.
// Once none is, the tree's cgroup is removed.
func (p *Process) Alive() bool {
	if unix.Kill(-p.Pid, 0) == nil || p.sys.cg.populated() {
		return true // the group or the cgroup answers without a look at /proc
	}
	if mayHaveStrays() && len(treeMembers(p.Pid, p.sys.tag)) > 0 {
		return true
	}
	p.sys.cg.release()
	forgetTree(p.Pid)
	return false
}

// Kill ends the whole tree: sig first, then SIGKILL for whatever is left
// after grace. It returns once nothing of the tree is left, or after a
// bounded number of attempts at processes that cannot be killed.
func (p *Process) Kill(sig Signal, grace time.Duration) {
	if cg := p.sys.cg; cg.populated() {
		if sig != SIGKILL {
			signalTree(p.Pid, p.sys.tag, syscall.Signal(sig))
			cg.signal(syscall.Signal(sig))
			waitUntil(grace, func() bool { return !cg.populated() && len(treeMembers(p.Pid, p.sys.tag)) == 0 })
		}
		cg.killAll()
		sig = SIGKILL
	}
	KillTree(p.Pid, p.sys.tag, sig, grace)
	p.sys.cg.release()
	forgetTree(p.Pid)
}

// KillTree ends every process of the tree rooted at pid or carrying tag.
func KillTree(pid int, tag string, sig Signal, grace time.Duration) {
	if sig != SIGKILL {
		signalTree(pid, tag, syscall.Signal(sig))
		waitUntil(grace, func() bool { return len(treeMembers(pid, tag)) == 0 })
	}
	for range 60 {
		if signalTree(pid, tag, syscall.SIGKILL) == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitUntil waits up to grace for gone to hold. The pauses between looks
// grow, but never past the deadline: a short grace is kept, not rounded
// up to the next look.
func waitUntil(grace time.Duration, gone func() bool) {
	deadline := time.Now().Add(grace)
	for pause := 5 * time.Millisecond; time.Now().Before(deadline) && !gone(); pause = min(2*pause, 50*time.Millisecond) {
		time.Sleep(min(pause, time.Until(deadline)))
	}
}

// signalTree signals every member and returns how many there were.
func signalTree(pid int, tag string, sig syscall.Signal) int {
	// The group first: it needs no process table and reaches a fresh fork.
	unix.Kill(-pid, sig)
	members := treeMembers(pid, tag)
	for _, m := range members {
		unix.Kill(m, sig)
	}
	return len(members)
}

// Resize sets the terminal size (pty mode).
func (p *Process) Resize(cols, rows int) error {
	if p.sys.master == nil {
		return errors.New("resize: the command has no terminal")
	}
	return setSize(p.sys.master, cols, rows)
}

// StopReading makes blocked reads of Output and Stderr return at once.
func (p *Process) StopReading() {
	for _, r := range []any{p.Output, p.Stderr} {
		if f, ok := r.(*os.File); ok {
			f.SetReadDeadline(time.Now())
		}
	}
}

// ReadLeft reads, without waiting, what r (Output or Stderr) already holds
// once StopReading has ended its reads: a read past the deadline returns
// at once without reading, and what the command wrote before the stop
// would be lost. It returns 0 when nothing is left or r is not a stream
// of the command's.
func (p *Process) ReadLeft(r io.Reader, buf []byte) int {
	f, ok := r.(*os.File)
	if !ok || (r != p.Output && r != p.Stderr) {
		return 0
	}
	f.SetReadDeadline(time.Time{}) // no read waits now: the one below won't
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	rc.Read(func(fd uintptr) bool {
		n, _ = unix.Read(int(fd), buf) // EAGAIN or EIO: nothing is left
		return true
	})
	return max(n, 0)
}

// Close releases the terminal and pipes, and the confinement's guard. Call it
// after the readers are done. It also ends a pending write of the initial
// input that a descendant holding the input open never read.
func (p *Process) Close() {
	p.sys.spare.retire()
	p.sys.cg.release() // once the tree is gone; else Kill or Alive will
	if p.guard != nil {
		p.guard.Close()
	}
	if p.sys.stdin != nil {
		p.sys.stdin.Close()
	}
	for _, r := range []any{p.Output, p.Stderr} {
		if f, ok := r.(*os.File); ok {
			f.Close()
		}
	}
}
