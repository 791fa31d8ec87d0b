package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

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
// alone reads around the secret places as they were when it was set up.
var ErrNoSpare = errors.New("sandbox: no spare for this plan here")

// Handoff is the command a spare runs: what a fresh trampoline would have
// had from its exec.Cmd.
type Handoff struct {
	Argv  []string
	Env   []string
	Dir   string
	Stdio [3]*os.File // standard input, output and error
	Ctty  bool        // Stdio[0] is a terminal, to be the session's own
}

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

// Hand gives the spare its command; the spare executes it at once, or,
// if its confinement failed, says why on h's standard error and exits
// 126. An error means the spare has not got the command: the caller ends
// it and starts the command another way.
func (l *Launch) Hand(h Handoff) error {
	s := &l.sys
	if s.ctl == nil {
		return errors.New("sandbox: not a spare")
	}
	defer s.ctl.Close()
	msg, _ := json.Marshal(handoffMsg{Argv: h.Argv, Env: h.Env, Dir: h.Dir, Ctty: h.Ctty}) // strings and a bool
	if len(msg) > maxHandoff {
		return errors.New("sandbox: the command is too long for a spare")
	}
	var fds []int
	for _, f := range h.Stdio {
		if f == nil {
			return errors.New("sandbox: a spare needs all three standard files")
		}
		fds = append(fds, int(f.Fd()))
	}
	err := unix.Sendmsg(int(s.ctl.Fd()), msg, unix.UnixRights(fds...), nil, 0)
	runtime.KeepAlive(h.Stdio)
	if err != nil {
		return fmt.Errorf("sandbox: handing the command to its spare: %w", err)
	}
	return nil
}

// serveSpare is the trampoline as a spare: confined first, then the
// command when it comes. A confinement that failed is told on the
// command's standard error, where a fresh trampoline would have told it.
func serveSpare(w wire) int {
	unix.CloseOnExec(w.CtlFD)
	err := confine(w)
	h, rerr := receiveHandoff(w.CtlFD)
	if rerr != nil {
		return 126 // the helper ended the spare, or went: nothing to run
	}
	if err == nil {
		err = h.enter()
	}
	if err == nil {
		err = execute(h.Argv, nil)
	}
	fmt.Fprintf(os.Stderr, "termhelper: the sandbox could not be set up, the command did not run: %s\n", oneLine(err))
	return 126
}

// receiveHandoff waits for the command. Its files arrive close-on-exec;
// enter puts them in place.
func receiveHandoff(fd int) (handoffMsg, error) {
	var h handoffMsg
	buf, oob := make([]byte, maxHandoff+1), make([]byte, unix.CmsgSpace(3*4))
	n, oobn, flags, _, err := unix.Recvmsg(fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return h, err
	}
	fds, perr := passedFDs(oob[:oobn])
	if perr != nil || len(fds) != 3 || n == 0 || flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0 {
		closeAll(fds)
		return h, errors.New("the helper sent no command")
	}
	if err := json.Unmarshal(buf[:n], &h); err != nil || len(h.Argv) == 0 {
		closeAll(fds)
		return h, errors.New("the helper sent no command")
	}
	return h, placeStdio(fds)
}

// placeStdio makes fds the standard input, output and error.
func placeStdio(fds []int) error {
	for i, fd := range fds {
		if err := unix.Dup3(fd, i, 0); err != nil {
			return fmt.Errorf("placing the command's files: %w", err)
		}
	}
	return nil
}

// enter takes the terminal (the spare leads a session of its own, as a
// fresh trampoline's exec.Cmd made it), the command's folder and its
// environment, which execute passes on. A variable given twice keeps its
// last value, once, as os/exec leaves it for a fresh trampoline.
func (h handoffMsg) enter() error {
	if h.Ctty {
		if err := unix.IoctlSetInt(0, unix.TIOCSCTTY, 0); err != nil {
			return fmt.Errorf("taking the terminal: %w", err)
		}
	}
	if err := unix.Chdir(h.Dir); err != nil {
		return fmt.Errorf("entering %s: %w", h.Dir, err)
	}
	os.Clearenv()
	for _, kv := range h.Env {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			if err := os.Setenv(k, v); err != nil {
				return fmt.Errorf("the command's environment: %w", err)
			}
		}
	}
	return nil
}

// Footprint is what confining by p depends on besides p itself: what lies
// at each of its paths now (device, inode and type, or the error). A
// spare confines a command as a fresh trampoline would only while the
// footprint it was started with holds: a secret place made since, a
// protected file replaced, a cache that appeared, the root moved.
func Footprint(p Plan) string {
	b := make([]byte, 0, 32*(2+len(p.Writable)+len(p.Protect)+len(p.Hide)))
	add := func(path string) {
		var st unix.Stat_t
		if err := unix.Stat(path, &st); err != nil {
			errno, _ := err.(unix.Errno)
			b = strconv.AppendUint(append(b, '!'), uint64(errno), 10)
		} else {
			b = strconv.AppendUint(b, st.Dev, 16)
			b = strconv.AppendUint(append(b, ':'), st.Ino, 16)
			b = strconv.AppendUint(append(b, ':'), uint64(st.Mode&unix.S_IFMT), 8)
		}
		b = append(b, '\n')
	}
	for _, list := range [][]string{{p.Root, p.TempDir}, p.Writable, p.Protect, p.Hide} {
		for _, path := range list {
			add(path)
			if strings.HasSuffix(path, "/") { // a folder protect makes if its parent is there
				add(filepath.Dir(filepath.Clean(path)))
			}
		}
	}
	return string(b)
}
