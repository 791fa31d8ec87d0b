//go:build windows

package platform

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows a command runs on a pseudo console (ConPTY) or on pipes, in a
// job object of its own (job_windows.go) that it joins before it runs any
// code. Signals are what Windows can do: SIGINT is a Ctrl-C typed on the
// console, every other signal terminates the job. Whether a command waits
// for input is not known here; the session falls back to quiet output and
// a prompt-like last line.

// TagVar is the environment variable that carries a command's tag to every
// process it starts.
const TagVar = "TERMHELPER_SESSION"

// statusControlCExit is how a console program ends on Ctrl-C by default.
const statusControlCExit = 0xC000013A

type sysProcess struct {
	process windows.Handle // the command's own process
	job     *job
	console *pseudoConsole // pty mode
	input   *os.File       // the console's input, or the input pipe's write end
	cmd     *exec.Cmd      // pipes mode

	killedBy  atomic.Int32  // the signal that terminated the job, if one did
	stop      chan struct{} // closed by Close
	watcher   sync.WaitGroup
	closeOnce sync.Once
}

// live maps the pid of every started command to its process, for KillTree.
var live = struct {
	sync.Mutex
	m map[int]*Process
}{m: map[int]*Process{}}

// Start starts spec in a job object of its own, on a pseudo console or on
// pipes. The process is created suspended and joins its job before it can
// start a child, so nothing of its tree can be outside the job.
func Start(spec Spec) (*Process, error) {
	if len(spec.Argv) == 0 {
		return nil, errors.New("start: empty argv")
	}
	if err := refuseConfined(spec.Confine, spec.Argv); err != nil {
		return nil, err
	}
	// A full path: CreateProcess would otherwise search the helper's
	// current directory, where a project could plant its own cmd.exe.
	exe, err := exec.LookPath(spec.Argv[0])
	if err != nil {
		return nil, err
	}
	argv := append([]string{exe}, spec.Argv[1:]...)
	env := windowsEnv(append(spec.Env[:len(spec.Env):len(spec.Env)], TagVar+"="+spec.Tag), os.Getenv("SYSTEMROOT"))
	j, err := newJob()
	if err != nil {
		return nil, fmt.Errorf("job object: %w", err)
	}
	l := launch{exe: exe, cmdLine: WindowsCommandLine(argv), dir: spec.Dir, env: env}
	var p *Process
	if spec.PTY {
		p, err = startConsole(spec, l, j)
	} else {
		p, err = startPipes(spec, l, j)
	}
	if err != nil {
		j.close()
		return nil, err
	}
	live.Lock()
	live.m[p.Pid] = p
	live.Unlock()
	return p, nil
}

func startConsole(spec Spec, l launch, j *job) (*Process, error) {
	pc, in, out, err := newPseudoConsole(spec.Cols, spec.Rows)
	if err != nil {
		return nil, fmt.Errorf("pseudo console: %w", err)
	}
	l.console = pc
	var errR *os.File
	if spec.SeparateStderr {
		if errR, l.stderr, err = inheritablePipe(); err != nil {
			closeFiles(out, in)
			pc.close()
			return nil, err
		}
	}
	pi, err := createSuspended(l)
	closeHandles(l.stderr)
	if err == nil {
		err = runInJob(pi.Process, pi.Thread, j)
		windows.CloseHandle(pi.Thread)
	}
	if err != nil {
		// Our read end first: closing the console waits for an unread output.
		closeFiles(out, errR, in)
		pc.close()
		return nil, err
	}
	p := &Process{Pid: int(pi.ProcessId), Output: out, Input: in}
	if errR != nil {
		p.Stderr = errR
	}
	p.sys.process, p.sys.job, p.sys.console, p.sys.input = pi.Process, j, pc, in
	p.sys.stop = make(chan struct{})
	p.sys.watcher.Add(1)
	go p.sys.watchConsole()
	p.initial = initialInput{data: spec.Stdin, to: in}
	return p, nil
}

// inheritablePipe returns a pipe whose write end alone can be inherited.
func inheritablePipe() (*os.File, windows.Handle, error) {
	var r, w windows.Handle
	if err := windows.CreatePipe(&r, &w, nil, 0); err != nil {
		return nil, 0, err
	}
	if err := windows.SetHandleInformation(w, windows.HANDLE_FLAG_INHERIT, windows.HANDLE_FLAG_INHERIT); err != nil {
		closeHandles(r, w)
		return nil, 0, err
	}
	return os.NewFile(uintptr(r), "stderr"), w, nil
}

// runInJob puts a suspended process in its job, then lets it run; on
// failure the process is ended and its handle closed.
func runInJob(process, thread windows.Handle, j *job) error {
	err := j.assign(process)
	if err == nil {
		_, err = windows.ResumeThread(thread)
	}
	if err != nil {
		windows.TerminateProcess(process, 1)
		windows.CloseHandle(process)
		return fmt.Errorf("job object: %w", err)
	}
	return nil
}

func startPipes(spec Spec, l launch, j *job) (*Process, error) {
	cmd := exec.Command(l.exe)
	cmd.Dir, cmd.Env = l.dir, l.env
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CmdLine: l.cmdLine,
		// No console window pops up when the helper has none; suspended,
		// so that it is in its job before it runs.
		CreationFlags: windows.CREATE_NO_WINDOW | windows.CREATE_SUSPENDED,
	}
	files, err := pipes(3)
	if err != nil {
		return nil, err
	}
	outR, outW, errR, errW, inR, inW := files[0], files[1], files[2], files[3], files[4], files[5]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeFiles(files...)
		return nil, err
	}
	closeFiles(outW, errW, inR)
	process, err := joinJob(cmd.Process.Pid, j)
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		closeFiles(outR, errR, inW)
		return nil, err
	}
	p := &Process{Pid: cmd.Process.Pid, Output: outR, Stderr: errR}
	// The input is written then closed, whether or not the command reads it.
	p.initial = initialInput{data: spec.Stdin, to: inW, close: inW}
	p.sys.process, p.sys.job, p.sys.cmd, p.sys.input = process, j, cmd, inW
	p.sys.stop = make(chan struct{})
	return p, nil
}

// pipes opens n pipes: read end, then write end, for each.
func pipes(n int) ([]*os.File, error) {
	var files []*os.File
	for range n {
		r, w, err := os.Pipe()
		if err != nil {
			closeFiles(files...)
			return nil, err
		}
		files = append(files, r, w)
	}
	return files, nil
}

// joinJob puts a process that os/exec started suspended in its job and
// resumes it. os/exec closes the thread handle, so the thread is found by
// a snapshot; the process handle opened here outlives os/exec's.
func joinJob(pid int, j *job) (windows.Handle, error) {
	const access = windows.PROCESS_SET_QUOTA | windows.PROCESS_TERMINATE |
		windows.PROCESS_QUERY_LIMITED_INFORMATION | windows.SYNCHRONIZE
	process, err := windows.OpenProcess(access, false, uint32(pid))
	if err != nil {
		return 0, fmt.Errorf("open process: %w", err)
	}
	if err := j.assign(process); err != nil {
		windows.CloseHandle(process)
		return 0, fmt.Errorf("job object: %w", err)
	}
	if err := resumeThreads(uint32(pid)); err != nil {
		windows.CloseHandle(process)
		return 0, fmt.Errorf("resume: %w", err)
	}
	return process, nil
}

// resumeThreads resumes every thread of a process; a process created
// suspended has one.
func resumeThreads(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := false
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return err
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return err
		}
		resumed = true
	}
	if !resumed {
		return errors.New("no thread found")
	}
	return nil
}

func closeFiles(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}

// Run runs cmd to its end.
func Run(cmd *exec.Cmd) error { return cmd.Run() }

// Init does nothing on Windows: job objects keep every command's tree
// together, which a subreaper does on Linux.
func Init() {}

// sysProcAttr gives a program the helper runs for itself no console window.
func sysProcAttr(bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NO_WINDOW}
}

// Wait waits for the command's own process (not its descendants) to end.
func (p *Process) Wait() (Exit, error) {
	_, err := windows.WaitForSingleObject(p.sys.process, windows.INFINITE)
	var code uint32
	if err == nil {
		err = windows.GetExitCodeProcess(p.sys.process, &code)
	}
	if p.sys.cmd != nil {
		p.sys.cmd.Wait() // releases what os/exec holds; the status is ours
	}
	if err != nil {
		return Exit{Code: -1}, err
	}
	return windowsExit(code, Signal(p.sys.killedBy.Load())), nil
}

// windowsExit reads an exit code as on Unix: a job this package terminated
// for a signal reports 128+N and the signal, and so does a console program
// that Ctrl-C ended. Other codes are signed, as PowerShell's $LASTEXITCODE
// shows them: exit(-1) is -1, a crash a negative NTSTATUS.
func windowsExit(code uint32, killedBy Signal) Exit {
	switch {
	case killedBy != 0 && code == uint32(128+killedBy):
		return Exit{Code: 128 + int(killedBy), Signal: killedBy.String()}
	case code == statusControlCExit:
		return Exit{Code: 128 + int(SIGINT), Signal: SIGINT.String()}
	}
	return Exit{Code: int(int32(code))}
}

// watchConsole closes the console once the command's process has exited
// and no process of its job is left (a grandchild may still write to it),
// which ends the output as a Unix terminal's ends when its last holder
// exits. After Close it leaves the console to Close.
func (s *sysProcess) watchConsole() {
	defer s.watcher.Done()
	for !s.exited(50 * time.Millisecond) {
		if s.stopped() {
			return
		}
	}
	for pause := time.Millisecond; s.job.active() > 0; pause = min(2*pause, 50*time.Millisecond) {
		select {
		case <-s.stop:
			return
		case <-time.After(pause):
		}
	}
	s.console.close()
}

// exited waits up to d for the command's own process to end.
func (s *sysProcess) exited(d time.Duration) bool {
	ev, err := windows.WaitForSingleObject(s.process, uint32(d/time.Millisecond))
	return err != nil || ev == windows.WAIT_OBJECT_0
}

func (s *sysProcess) stopped() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

// interrupt types Ctrl-C on the console: the console turns it into a
// CTRL_C_EVENT for every process attached, as a person's key press would.
func (s *sysProcess) interrupt() bool {
	if s.input == nil {
		return false
	}
	_, err := s.input.Write([]byte{0x03})
	return err == nil
}

// terminate ends every process of the job with 128+sig, so that Wait
// reports the signal.
func (s *sysProcess) terminate(sig Signal) {
	s.killedBy.CompareAndSwap(0, int32(sig))
	s.job.terminate(uint32(128 + sig))
}

// Alive reports whether any process of the command's tree is still running.
func (p *Process) Alive() bool {
	return p.sys.job.active() > 0
}

// Kill ends the whole tree. SIGINT types Ctrl-C (pty mode) and gives the
// tree grace to end; any other signal, and whatever SIGINT left, terminates
// the job at once: Windows has no signal a console program can catch to
// end cleanly. It returns once the tree is gone, or after a second more.
func (p *Process) Kill(sig Signal, grace time.Duration) {
	p.sys.kill(sig, grace)
}

func (s *sysProcess) kill(sig Signal, grace time.Duration) {
	if sig == SIGINT {
		if s.interrupt() && s.job.waitEmpty(grace) {
			return
		}
		sig = SIGKILL
	}
	s.terminate(sig)
	s.job.waitEmpty(time.Second)
}

// KillTree ends the tree of a command this helper started, found by its
// pid; tag is not needed on Windows, where the job holds the whole tree.
// Any other pid is ended alone.
func KillTree(pid int, tag string, sig Signal, grace time.Duration) {
	live.Lock()
	p := live.m[pid]
	live.Unlock()
	if p != nil {
		p.Kill(sig, grace)
		return
	}
	terminatePid(pid)
}

// KillLeftovers ends each listed process whose start time is still the
// recorded one (a reused pid is never touched). A dead helper's job
// objects have already ended its trees, being kill-on-close, so normally
// nothing is left; tags cannot be searched on Windows.
func KillLeftovers(prefix string, pids map[int]uint64) int {
	n := 0
	for pid, start := range pids {
		if now, ok := StartTime(pid); ok && now == start && terminatePid(pid) {
			n++
		}
	}
	return n
}

func terminatePid(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	return windows.TerminateProcess(h, uint32(128+SIGKILL)) == nil
}

// Resize sets the terminal size (pty mode).
func (p *Process) Resize(cols, rows int) error {
	if p.sys.console == nil {
		return errors.New("resize: the command has no terminal")
	}
	return p.sys.console.resize(cols, rows)
}

// StopReading makes blocked reads of Output and Stderr return at once:
// closing a pipe cancels a pending read, and closing the console ends its
// output. The console is closed on a goroutine of its own, since that can
// wait for the output to be read; Close waits for it.
func (p *Process) StopReading() {
	if p.sys.console != nil {
		go p.sys.console.close()
	}
	closeReaders(p.Output, p.Stderr)
}

// ReadLeft returns 0: StopReading has closed the pipes, and what they
// held is gone with them.
func (p *Process) ReadLeft(r io.Reader, buf []byte) int { return 0 }

func closeReaders(rs ...io.ReadCloser) {
	for _, r := range rs {
		if r != nil {
			r.Close()
		}
	}
}

// Close releases the console, the pipes and the job, ending whatever is
// left of the tree, as the job's kill-on-close would. Call it after the
// readers are done.
func (p *Process) Close() {
	p.sys.closeOnce.Do(func() {
		close(p.sys.stop)
		// Our read ends first, so that closing the console cannot wait on
		// output nobody reads.
		closeReaders(p.Output, p.Stderr)
		p.sys.watcher.Wait()
		if p.sys.console != nil {
			p.sys.console.close()
		}
		// Ends a pending write of the initial input that nothing read.
		p.sys.input.Close()
		p.sys.job.close()
		windows.CloseHandle(p.sys.process)
		live.Lock()
		delete(live.m, p.Pid)
		live.Unlock()
	})
}

// InputState is not known on Windows: the caller falls back to quiet output
// and a prompt-like last line.
func (p *Process) InputState() InputState { return InputState{} }

// StartTime returns a live process's creation time (100 ns ticks since
// 1601), to tell a process from a later one that reused its pid.
func StartTime(pid int) (uint64, bool) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION|windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return 0, false
	}
	defer windows.CloseHandle(h)
	if ev, err := windows.WaitForSingleObject(h, 0); err != nil || ev != uint32(windows.WAIT_TIMEOUT) {
		return 0, false // ended
	}
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0, false
	}
	return uint64(created.HighDateTime)<<32 | uint64(created.LowDateTime), true
}

// refuseConfined refuses a confinement that confines: there is no sandbox
// on Windows, and its Prepare says so. One that confines nothing (mode
// off) starts the command as it is.
func refuseConfined(c Confiner, argv []string) error {
	if c == nil {
		return nil
	}
	l, err := c.Prepare(argv)
	if err != nil {
		return fmt.Errorf("start: %w", err)
	}
	l.Abort()
	return nil
}
