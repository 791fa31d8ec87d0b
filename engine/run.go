package engine

import (
	"context"
	"regexp"
	"strings"
	"time"

	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/sandbox"
	"github.com/termhelper/termhelper/session"
)

// RunParams are a command to run (PROTOCOL.md section 3).
type RunParams struct {
	Command    string
	Cwd        string
	Env        map[string]*string
	Mode       string // "pty" (default) or "pipes"
	Background bool
	TimeoutMs  *int64
	YieldMs    *int64
	Stderr     string // "merged" (default) or "separate"
	Stdin      *string
	Cols       int
	Rows       int
	// ReadyPattern (RE2) and ReadyPort make a background command answer
	// as soon as it is ready: a line of its output matches, or the port
	// accepts connections on loopback. Its yield then defaults to 30 s.
	ReadyPattern string
	ReadyPort    int
	// Sandbox is the mode the request asks for ("": the config's): a
	// narrower one applies as asked, a wider one needs approval.
	Sandbox string
	// Started, if set, learns the session's id once the command runs,
	// before its first answer (a front end's progress reports use it).
	Started func(id string)
}

// Run judges a command, asks the host when it must, starts it and returns
// its first answer: finished, or alive with a session id. A ctx cancelled
// before that answer (the host gave up on the request) withdraws the
// approval question, ends the command's whole tree and returns
// ErrCancelled: a stopped turn leaves nothing running.
func (e *Engine) Run(ctx context.Context, p RunParams) (session.Result, error) {
	spec, yield, err := e.buildSpec(p)
	if err != nil {
		return session.Result{}, err
	}
	c, err := e.confinementFor(p.Sandbox)
	if err != nil {
		return session.Result{}, err
	}
	if err := e.approve(ctx, p.Command, spec.Dir, p.Env, &c); err != nil {
		return session.Result{}, err
	}
	e.confine(&spec, c, p, e.networkAsker(ctx))
	if err := shellMissing(spec); err != nil {
		return session.Result{}, err
	}
	sess, err := e.mgr.Start(spec)
	if err != nil {
		return session.Result{}, err
	}
	e.log.Info("started", "session", sess.ID(), "command", p.Command, "cwd", spec.Dir)
	if p.Started != nil {
		p.Started(sess.ID())
	}
	// An explicit yieldMs of 0 answers at once; no yieldMs on a
	// foreground command waits for its end or a prompt.
	now := p.YieldMs != nil && *p.YieldMs == 0
	ready := spec.ReadyPattern != nil || spec.ReadyPort > 0
	r := sess.Answer(session.AnswerOpts{Yield: yield, Now: now, UntilReady: ready, Done: ctx.Done()})
	if ctx.Err() != nil && r.Exit == nil {
		e.log.Info("request cancelled: ending its command", "session", sess.ID())
		sess.Kill(platform.SIGTERM, cancelGrace)
		return session.Result{}, ErrCancelled
	}
	return r, nil
}

// cancelGrace is how long a cancelled command has between SIGTERM and
// SIGKILL.
const cancelGrace = 2 * time.Second

func (e *Engine) buildSpec(p RunParams) (session.Spec, time.Duration, error) {
	if err := checkRun(&p); err != nil {
		return session.Spec{}, 0, err
	}
	dir, err := platform.ResolveDir(e.opts.Root, p.Cwd)
	if err != nil {
		return session.Spec{}, 0, err
	}
	env, secrets := e.commandEnv(p.Command, p.Env)
	spec := session.Spec{
		Spec: platform.Spec{
			Argv:           platform.ShellArgv(e.opts.Config.Shell, p.Command),
			Dir:            dir,
			Env:            env,
			PTY:            p.Mode != "pipes",
			SeparateStderr: p.Mode != "pipes" && p.Stderr == "separate",
			Cols:           p.Cols,
			Rows:           p.Rows,
		},
		Command:    p.Command,
		Mask:       secrets,
		MaskFiles:  e.dotenvSecrets(),
		Background: p.Background,
		Timeout:    e.timeout(p),
		// The default cap of a foreground command counts again from each
		// call once it has yielded: a long build a host keeps waiting on
		// runs to its end, a forgotten one is ended a cap after the last.
		TimeoutRenews: p.TimeoutMs == nil && !p.Background,
	}
	if p.Stdin != nil {
		spec.Stdin = []byte(*p.Stdin)
	}
	spec.ReadyPort = p.ReadyPort
	if p.ReadyPattern != "" {
		spec.ReadyPattern = regexp.MustCompile(p.ReadyPattern) // checked by checkRun
	}
	return spec, e.yield(p), nil
}

// checkRun refuses bad values, naming the field, and fills the defaults.
func checkRun(p *RunParams) error {
	if strings.TrimSpace(p.Command) == "" {
		return errParams("field %q is required and must not be empty", FieldCommand)
	}
	if strings.ContainsRune(p.Command, 0) {
		return errParams("field %q must not contain a NUL character", FieldCommand)
	}
	if err := oneOf(FieldMode, p.Mode, "pty", "pipes"); err != nil {
		return err
	}
	if err := oneOf(FieldStderr, p.Stderr, "merged", "separate"); err != nil {
		return err
	}
	if err := checkRange(FieldTimeoutMs, p.TimeoutMs); err != nil {
		return err
	}
	if err := checkRange(FieldYieldMs, p.YieldMs); err != nil {
		return err
	}
	if err := checkReady(p); err != nil {
		return err
	}
	if err := checkSandbox(p.Sandbox); err != nil {
		return err
	}
	return checkSize(&p.Cols, &p.Rows)
}

// checkReady refuses a ready pattern that is not RE2, a port out of range,
// and either on a command not run in the background.
func checkReady(p *RunParams) error {
	if p.ReadyPattern == "" && p.ReadyPort == 0 {
		return nil
	}
	if !p.Background {
		return errParams("fields %q and %q need %q: true", FieldReadyPattern, FieldReadyPort, FieldBackground)
	}
	if _, err := regexp.Compile(p.ReadyPattern); err != nil {
		return errParams("field %q is not a valid regular expression: %v", FieldReadyPattern, err)
	}
	if p.ReadyPort < 0 || p.ReadyPort > 65535 {
		return errParams("field %q must be between 1 and 65535", FieldReadyPort)
	}
	return nil
}

func checkSandbox(mode string) error {
	if mode == "" {
		return nil
	}
	if _, err := sandbox.ParseMode(mode); err != nil {
		return errParams("field %q must be %q, %q or %q, not %q", FieldSandbox,
			sandbox.WorkspaceWrite, sandbox.ReadOnly, sandbox.Off, mode)
	}
	return nil
}

func oneOf(field Field, v string, allowed ...string) error {
	if v == "" {
		return nil
	}
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return errParams("field %q must be %q or %q, not %q", field, allowed[0], allowed[1], v)
}

// MaxMs bounds every duration a host may ask for: a day.
const MaxMs = int64(24 * time.Hour / time.Millisecond)

func checkRange(field Field, v *int64) error {
	if v != nil && (*v < 0 || *v > MaxMs) {
		return errParams("field %q must be between 0 and %d", field, MaxMs)
	}
	return nil
}

// checkSize fills a terminal size left at zero and refuses one out of range.
func checkSize(cols, rows *int) error {
	if *cols < 0 || *rows < 0 || *cols > 10000 || *rows > 10000 {
		return errParams("fields %q and %q must be between 1 and 10000", FieldCols, FieldRows)
	}
	if *cols == 0 {
		*cols = 160
	}
	if *rows == 0 {
		*rows = 48
	}
	return nil
}

// timeout is the lifetime cap: the request's, else none for background
// commands, the slow cap for known slow commands, the default otherwise.
func (e *Engine) timeout(p RunParams) time.Duration {
	lim := e.opts.Config.Limits
	switch {
	case p.TimeoutMs != nil:
		return ms(*p.TimeoutMs)
	case p.Background:
		return 0
	case e.opts.Config.IsSlow(p.Command):
		return ms(int64(lim.SlowTimeoutMs))
	}
	return ms(int64(lim.TimeoutMs))
}

func (e *Engine) yield(p RunParams) time.Duration {
	switch {
	case p.YieldMs != nil:
		return ms(*p.YieldMs)
	case p.ReadyPattern != "" || p.ReadyPort > 0:
		return readyYield
	case p.Background:
		return ms(int64(e.opts.Config.Limits.BackgroundYieldMs))
	}
	return 0
}

// readyYield is how long a command with a ready pattern or port may take
// to be ready before the answer says it is not.
const readyYield = 30 * time.Second

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
