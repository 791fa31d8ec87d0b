package engine

import (
	"errors"
	"fmt"
)

// Field names a parameter by its Go identity: the name of its field in
// the engine's params (RunParams.TimeoutMs is "TimeoutMs"). Each front end
// renders it in its own wire's spelling (timeoutMs natively, timeout_ms
// in MCP), so the engine's texts name no wire.
type Field string

// The fields the engine's checks can name.
const (
	FieldCommand      Field = "Command"
	FieldMode         Field = "Mode"
	FieldStderr       Field = "Stderr"
	FieldTimeoutMs    Field = "TimeoutMs"
	FieldYieldMs      Field = "YieldMs"
	FieldReadyPattern Field = "ReadyPattern"
	FieldReadyPort    Field = "ReadyPort"
	FieldBackground   Field = "Background"
	FieldCols         Field = "Cols"
	FieldRows         Field = "Rows"
	FieldSessionID    Field = "SessionID"
	FieldUntil        Field = "Until"
	FieldStableMs     Field = "StableMs"
	FieldSignal       Field = "Signal"
	FieldGraceMs      Field = "GraceMs"
	FieldID           Field = "ID"
	FieldSandbox      Field = "Sandbox"
	FieldCursor       Field = "Cursor"
)

// ParamError is a request with a bad value. Its text names fields by
// their Go identity; a front end renders it with Render in its own names.
type ParamError struct {
	format string
	args   []any // a Field is rendered through the front end's names
}

func (e *ParamError) Error() string { return "invalid params: " + e.Render(goName) }

// Render is the problem, without the "invalid params" prefix, with each
// field written as name(field).
func (e *ParamError) Render(name func(Field) string) string {
	args := make([]any, len(e.args))
	for i, a := range e.args {
		if f, ok := a.(Field); ok {
			a = name(f)
		}
		args[i] = a
	}
	return fmt.Sprintf(e.format, args...)
}

// Fields are the fields the problem names, in order.
func (e *ParamError) Fields() []Field {
	var fs []Field
	for _, a := range e.args {
		if f, ok := a.(Field); ok {
			fs = append(fs, f)
		}
	}
	return fs
}

func goName(f Field) string { return string(f) }

// errParams is a ParamError; Field arguments are rendered as names (the
// format quotes them with %q).
func errParams(format string, args ...any) error {
	return &ParamError{format: format, args: args}
}

// RefusedError is a command that did not run: blocked by the policy (a
// hard block, which no approval lifts) or not approved.
type RefusedError struct {
	Blocked bool // a hard block; otherwise approval was refused or unavailable
	Msg     string
	Reasons []string
	Err     error // the Approver's error, if asking failed
}

func (e *RefusedError) Error() string { return e.Msg }

func (e *RefusedError) Unwrap() error { return e.Err }

// ErrCancelled is a request the host gave up on (MCP's
// notifications/cancelled, the native $/cancelRequest) before its answer.
var ErrCancelled = errors.New("request cancelled by the host")

// ErrDeclined is the message of a command the person declined.
var ErrDeclined = errors.New("user declined to run this command")

// ErrDismissed is the message of a command whose approval question the
// host closed without an answer: an error for an answer, a decision it
// does not know (MCP's elicitation "cancel", which some hosts send for
// every question they cannot show). Nobody declined it: the model should
// not take it for the person's refusal.
var ErrDismissed = errors.New("the host dismissed the approval question without an answer (no person declined it); the command did not run")

func blocked(reasons []string) *RefusedError {
	return &RefusedError{Blocked: true, Msg: "blocked by policy: " + first(reasons), Reasons: nonNil(reasons)}
}

func notApproved(msg string, reasons []string) *RefusedError {
	return &RefusedError{Msg: msg, Reasons: reasons}
}

func first(reasons []string) string {
	if len(reasons) == 0 {
		return "refused"
	}
	return reasons[0]
}
