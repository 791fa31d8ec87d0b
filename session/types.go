// Package session runs commands and keeps them: a Manager maps ids to
// Sessions, and each Session owns one process tree, its cleaned output and
// its state machine (running, waiting, background, exited), its lifetime
// cap, and the notifications sent when something changes.
package session

import (
	"errors"
	"regexp"
	"time"

	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/sandbox"
)

// Errors the RPC layer maps to protocol codes.
var (
	ErrNotFound   = errors.New("no such session")
	ErrTooMany    = errors.New("too many live sessions")
	ErrStart      = errors.New("the command could not be started")
	ErrClosed     = errors.New("the helper is shutting down")
	ErrNoTerminal = errors.New("the session has no terminal")
	ErrFinished   = errors.New("the session has finished")
	ErrInput      = errors.New("the command did not take the input")
)

// State is where a live session stands.
type State string

// The states of a session.
const (
	Running    State = "running"
	Waiting    State = "waiting"
	Background State = "background"
	Exited     State = "exited"
)

// Spec is one command to run, already validated and resolved. The
// process's own attributes (argv, folder, environment, terminal,
// sandbox) are its platform.Spec, carried whole, so that a new one is
// added in one place; the manager sets its Tag.
type Spec struct {
	platform.Spec
	Command    string
	Background bool
	Timeout    time.Duration // 0: no lifetime cap
	// TimeoutRenews: once an answer has handed the command to the host
	// alive, Timeout counts again from the end of each call that waits on
	// it and does not run out during one, so a command the host keeps
	// waiting on lives as long as it needs, and one it forgot is ended a
	// Timeout later.
	TimeoutRenews bool
	// Mask lists secrets (mask.SecretValues of the helper's environment)
	// replaced with ******** wherever the command prints them.
	Mask []string
	// MaskFiles are more secrets, by the file they come from (the
	// project's .env files): masked the same, and a finished answer
	// names the files whose values its output held (Result.Masked).
	MaskFiles map[string][]string
	// ReadyPattern and ReadyPort say when a server is ready: a line of its
	// output, as the terminal shows it, matches; or the port accepts
	// connections on loopback. Either makes answers carry Ready.
	ReadyPattern *regexp.Regexp
	ReadyPort    int
	// Watch, if set, is called with the session's id before the process
	// starts; it may add to the process's spec (its environment), and the
	// Watcher it returns lives as long as the session.
	Watch func(id string, p *platform.Spec) (Watcher, error)
}

// Watcher is what a caller hangs on a session: it sees each line the
// command shows, names what was refused to the command besides what its
// process's sandbox names, and is closed once the tree has ended.
type Watcher interface {
	// Line is called with each line of output as it leaves the live
	// screen for good (stderr's too), under the session's lock: it must
	// be quick and must not call the session.
	Line(line string)
	// Denied lists what was refused so far.
	Denied() []sandbox.Denial
	// Opened lists the watched files (the project's .env files) opened
	// while the command ran.
	Opened() []string
	Close()
}

// Prompt is what a waiting command shows.
type Prompt struct {
	Text   string `json:"text"`
	Secret bool   `json:"secret"`
}

// Result is one answer about a session: finished when Exit is set, alive
// otherwise.
type Result struct {
	ID    string
	Pid   int
	State State

	Exit     *platform.Exit
	Duration time.Duration
	TimedOut bool
	KilledBy string        // the signal a session/kill sent, if that ended it
	Timeout  time.Duration // the lifetime cap the command ran under
	// EndsIn is, on an alive answer of a capped command, how long from
	// this answer until the cap ends it; Renews says the cap counts again
	// from each call on the session (Spec.TimeoutRenews, handed over). On
	// a finished answer Renews says the cap that ended it was counted so.
	EndsIn time.Duration
	Renews bool

	Output         string
	Stderr         *string // set only when stderr is kept apart
	Truncated      bool
	FullOutputPath string
	// Cursor is the position in the session's history after this
	// answer's output. Read from a cursor (AnswerOpts.Cursor), Skipped is
	// how much of the history between the cursor asked and the output is
	// no longer kept, and More that there is output after Cursor already.
	Cursor  int64
	Skipped int64
	More    bool
	// Ready is set on alive answers of a command with a ready pattern or
	// port: whether it was seen. Ports are the TCP ports its tree listens
	// on, where the platform can tell.
	Ready  *bool
	Ports  []int
	Prompt *Prompt
	// Denied is what the sandbox refused the command, on finished
	// answers: its process's sandbox and the Watcher together.
	Denied []sandbox.Denial
	// Masked names the MaskFiles whose values the output held, masked,
	// and Opened the watched files opened while the command ran (see
	// Watcher), on finished answers.
	Masked, Opened []string
	// Screen is set on an alive answer whose Output is the screen as a
	// person sees it (a full-screen program, or a page drawn by cursor
	// address) rather than the lines printed since the last answer.
	Screen bool
}

// Info is one row of session/list.
type Info struct {
	ID        string
	Pid       int
	Command   string
	Cwd       string
	State     State
	StartedAt time.Time
	Exit      *platform.Exit
	Ports     []int // the TCP ports its tree listens on, while it lives
	Cursor    int64 // the position after its output so far
}

// Notifier receives what the host is told without asking.
type Notifier interface {
	Exited(id string, r Result)
	Waiting(id string, p Prompt)
	Output(id, stream, data string)
}
