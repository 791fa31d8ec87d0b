// Package platform starts commands on a pseudo-terminal or on pipes, signals
// their whole process tree, resizes terminals and tells whether a command is
// blocked reading its input. It is the only package with build tags: the
// rest of termhelper sees the same API on every operating system.
package platform

import (
	"errors"
	"io"
	"strings"
)

// ErrUnsupported is returned where an operating system cannot do a thing yet.
var ErrUnsupported = errors.New("not supported on this platform")

// Spec describes one command to start.
type Spec struct {
	Argv []string // program and arguments; Argv[0] is a path or a name on PATH
	Dir  string   // working directory, already resolved inside the root
	Env  []string // the complete environment, "KEY=value"

	PTY            bool // run on a pseudo-terminal (else on pipes)
	Cols, Rows     int  // terminal size in pty mode
	SeparateStderr bool // pty mode: stderr on a pipe of its own

	// Stdin is written to the command's input at start; in pipes mode the
	// input is closed after it. Nil in pipes mode means an empty input.
	Stdin []byte

	// Tag marks every process of the command (inherited through the
	// environment) so its whole tree can be found even after a process
	// leaves the session or process group.
	Tag string

	// Confine confines the command; nil runs it unconfined. Windows
	// refuses a confinement that confines: it has no sandbox yet.
	Confine Confiner
}

// Exit is how a process ended.
type Exit struct {
	Code   int    // exit status, or 128+N for a death by signal N
	Signal string // "SIGKILL" for a signal death, "" otherwise
}

// InputState says whether a command is blocked reading its terminal.
type InputState struct {
	Known   bool // the platform could tell (false: fall back to heuristics)
	Waiting bool // the foreground process is blocked reading the terminal
	Secret  bool // the terminal is in line mode with echo off (a password read)
	Raw     bool // the terminal is in raw mode (a line editor, or keys read one by one)
	// Unread: the command has written output the helper has not read
	// yet, so a prompt or page it ends with is not seen; look again.
	Unread bool
	// Runs counts the times the processes seen waiting were given the
	// processor so far (0: unknown). Unchanged since input was written,
	// the read seen is the one the input has not yet woken.
	Runs uint64
}

// Signal is a signal the host may name: the numbers are the same on every
// Unix that termhelper runs on.
type Signal int

// The signals the protocol accepts.
const (
	SIGHUP  Signal = 1
	SIGINT  Signal = 2
	SIGKILL Signal = 9
	SIGTERM Signal = 15
)

var signalNames = map[string]Signal{
	"SIGHUP": SIGHUP, "SIGINT": SIGINT, "SIGKILL": SIGKILL, "SIGTERM": SIGTERM,
}

// ParseSignal accepts "SIGTERM", "TERM" or "term".
func ParseSignal(name string) (Signal, bool) {
	n := strings.ToUpper(name)
	if !strings.HasPrefix(n, "SIG") {
		n = "SIG" + n
	}
	s, ok := signalNames[n]
	return s, ok
}

func (s Signal) String() string {
	for name, v := range signalNames {
		if v == s {
			return name
		}
	}
	return "SIG?"
}

// Process is a started command. Output is the terminal (pty mode) or the
// stdout pipe; Stderr is set only when stderr is kept apart; Input is the
// terminal or nil once a pipes-mode input has been closed.
type Process struct {
	Pid    int
	Output io.ReadCloser
	Stderr io.ReadCloser
	Input  io.Writer

	initial initialInput
	sys     sysProcess
	guard   Guard // nil when unconfined
}

// Denied lists what the sandbox refused the command so far (nil when it
// runs unconfined), and the process cap, if the tree reached it.
func (p *Process) Denied() []Denial {
	var d []Denial
	if p.guard != nil {
		d = p.guard.Denied()
	}
	return append(d, p.limitDenials()...)
}

// initialInput is Spec.Stdin and where it goes, for WriteInitial.
type initialInput struct {
	data  []byte
	to    io.Writer
	close io.Closer // pipes mode: the input, closed after the data
}

// WriteInitial writes Spec.Stdin to the command's input and, in pipes mode,
// closes the input after it. It blocks until the command has taken the
// input or Close ends the write, so the caller runs it on a goroutine it
// owns and waits for.
func (p *Process) WriteInitial() error {
	in := p.initial
	var err error
	if in.to != nil && len(in.data) > 0 {
		_, err = in.to.Write(in.data)
	}
	if in.close != nil {
		if cerr := in.close.Close(); err == nil {
			err = cerr
		}
	}
	return err
}
