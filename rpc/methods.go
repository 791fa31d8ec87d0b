package rpc

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"time"

	"github.com/termhelper/termhelper/cleaner"
	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/session"
	"github.com/termhelper/termhelper/version"
)

type initializeParams struct {
	ClientInfo   *struct{ Name, Version string } `json:"clientInfo"`
	Capabilities struct {
		Approval     bool `json:"approval"`
		OutputStream bool `json:"outputStream"`
	} `json:"capabilities"`
	Trusted *bool `json:"trusted"`
}

func (s *Server) initialize(_ context.Context, raw *json.RawMessage) (any, error) {
	var p initializeParams
	if err := decodeParams(raw, &p, false); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.approval = p.Capabilities.Approval
	s.trusted = p.Trusted == nil || *p.Trusted
	s.mu.Unlock()
	s.mgr.StreamOutput(p.Capabilities.OutputStream)
	if p.ClientInfo != nil {
		s.log.Info("host", "name", p.ClientInfo.Name, "version", p.ClientInfo.Version)
	}
	lim := s.opts.Config.Limits
	return map[string]any{
		"serverInfo":      map[string]string{"name": "termhelper", "version": version.Number()},
		"protocolVersion": 1,
		"platform":        platformInfo(s.opts.Config),
		"root":            s.opts.Root,
		"limits": map[string]int{"timeoutMs": lim.TimeoutMs,
			"maxStreamChars": lim.MaxStreamChars, "maxLineChars": lim.MaxLineChars},
	}, nil
}

func (s *Server) shutdownMethod(context.Context, *json.RawMessage) (any, error) {
	s.mu.Lock()
	s.shutdown = true
	s.mu.Unlock()
	s.mgr.Close()
	return nil, nil
}

func (s *Server) exitMethod(context.Context, *json.RawMessage) (any, error) {
	s.exitOnce.Do(func() { close(s.exit) })
	return nil, nil
}

// RunParams are the params of exec/run.
type RunParams struct {
	Command    string             `json:"command"`
	Cwd        string             `json:"cwd"`
	Env        map[string]*string `json:"env"`
	Mode       string             `json:"mode"`
	Background bool               `json:"background"`
	TimeoutMs  *int64             `json:"timeoutMs"`
	YieldMs    *int64             `json:"yieldMs"`
	Stderr     string             `json:"stderr"`
	Stdin      *string            `json:"stdin"`
	Cols       int                `json:"cols"`
	Rows       int                `json:"rows"`
}

func (s *Server) execRun(ctx context.Context, raw *json.RawMessage) (any, error) {
	var p RunParams
	if err := decodeParams(raw, &p, true); err != nil {
		return nil, err
	}
	r, err := s.Run(ctx, p)
	if err != nil {
		return nil, err
	}
	return resultWire(r), nil
}

// Run runs a command as exec/run does and returns its first answer.
func (s *Server) Run(ctx context.Context, p RunParams) (session.Result, error) {
	spec, yield, err := s.buildSpec(p)
	if err != nil {
		return session.Result{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := s.approve(ctx, p.Command, spec.Dir); err != nil {
		return session.Result{}, err
	}
	s.mu.Lock()
	down := s.shutdown
	s.mu.Unlock()
	if down {
		return session.Result{}, session.ErrClosed
	}
	sess, err := s.mgr.Start(spec)
	if err != nil {
		return session.Result{}, err
	}
	s.log.Info("started", "session", sess.ID(), "command", p.Command, "cwd", spec.Dir)
	// An explicit yieldMs of 0 answers at once; no yieldMs on a
	// foreground command waits for its end or a prompt.
	now := p.YieldMs != nil && *p.YieldMs == 0
	return sess.Answer(session.AnswerOpts{Yield: yield, Now: now}), nil
}

func (s *Server) buildSpec(p RunParams) (session.Spec, time.Duration, error) {
	var spec session.Spec
	if strings.TrimSpace(p.Command) == "" {
		return spec, 0, errParams(`field "command" is required and must not be empty`)
	}
	if strings.ContainsRune(p.Command, 0) {
		return spec, 0, errParams(`field "command" must not contain a NUL character`)
	}
	switch p.Mode {
	case "", "pty", "pipes":
	default:
		return spec, 0, errParams(`field "mode" must be "pty" or "pipes", not %q`, p.Mode)
	}
	switch p.Stderr {
	case "", "merged", "separate":
	default:
		return spec, 0, errParams(`field "stderr" must be "merged" or "separate", not %q`, p.Stderr)
	}
	if err := checkRange("timeoutMs", p.TimeoutMs); err != nil {
		return spec, 0, err
	}
	if err := checkRange("yieldMs", p.YieldMs); err != nil {
		return spec, 0, err
	}
	if p.Cols < 0 || p.Rows < 0 || p.Cols > 10000 || p.Rows > 10000 {
		return spec, 0, errParams(`fields "cols" and "rows" must be between 1 and 10000`)
	}
	if p.Cols == 0 {
		p.Cols = 160
	}
	if p.Rows == 0 {
		p.Rows = 48
	}
	dir, err := s.resolveDir(p.Cwd)
	if err != nil {
		return spec, 0, err
	}
	spec = session.Spec{
		Command:        p.Command,
		Argv:           platform.ShellArgv(s.opts.Config.Shell, p.Command),
		Dir:            dir,
		Env:            s.commandEnv(p.Command, p.Env),
		PTY:            p.Mode != "pipes",
		SeparateStderr: p.Mode != "pipes" && p.Stderr == "separate",
		Cols:           p.Cols,
		Rows:           p.Rows,
		Background:     p.Background,
		Timeout:        s.timeout(p),
	}
	if p.Stdin != nil {
		spec.Stdin = []byte(*p.Stdin)
	}
	return spec, s.yield(p), nil
}

func checkRange(field string, v *int64) error {
	if v != nil && (*v < 0 || *v > int64(24*time.Hour/time.Millisecond)) {
		return errParams("field %q must be between 0 and 86400000", field)
	}
	return nil
}

func (s *Server) resolveDir(cwd string) (string, error) {
	return platform.ResolveDir(s.opts.Root, cwd)
}

// commandEnv layers, lowest first: the base environment, the
// non-interactive defaults, the rm shim, and the request's own variables.
// The first two are prepared once per base environment; a command only
// overlays its own few variables.
func (s *Server) commandEnv(command string, set map[string]*string) []string {
	base := s.preparedEnv()
	return platform.Overlay(base, platform.FoldEnvCase, s.shimEnv(base, command), set)
}

// preparedEnv is the base environment with the defaults applied, rebuilt
// only when the base changes (the login shell's environment arrives or is
// re-read).
func (s *Server) preparedEnv() []string {
	base := s.staticEnv
	if s.opts.BaseEnv != nil {
		base = s.opts.BaseEnv()
	}
	s.envMu.Lock()
	defer s.envMu.Unlock()
	if s.envOut == nil || !sameSlice(base, s.envSrc) {
		s.envSrc = base
		s.envOut = platform.MergeEnv(base, platform.FoldEnvCase, platform.DefaultsFor(base))
	}
	return s.envOut
}

// sameSlice reports whether a and b are the same slice, not equal ones: a
// base environment is replaced, never changed in place.
func sameSlice(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func (s *Server) shimEnv(base []string, command string) map[string]*string {
	if s.opts.ShimDir == "" || s.opts.TrashDir == "" {
		return nil
	}
	path := s.opts.ShimDir
	for _, kv := range base {
		if k, v, _ := strings.Cut(kv, "="); k == "PATH" && v != "" {
			path += string(os.PathListSeparator) + v
		}
	}
	return map[string]*string{"PATH": &path, "TERMHELPER_TRASH_DIR": &s.opts.TrashDir, "TERMHELPER_COMMAND": &command}
}

// timeout is the lifetime cap: the request's, else none for background
// commands, the slow cap for known slow commands, the default otherwise.
func (s *Server) timeout(p RunParams) time.Duration {
	lim := s.opts.Config.Limits
	switch {
	case p.TimeoutMs != nil:
		return time.Duration(*p.TimeoutMs) * time.Millisecond
	case p.Background:
		return 0
	case s.opts.Config.IsSlow(p.Command):
		return time.Duration(lim.SlowTimeoutMs) * time.Millisecond
	}
	return time.Duration(lim.TimeoutMs) * time.Millisecond
}

func (s *Server) yield(p RunParams) time.Duration {
	switch {
	case p.YieldMs != nil:
		return time.Duration(*p.YieldMs) * time.Millisecond
	case p.Background:
		return time.Duration(s.opts.Config.Limits.BackgroundYieldMs) * time.Millisecond
	}
	return 0
}

type sessionParams struct {
	SessionID *string `json:"sessionId"`
	YieldMs   *int64  `json:"yieldMs"`
}

func (s *Server) session(p sessionParams) (*session.Session, error) {
	if p.SessionID == nil {
		return nil, errParams(`field "sessionId" is required`)
	}
	return s.mgr.Get(*p.SessionID)
}

type writeParams struct {
	sessionParams
	Input  *string `json:"input"`
	Secret bool    `json:"secret"`
}

// defaultWriteYield is how long session/write waits for the command's
// reaction when the host does not say: a new prompt or the exit ends it
// sooner.
const defaultWriteYield = 2 * time.Second

func (s *Server) sessionWrite(_ context.Context, raw *json.RawMessage) (any, error) {
	var p writeParams
	if err := decodeParams(raw, &p, true); err != nil {
		return nil, err
	}
	if p.Input == nil {
		return nil, errParams(`field "input" is required`)
	}
	if err := checkRange("yieldMs", p.YieldMs); err != nil {
		return nil, err
	}
	sess, err := s.session(p.sessionParams)
	if err != nil {
		return nil, err
	}
	if *p.Input != "" {
		if err := sess.Write(*p.Input, p.Secret); err != nil {
			return nil, err
		}
	}
	yield := defaultWriteYield
	if p.YieldMs != nil {
		yield = time.Duration(*p.YieldMs) * time.Millisecond
	}
	return resultWire(sess.Answer(session.AnswerOpts{Yield: yield, Now: yield == 0})), nil
}

type readParams struct {
	sessionParams
	Until string `json:"until"`
}

func (s *Server) sessionRead(_ context.Context, raw *json.RawMessage) (any, error) {
	var p readParams
	if err := decodeParams(raw, &p, true); err != nil {
		return nil, err
	}
	if p.Until != "" && p.Until != "exit" {
		return nil, errParams(`field "until" must be "exit"`)
	}
	if err := checkRange("yieldMs", p.YieldMs); err != nil {
		return nil, err
	}
	sess, err := s.session(p.sessionParams)
	if err != nil {
		return nil, err
	}
	o := session.AnswerOpts{OnOutput: p.Until == "", UntilExit: p.Until == "exit"}
	switch {
	case p.YieldMs != nil && *p.YieldMs > 0:
		o.Yield = time.Duration(*p.YieldMs) * time.Millisecond
	case p.Until == "":
		o.Now = true // a plain poll
	}
	return resultWire(sess.Answer(o)), nil
}

type killParams struct {
	sessionParams
	Signal  string `json:"signal"`
	GraceMs *int64 `json:"graceMs"`
}

func (s *Server) sessionKill(_ context.Context, raw *json.RawMessage) (any, error) {
	var p killParams
	if err := decodeParams(raw, &p, true); err != nil {
		return nil, err
	}
	sig := platform.SIGTERM
	if p.Signal != "" {
		var ok bool
		if sig, ok = platform.ParseSignal(p.Signal); !ok {
			return nil, errParams(`field "signal" must be one of SIGTERM, SIGINT, SIGHUP, SIGKILL, not %q`, p.Signal)
		}
	}
	if err := checkRange("graceMs", p.GraceMs); err != nil {
		return nil, err
	}
	grace := 2 * time.Second
	if p.GraceMs != nil {
		grace = time.Duration(*p.GraceMs) * time.Millisecond
	}
	sess, err := s.session(p.sessionParams)
	if err != nil {
		return nil, err
	}
	return resultWire(sess.Kill(sig, grace)), nil
}

func (s *Server) sessionList(context.Context, *json.RawMessage) (any, error) {
	list := []map[string]any{}
	for _, in := range s.mgr.List() {
		row := map[string]any{"sessionId": in.ID, "pid": in.Pid, "command": in.Command,
			"cwd": in.Cwd, "state": in.State, "startedAt": in.StartedAt.UTC().Format(time.RFC3339Nano)}
		if in.Exit != nil {
			row["exitCode"] = in.Exit.Code
		}
		list = append(list, row)
	}
	return map[string]any{"sessions": list}, nil
}

type resizeParams struct {
	sessionParams
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

func (s *Server) sessionResize(_ context.Context, raw *json.RawMessage) (any, error) {
	var p resizeParams
	if err := decodeParams(raw, &p, true); err != nil {
		return nil, err
	}
	if p.Cols < 1 || p.Rows < 1 || p.Cols > 10000 || p.Rows > 10000 {
		return nil, errParams(`fields "cols" and "rows" must be between 1 and 10000`)
	}
	sess, err := s.session(p.sessionParams)
	if err != nil {
		return nil, err
	}
	return nil, sess.Resize(p.Cols, p.Rows)
}

func cleanerOptions(c config.Config) cleaner.Options {
	return cleaner.Options{MaxLineChars: c.Limits.MaxLineChars,
		MaxStreamChars: c.Limits.MaxStreamChars, Encoding: c.Encoding}
}
