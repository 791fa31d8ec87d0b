package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/termhelper/termhelper/platform"
	"golang.org/x/sys/unix"
)

// A spare is a trampoline started before the command it will run: it
// confines itself as a fresh one would, then waits for the command's
// argv, environment, folder and standard files, and executes it. Starting
// the helper's binary again is most of the sandbox's cost per command (the
// Go runtime's start, the namespaces, the mounts); a spare takes it off
// the path of a command that arrives at an idle helper. A spare runs one
// command, so every command keeps namespaces, a Landlock domain and a
// seccomp listener of its own.

// spareArg, in place of "--" and the command, makes the trampoline a spare.
const spareArg = "--spare"

// maxHandoff bounds the handoff's message: one datagram, well under a
// socket's default buffer. A longer command or environment is started by a
// fresh trampoline.
const maxHandoff = 128 << 10

// ErrNoSpare is returned by PrepareSpare where a spare would not confine a
// command exactly as a fresh trampoline does: without namespaces, Landlock
// alone reads around the secret places as they were when it was set up;
// and where namespaces are held (held_linux.go), which need no spare.
var ErrNoSpare = errors.New("sandbox: no spare for this plan here")

// handoffMsg is the Handoff on the wire; the files go as rights beside it.
type handoffMsg struct {
	Argv []string
	Env  []string
	Dir  string
	Ctty bool
}

// PrepareSpare returns how to start a spare for p: Apply it on an exec.Cmd
// with no standard files of its own, Start, Started, then Hand it a
// command. It refuses a plan that confines nothing, and a machine where a
// spare could be out of date (ErrNoSpare).
func PrepareSpare(p Plan) (*Launch, error) {
	if p.Mode == Off || launchNamespaces(measured()) == 0 {
		return nil, ErrNoSpare // asked after every confined command: nothing made first
	}
	l, err := Prepare(p, []string{spareArg})
	if err != nil {
		return nil, err
	}
	if heldOn() { // a stub in the held namespaces, or none until they are made
		if l.sys.held = heldForSpare(p); l.sys.held == nil {
			l.Abort()
			return nil, ErrNoSpare
		}
	}
	l.sys.argv = nil
	if l.sys.ctl, l.sys.ctlTheirs, err = handoffPair(); err != nil {
		l.Abort()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	return l, nil
}

func handoffPair() (helper, child *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("handoff socket pair: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "sandbox-handoff"), os.NewFile(uintptr(fds[1]), "sandbox-handoff"), nil
}

// Hand gives the spare its command. The spare makes ready to start it,
// then waits for Go: the caller checks meanwhile that the spare still
// holds (its footprint), while the spare wakes. An error means the spare
// has not got the command: the caller ends it and starts the command
// another way.
func (l *Launch) Hand(h platform.Handoff) error {
	s := &l.sys
	if s.ctl == nil {
		return errors.New("sandbox: not a spare")
	}
	msg, err := s.handoff(h)
	if err != nil {
		return err
	}
	for _, f := range h.Stdio {
		if f == nil {
			return errors.New("sandbox: a spare needs all three standard files")
		}
	}
	if s.stubSpare { // the stub starts it on receipt: it is sent at Go
		s.handed, s.handedFiles = msg, h.Stdio
		return nil
	}
	return s.send(msg, h.Stdio)
}

// send sends the command's message and standard files to the spare.
func (s *sysLaunch) send(msg []byte, stdio [3]*os.File) error {
	fds := []int{int(stdio[0].Fd()), int(stdio[1].Fd()), int(stdio[2].Fd())}
	err := unix.Sendmsg(int(s.ctl.Fd()), msg, unix.UnixRights(fds...), nil, unix.MSG_NOSIGNAL)
	runtime.KeepAlive(stdio)
	if err != nil {
		return fmt.Errorf("sandbox: handing the command to its spare: %w", err)
	}
	return nil
}

// handoff is the command's message: JSON for a trampoline, NUL-ended
// words for the stub (stub.c).
func (s *sysLaunch) handoff(h platform.Handoff) ([]byte, error) {
	var msg []byte
	if s.stubSpare {
		var err error
		if msg, err = stubHandoff(h); err != nil {
			return nil, err
		}
	} else {
		msg, _ = json.Marshal(handoffMsg{Argv: h.Argv, Env: h.Env, Dir: h.Dir, Ctty: h.Ctty}) // strings and a bool
	}
	if len(msg) > maxHandoff {
		return nil, errors.New("sandbox: the command is too long for a spare")
	}
	return msg, nil
}

// stubHandoff is the command as the stub reads it: the terminal's flag,
// the folder, the number of argv's words, argv, the environment (each
// variable's last value, once, as os/exec leaves it), each word ending
// with a NUL. The stub looks nothing up in PATH, and a NUL inside a word
// would split it.
func stubHandoff(h platform.Handoff) ([]byte, error) {
	if len(h.Argv) == 0 || !filepath.IsAbs(h.Argv[0]) {
		return nil, errors.New("sandbox: the stub runs a program named by its path only")
	}
	env := lastWins(h.Env)
	if len(h.Argv)+len(env) > stubMaxWords {
		return nil, errors.New("sandbox: too many words for the stub")
	}
	b := []byte{'0'}
	if h.Ctty {
		b[0] = '1'
	}
	for _, w := range slices.Concat([]string{h.Dir, strconv.Itoa(len(h.Argv))}, h.Argv, env) {
		if strings.IndexByte(w, 0) >= 0 {
			return nil, errors.New("sandbox: a NUL in the command")
		}
		b = append(append(b, w...), 0)
	}
	return b, nil
}

// stubMaxWords is what the stub's message holds (MAXWORDS in stub.c).
const stubMaxWords = 8000

// lastWins keeps each variable's last value, once, where it was last.
func lastWins(env []string) []string {
	last := map[string]int{}
	for i, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		last[k] = i
	}
	var out []string
	for i, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); last[k] == i {
			out = append(out, kv)
		}
	}
	return out
}

// Go has the spare start the command it was handed and returns the pid
// to wait for. The spare starts it as the helper's own child
// (CLONE_PARENT), in its namespaces, Landlock domain and seccomp filter,
// and stays beside it as its watchdog (see serveSpare); it answers with
// its own pid only if it could not start the command, and then it says
// why on the command's standard error and exits 126, as a fresh
// trampoline would. After an error the command may have started: the
// caller ends the spare's whole cgroup, and fails the start.
func (l *Launch) Go() (int, error) {
	s := &l.sys
	if s.stubSpare { // it becomes the command: its pid is the command's
		err := s.send(s.handed, s.handedFiles)
		s.handed, s.handedFiles = nil, [3]*os.File{}
		s.ctl.Close() // nothing more goes to the stub, nor comes from it
		if err != nil {
			return 0, fmt.Errorf("%w: %w", platform.ErrSpareGone, err)
		}
		return s.cmd.Process.Pid, nil
	}
	if _, err := s.ctl.Write([]byte{goByte}); err != nil {
		return 0, fmt.Errorf("sandbox: starting the command on its spare: %w", err)
	}
	pid, err := readPid(s.ctl)
	if err != nil {
		return 0, fmt.Errorf("sandbox: the spare gave no pid for its command: %w", err)
	}
	return pid, nil
}

// goByte is Go's message.
const goByte = 'y'

// readPid reads the pid a spare answers its handoff with, within
// handoffWait: a spare that neither answers nor goes is never waited on
// for ever. A read with a timeout is not restarted after a signal (the
// runtime's own come often): it is read again for the time left.
func readPid(ctl *os.File) (int, error) {
	buf, fd := make([]byte, 16), int(ctl.Fd())
	var n int
	var err error = unix.EINTR
	for deadline := time.Now().Add(handoffWait); err == unix.EINTR; {
		tv := unix.NsecToTimeval(max(time.Until(deadline), time.Millisecond).Nanoseconds())
		if err = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
			return 0, err
		}
		n, err = unix.Read(fd, buf)
		if err == unix.EINTR && time.Now().After(deadline) {
			err = unix.EAGAIN
		}
	}
	runtime.KeepAlive(ctl)
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(string(buf[:max(n, 0)]))
	if err != nil || pid <= 0 {
		return 0, errors.New("no pid in its answer")
	}
	return pid, nil
}

// handoffWait bounds the wait for a spare's answer: the start of one
// process, unless the machine has stopped.
const handoffWait = 10 * time.Second

// Retire ends a spare that started a command, once the command has ended
// (the caller kills the spare first: the end of its socket alone would
// have it end the command's group as if the helper had gone).
func (l *Launch) Retire() {
	if l.sys.ctl != nil {
		l.sys.ctl.Close()
	}
}
