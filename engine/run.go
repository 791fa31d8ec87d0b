package engine

import (
	"context"
	"strings"
	"time"

	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/session"
)

// RunParams are a command to run (PROTOCOL.md section 3).
type RunParams struct {
	Command    string             `json:"command"`
	Cwd        string             `json:"cwd"`
	Env        map[string]*string `json:"env"`
	Mode       string             `json:"mode"` // "pty" (default) or "pipes"
	Background bool               `json:"background"`
	TimeoutMs  *int64             `json:"timeoutMs"`
	YieldMs    *int64             `json:"yieldMs"`
	Stderr     string             `json:"stderr"` // "merged" (default) or "separate"
	Stdin      *string            `json:"stdin"`
	Cols       int                `json:"cols"`
	Rows       int                `json:"rows"`
}

// Run judges a command, asks the host when it must, starts it and returns
// its first answer: finished, or alive with a session id. A cancelled ctx
// ends the wait for an approval or an answer, not the command.
func (e *Engine) Run(ctx context.Context, p RunParams) (session.Result, error) {
	spec, yield, err := e.buildSpec(p)
	if err != nil {
		return session.Result{}, err
	}
	if err := e.approve(ctx, p.Command, spec.Dir); err != nil {
		return session.Result{}, err
	}
	sess, err := e.mgr.Start(spec)
	if err != nil {
		return session.Result{}, err
	}
	e.log.Info("started", "session", sess.ID(), "command", p.Command, "cwd", spec.Dir)
	// An explicit yieldMs of 0 answers at once; no yieldMs on a
	// foreground command waits for its end or a prompt.
	now := p.YieldMs != nil && *p.YieldMs == 0
	return sess.Answer(session.AnswerOpts{Yield: yield, Now: now, Done: ctx.Done()}), nil
}

func (e *Engine) buildSpec(p RunParams) (session.Spec, time.Duration, error) {
	if err := checkRun(&p); err != nil {
		return session.Spec{}, 0, err
	}
	dir, err := platform.ResolveDir(e.opts.Root, p.Cwd)
	if err != nil {
		return session.Spec{}, 0, err
	}
	spec := session.Spec{
		Command:        p.Command,
		Argv:           platform.ShellArgv(e.opts.Config.Shell, p.Command),
		Dir:            dir,
		Env:            e.commandEnv(p.Command, p.Env),
		PTY:            p.Mode != "pipes",
		SeparateStderr: p.Mode != "pipes" && p.Stderr == "separate",
		Cols:           p.Cols,
		Rows:           p.Rows,
		Background:     p.Background,
		Timeout:        e.timeout(p),
	}
	if p.Stdin != nil {
		spec.Stdin = []byte(*p.Stdin)
	}
	return spec, e.yield(p), nil
}

// checkRun refuses bad values, naming the field, and fills the defaults.
func checkRun(p *RunParams) error {
	if strings.TrimSpace(p.Command) == "" {
		return errParams(`field "command" is required and must not be empty`)
	}
	if strings.ContainsRune(p.Command, 0) {
		return errParams(`field "command" must not contain a NUL character`)
	}
	if err := oneOf("mode", p.Mode, "pty", "pipes"); err != nil {
		return err
	}
	if err := oneOf("stderr", p.Stderr, "merged", "separate"); err != nil {
		return err
	}
	if err := checkRange("timeoutMs", p.TimeoutMs); err != nil {
		return err
	}
	if err := checkRange("yieldMs", p.YieldMs); err != nil {
		return err
	}
	return checkSize(&p.Cols, &p.Rows)
}

func oneOf(field, v string, allowed ...string) error {
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

// maxMs bounds every duration a host may ask for: a day.
const maxMs = int64(24 * time.Hour / time.Millisecond)

func checkRange(field string, v *int64) error {
	if v != nil && (*v < 0 || *v > maxMs) {
		return errParams("field %q must be between 0 and %d", field, maxMs)
	}
	return nil
}

// checkSize fills a terminal size left at zero and refuses one out of range.
func checkSize(cols, rows *int) error {
	if *cols < 0 || *rows < 0 || *cols > 10000 || *rows > 10000 {
		return errParams(`fields "cols" and "rows" must be between 1 and 10000`)
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
	case p.Background:
		return ms(int64(e.opts.Config.Limits.BackgroundYieldMs))
	}
	return 0
}

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
