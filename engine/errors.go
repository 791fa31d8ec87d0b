package engine

import (
	"errors"
	"fmt"
)

// ParamError is a request with a bad value; Msg names the field.
type ParamError struct{ Msg string }

func (e *ParamError) Error() string { return "invalid params: " + e.Msg }

func errParams(format string, args ...any) error {
	return &ParamError{Msg: fmt.Sprintf(format, args...)}
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

// ErrDeclined is the message of a command the person declined.
var ErrDeclined = errors.New("user declined to run this command")

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
