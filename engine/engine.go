// Package engine is termhelper's core without a wire: it builds a command
// from its parameters (working directory, environment, caps), judges it
// with the policy, asks the host through an Approver when it must, starts
// it and answers for it; it writes to, reads, kills, lists and resizes
// sessions, and sends their events to a Sink.
//
// Where the machine has a sandbox (OpenSandbox), every command runs
// confined: judged as a sandboxed line, given a plan of where it may
// write, its own temporary folder and its own door to the egress proxy,
// and its answer names what the sandbox stopped.
//
// The native JSON-RPC front end (package rpc) and the MCP front end
// (package mcp) are both thin layers over it, and a Go host can embed it
// in-process. Such a host's main must dispatch the sandbox's trampoline
// before anything else: the sandbox starts the running executable as
// `<exe> __sandbox ...` (sandbox.Command; see sandbox.Serve).
package engine

import (
	"io"
	"log/slog"
	"os"
	"runtime"
	"sync"

	"github.com/termhelper/termhelper/cleaner"
	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/policy"
	"github.com/termhelper/termhelper/sandbox"
	"github.com/termhelper/termhelper/session"
)

// Options configure an Engine. Root is required; the rest may be zero.
type Options struct {
	Root   string // real absolute project root (see platform.RealRoot)
	Config config.Config
	Log    *slog.Logger
	// BaseEnv is the environment commands start from (the helper's own,
	// later merged with the login shell's). Nil means os.Environ().
	BaseEnv func() []string
	// StateDir, when set, is where the engine records its commands so
	// that the next engine for the root ends them if this one is killed.
	StateDir string

	Policy *policy.Policy // nil: every command runs
	Store  *policy.Store  // where "always" answers are kept
	// ShimDir holds the rm shim, first on every command's PATH; TrashDir
	// is where it moves what rm would delete. Empty: no shim.
	ShimDir, TrashDir string

	// Sandbox confines the commands (see OpenSandbox); the zero value
	// confines nothing.
	Sandbox Sandbox
}

// Host is what the front end learned about its host, usually at
// initialize.
type Host struct {
	// Trusted is false for commands from an untrusted source: every one
	// then needs approval, and without an Approver it is refused.
	Trusted bool
	// Approver answers the commands the policy asks about; nil means the
	// host approves what it sends (it has its own dialog, or none).
	Approver Approver
	// StreamOutput turns on the Sink's Output events.
	StreamOutput bool
}

// Sink receives session events. Its methods are called from the
// session's goroutines, one event at a time per session, in order.
type Sink interface {
	Exited(id string, r session.Result)
	Waiting(id string, p session.Prompt)
	Output(id, stream, data string)
}

// Engine runs commands for one host and one project root. It is safe for
// concurrent use.
type Engine struct {
	opts Options
	log  *slog.Logger
	mgr  *session.Manager
	env  envCache
	// dotenv keeps the values of the project's .env files.
	dotenv dotenvCache

	planted sandbox.Planted

	mu       sync.Mutex
	host     Host
	sink     Sink
	attached []*Attachment // the front ends serving it at once (attach.go)
	reattach bool          // a front end attached after another one
}

// New returns an engine with its own sessions. Until SetHost is called,
// the host is trusted and approves what it sends.
func New(opts Options) *Engine {
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	e := &Engine{opts: opts, log: opts.Log, host: Host{Trusted: true}}
	e.env.static = os.Environ()
	e.mgr = session.NewManager(session.Config{
		MaxSessions: opts.Config.Limits.MaxSessions,
		Cleaner:     cleanerOptions(opts.Config),
		Log:         opts.Log,
	}, forward{e})
	if opts.StateDir != "" {
		e.enableState(opts.StateDir)
	}
	return e
}

func (e *Engine) enableState(dir string) {
	n, err := e.mgr.EnableState(dir)
	switch {
	case err != nil:
		e.log.Warn("no state file: leftovers of a killed helper will not be found", "err", err)
	case n > 0:
		e.log.Info("ended the leftovers of a helper that died", "processes", n)
	}
}

// SetHost applies what the front end learned about its host. It takes
// effect for every command judged after it returns.
func (e *Engine) SetHost(h Host) {
	e.mu.Lock()
	e.host = h
	e.mu.Unlock()
	e.mgr.StreamOutput(h.StreamOutput)
}

func (e *Engine) currentHost() Host {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.host
}

// SetSink sets where session events go; events before it are dropped.
func (e *Engine) SetSink(s Sink) {
	e.mu.Lock()
	e.sink = s
	e.mu.Unlock()
}

// Close ends every session's process tree and refuses new commands. It is
// safe to call more than once.
func (e *Engine) Close() {
	e.mgr.Close()
	e.dotenv.close()
}

// Root is the project root.
func (e *Engine) Root() string { return e.opts.Root }

// Limits are the caps commands run under.
type Limits struct {
	TimeoutMs      int
	MaxStreamChars int
	MaxLineChars   int
}

// Limits returns the caps commands run under.
func (e *Engine) Limits() Limits {
	l := e.opts.Config.Limits
	return Limits{TimeoutMs: l.TimeoutMs, MaxStreamChars: l.MaxStreamChars, MaxLineChars: l.MaxLineChars}
}

// Platform describes where commands run.
type Platform struct {
	OS    string
	Arch  string
	Shell string
	PTY   string
}

// Platform returns where commands run.
func (e *Engine) Platform() Platform {
	kind := "unix-pty"
	if runtime.GOOS == "windows" {
		kind = "conpty"
	}
	return Platform{OS: runtime.GOOS, Arch: runtime.GOARCH,
		Shell: platform.ShellArgv(e.opts.Config.Shell, "")[0], PTY: kind}
}

// forward hands session events to the engine's current sink.
type forward struct{ e *Engine }

func (f forward) get() Sink {
	f.e.mu.Lock()
	defer f.e.mu.Unlock()
	return f.e.sink
}

func (f forward) Exited(id string, r session.Result) {
	if s := f.get(); s != nil {
		s.Exited(id, r)
	}
}

func (f forward) Waiting(id string, p session.Prompt) {
	if s := f.get(); s != nil {
		s.Waiting(id, p)
	}
}

func (f forward) Output(id, stream, data string) {
	if s := f.get(); s != nil {
		s.Output(id, stream, data)
	}
}

func cleanerOptions(c config.Config) cleaner.Options {
	return cleaner.Options{MaxLineChars: c.Limits.MaxLineChars,
		MaxStreamChars: c.Limits.MaxStreamChars, Encoding: c.Encoding}
}

// Warnings are what a person should know about how commands are held
// here: the project config's keys that were ignored because they would
// have widened it, and how processes are contained where not by a cgroup.
func (e *Engine) Warnings() []string {
	w := append([]string(nil), e.opts.Config.Warnings...)
	if c := platform.Containment(); c != "" {
		w = append(w, c)
	}
	return w
}
