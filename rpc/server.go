// Package rpc is termhelper's face on the wire: framing detection, the
// method table, parameter checks, and the one place where a Go error
// becomes a JSON-RPC error.
package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/policy"
	"github.com/termhelper/termhelper/session"
)

// Version is termhelper's version, reported by initialize.
const Version = "0.1.0"

// Options configure a Server.
type Options struct {
	Root   string // real absolute project root
	Config config.Config
	Log    *slog.Logger
	// BaseEnv is the environment commands start from (the helper's own,
	// later merged with the login shell's). Nil means os.Environ().
	BaseEnv func() []string
	// StateDir, when set, is where the helper records its commands so
	// that the next helper for the root ends them if this one is killed.
	StateDir string

	Policy *policy.Policy // nil: every command runs
	Store  *policy.Store  // where "always" answers are kept
	// ShimDir holds the rm shim, first on every command's PATH; TrashDir
	// is where it moves what rm would delete. Empty: no shim.
	ShimDir, TrashDir string

	// AfterFirst runs once, in its own goroutine, after the first
	// request has been answered: start-up work that must not delay the
	// answer to initialize (reading the login shell's environment,
	// pruning old files).
	AfterFirst func()
}

// Server serves one host over one connection.
type Server struct {
	opts Options
	mgr  *session.Manager
	log  *slog.Logger

	mu       sync.Mutex
	conn     *jsonrpc2.Conn
	approval bool
	trusted  bool
	shutdown bool
	exitOnce sync.Once
	stopping chan struct{} // closed when the helper starts shutting down
	stopOnce sync.Once
	inflight sync.WaitGroup
	first    sync.Once

	staticEnv      []string // the helper's environment, read once
	envMu          sync.Mutex
	envSrc, envOut []string // the last base environment, and it prepared (see preparedEnv)
	exit           chan struct{}
	methods        map[string]method
}

type method func(ctx context.Context, params *json.RawMessage) (any, error)

// New returns a server with its own session manager.
func New(opts Options) *Server {
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{opts: opts, log: opts.Log, trusted: true, exit: make(chan struct{}), stopping: make(chan struct{}),
		staticEnv: os.Environ()}
	lim := opts.Config.Limits
	s.mgr = session.NewManager(session.Config{
		MaxSessions: lim.MaxSessions,
		Cleaner:     cleanerOptions(opts.Config),
	}, notifier{s})
	if opts.StateDir != "" {
		if n, err := s.mgr.EnableState(opts.StateDir); err != nil {
			s.log.Warn("no state file: leftovers of a killed helper will not be found", "err", err)
		} else if n > 0 {
			s.log.Info("ended the leftovers of a helper that died", "processes", n)
		}
	}
	s.methods = map[string]method{
		"initialize":     s.initialize,
		"shutdown":       s.shutdownMethod,
		"exit":           s.exitMethod,
		"exec/run":       s.execRun,
		"session/write":  s.sessionWrite,
		"session/read":   s.sessionRead,
		"session/kill":   s.sessionKill,
		"session/list":   s.sessionList,
		"session/resize": s.sessionResize,
		"policy/check":   s.policyCheck,
		"trash/list":     s.trashList,
		"trash/restore":  s.trashRestore,
	}
	return s
}

// Serve answers requests on rwc until the host disconnects, sends exit, or
// ctx ends. It then ends every command's process tree and returns.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser, f Framing) error {
	st := newStream(rwc, f)
	st.atEOF = func() {
		s.log.Info("host closed its input")
		s.drain()
	}
	h := tracked{s, jsonrpc2.HandlerWithError(s.handle).SuppressErrClosed()}
	conn := jsonrpc2.NewConn(ctx, st, h, jsonrpc2.SetLogger(slogPrinter{s.log}))
	s.mu.Lock()
	s.conn = conn
	s.mu.Unlock()
	select {
	case <-conn.DisconnectNotify():
	case <-s.exit:
		s.log.Info("exit requested")
	case <-ctx.Done():
		s.log.Info("stopping", "cause", context.Cause(ctx))
	}
	s.drain()
	conn.Close()
	return nil
}

// drain ends every command's tree, then waits for the requests in flight
// to send their (now finished) answers.
func (s *Server) drain() {
	s.stopOnce.Do(func() { close(s.stopping) })
	s.mgr.Close()
	s.inflight.Wait()
}

// closing returns a context that ends when the helper starts shutting
// down, so that nothing in flight waits for a host that is gone.
func (s *Server) closing(parent context.Context) context.Context {
	ctx, cancel := context.WithCancel(parent)
	go func() {
		select {
		case <-s.stopping:
		case <-ctx.Done():
		}
		cancel()
	}()
	return ctx
}

// tracked runs each request in its own goroutine, so that a long exec/run
// never blocks the next request, and counts it so that shutdown can wait
// for its answer. The count is taken in the read loop, before the
// goroutine starts, so that drain never misses one.
type tracked struct {
	s *Server
	h jsonrpc2.Handler
}

func (t tracked) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	t.s.inflight.Add(1)
	go func() {
		defer t.s.inflight.Done()
		t.h.Handle(ctx, conn, req)
		if t.s.opts.AfterFirst != nil {
			t.s.first.Do(func() { go t.s.opts.AfterFirst() })
		}
	}()
}

// Close ends every command's process tree.
func (s *Server) Close() { s.mgr.Close() }

func (s *Server) handle(ctx context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	m, ok := s.methods[req.Method]
	if !ok {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "method not found: " + req.Method}
	}
	res, err := m(ctx, req.Params)
	if err != nil {
		s.log.Debug("request failed", "method", req.Method, "err", err)
		return nil, wireError(err)
	}
	return res, nil
}

// notify sends a notification if a host is connected.
func (s *Server) notify(method string, params any) {
	s.mu.Lock()
	conn := s.conn
	s.mu.Unlock()
	if conn == nil {
		return
	}
	if err := conn.Notify(context.Background(), method, params); err != nil {
		s.log.Debug("notification not sent", "method", method, "err", err)
	}
}

type notifier struct{ s *Server }

func (n notifier) Exited(id string, r session.Result) {
	w := finishedWire(r)
	n.s.notify("session/exited", exitedWire{SessionID: id, ExitCode: w.ExitCode, Signal: w.Signal,
		DurationMs: w.DurationMs, TimedOut: w.TimedOut, Summary: w.Summary})
}

func (n notifier) Waiting(id string, p session.Prompt) {
	n.s.notify("session/waiting", map[string]any{"sessionId": id, "prompt": p})
}

func (n notifier) Output(id, stream, data string) {
	n.s.notify("session/output", map[string]any{"sessionId": id, "stream": stream, "data": data})
}

type slogPrinter struct{ log *slog.Logger }

func (p slogPrinter) Printf(format string, args ...any) {
	p.log.Debug("jsonrpc2", "msg", strings.TrimSpace(fmt.Sprintf(format, args...)))
}

func platformInfo(cfg config.Config) map[string]string {
	shell := platform.ShellArgv(cfg.Shell, "")[0]
	kind := "unix-pty"
	if runtime.GOOS == "windows" {
		kind = "conpty"
	}
	return map[string]string{"os": runtime.GOOS, "arch": runtime.GOARCH, "shell": shell, "pty": kind}
}
