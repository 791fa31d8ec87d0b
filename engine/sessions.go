package engine

import (
	"context"
	"time"

	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/session"
)

// WriteParams send input to a session (session/write).
type WriteParams struct {
	SessionID string
	Input     string
	Secret    bool // never logged, masked wherever echoed back
	YieldMs   *int64
}

// defaultWriteYield is how long a write waits for the command's reaction
// when the host does not say: a new prompt or the exit ends it sooner.
const defaultWriteYield = 2 * time.Second

// Write sends input to a session and answers with its reaction.
func (e *Engine) Write(ctx context.Context, p WriteParams) (session.Result, error) {
	if err := checkRange(FieldYieldMs, p.YieldMs); err != nil {
		return session.Result{}, err
	}
	sess, err := e.session(p.SessionID)
	if err != nil {
		return session.Result{}, err
	}
	if p.Input != "" {
		if err := sess.Write(p.Input, p.Secret); err != nil {
			return session.Result{}, err
		}
	}
	yield := defaultWriteYield
	if p.YieldMs != nil {
		yield = ms(*p.YieldMs)
	}
	return waited(ctx, sess.Answer(session.AnswerOpts{Yield: yield, Now: yield == 0, Done: ctx.Done()}))
}

// waited is the answer of a wait on a session, or ErrCancelled when the
// host gave up on it: only the wait ends, the session goes on.
func waited(ctx context.Context, r session.Result) (session.Result, error) {
	if ctx.Err() != nil {
		return session.Result{}, ErrCancelled
	}
	return r, nil
}

// ReadParams ask a session for its news (session/read).
type ReadParams struct {
	SessionID string
	YieldMs   *int64 // long-poll; absent: a plain poll
	Until     string // "", "exit", "stable"
	StableMs  *int64 // until "stable": how long unchanged (1000)
	// Cursor, if set, reads the output from this position on instead of
	// the news since the last answer, consuming nothing.
	Cursor *int64
}

// defaultStable is how long the screen must stay unchanged for until
// "stable" when the host does not say.
const defaultStable = time.Second

// Read answers with a session's news: at once, at its next output, or at
// the event Until names, whichever the params ask for.
func (e *Engine) Read(ctx context.Context, p ReadParams) (session.Result, error) {
	if err := oneOf(FieldUntil, p.Until, "exit", "stable"); err != nil {
		return session.Result{}, err
	}
	if err := checkRange(FieldYieldMs, p.YieldMs); err != nil {
		return session.Result{}, err
	}
	if err := checkRange(FieldStableMs, p.StableMs); err != nil {
		return session.Result{}, err
	}
	sess, err := e.session(p.SessionID)
	if err != nil {
		return session.Result{}, err
	}
	if err := checkCursor(sess, p.Cursor); err != nil {
		return session.Result{}, err
	}
	// Until stable, a prompt does not end the wait either: a full-screen
	// program always waits for keys.
	o := session.AnswerOpts{OnOutput: p.Until == "", UntilExit: p.Until != "", Done: ctx.Done(), Cursor: p.Cursor}
	if p.Until == "stable" {
		o.Stable = defaultStable
		if p.StableMs != nil {
			o.Stable = ms(*p.StableMs)
		}
	}
	switch {
	case p.YieldMs != nil && *p.YieldMs > 0:
		o.Yield = ms(*p.YieldMs)
	case p.Until == "":
		o.Now = true // a plain poll
	}
	return waited(ctx, sess.Answer(o))
}

// checkCursor refuses a cursor no answer can have given: negative, or past
// the session's output.
func checkCursor(sess *session.Session, cursor *int64) error {
	switch {
	case cursor == nil:
		return nil
	case *cursor < 0:
		return errParams("field %q must not be negative", FieldCursor)
	case *cursor > sess.Cursor():
		return errParams("field %q is past the session's output, which ends at %d", FieldCursor, sess.Cursor())
	}
	return nil
}

// KillParams end a session's tree (session/kill).
type KillParams struct {
	SessionID string
	Signal    string // SIGTERM (default), SIGINT, SIGHUP, SIGKILL
	GraceMs   *int64 // then SIGKILL; default 2000
}

// Kill ends a session's whole tree and returns its finished answer.
func (e *Engine) Kill(ctx context.Context, p KillParams) (session.Result, error) {
	sig := platform.SIGTERM
	if p.Signal != "" {
		var ok bool
		if sig, ok = platform.ParseSignal(p.Signal); !ok {
			return session.Result{}, errParams("field %q must be one of SIGTERM, SIGINT, SIGHUP, SIGKILL, not %q", FieldSignal, p.Signal)
		}
	}
	if err := checkRange(FieldGraceMs, p.GraceMs); err != nil {
		return session.Result{}, err
	}
	grace := 2 * time.Second
	if p.GraceMs != nil {
		grace = ms(*p.GraceMs)
	}
	sess, err := e.session(p.SessionID)
	if err != nil {
		return session.Result{}, err
	}
	return sess.Kill(sig, grace), nil
}

// Command is the command line of a live or lingering session.
func (e *Engine) Command(id string) (string, error) {
	sess, err := e.session(id)
	if err != nil {
		return "", err
	}
	return sess.Command(), nil
}

// List describes every session handed to the host, oldest first.
func (e *Engine) List() []session.Info { return e.mgr.List() }

// Resize sets a session's terminal size.
func (e *Engine) Resize(id string, cols, rows int) error {
	if cols < 1 || rows < 1 || cols > 10000 || rows > 10000 {
		return errParams("fields %q and %q must be between 1 and 10000", FieldCols, FieldRows)
	}
	sess, err := e.session(id)
	if err != nil {
		return err
	}
	return sess.Resize(cols, rows)
}

// Screen is the terminal of a live session as a person would see it now.
func (e *Engine) Screen(id string) (Screen, error) {
	sess, err := e.session(id)
	if err != nil {
		return Screen{}, err
	}
	sc, err := sess.Screen()
	if err != nil {
		return Screen{}, err
	}
	return Screen{Cols: sc.Cols, Rows: sc.Rows, Lines: sc.Lines,
		Cursor: Cursor{Row: sc.CursorRow, Col: sc.CursorCol}, AltScreen: sc.AltScreen}, nil
}

func (e *Engine) session(id string) (*session.Session, error) {
	if id == "" {
		return nil, errParams("field %q is required", FieldSessionID)
	}
	return e.mgr.Get(id)
}
