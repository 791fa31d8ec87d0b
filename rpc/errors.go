package rpc

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/session"
)

// Application error codes (PROTOCOL.md section 10).
const (
	CodeNoSession         = -32001
	CodeOutsideRoot       = -32002
	CodeBlocked           = -32003
	CodeNotApproved       = -32004
	CodeStartFailed       = -32005
	CodeTooMany           = -32006
	CodeShutDown    int64 = jsonrpc2.CodeInvalidRequest
)

// errParams is an invalid-params error naming the field.
func errParams(format string, args ...any) *jsonrpc2.Error {
	return &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: "invalid params: " + fmt.Sprintf(format, args...)}
}

// wireError is the one place a Go error becomes a protocol error: a plain
// error would reach the host as code 0.
func wireError(err error) *jsonrpc2.Error {
	var je *jsonrpc2.Error
	var pe *engine.ParamError
	var re *engine.RefusedError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &je):
		return je
	case errors.As(err, &pe):
		return &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: pe.Error()}
	case errors.As(err, &re):
		return refusedError(re)
	case errors.Is(err, session.ErrNotFound):
		return &jsonrpc2.Error{Code: CodeNoSession, Message: err.Error()}
	case errors.Is(err, platform.ErrOutsideRoot), errors.Is(err, platform.ErrNotDir):
		return &jsonrpc2.Error{Code: CodeOutsideRoot, Message: err.Error()}
	case errors.Is(err, session.ErrTooMany):
		return &jsonrpc2.Error{Code: CodeTooMany, Message: err.Error()}
	case errors.Is(err, session.ErrClosed):
		return &jsonrpc2.Error{Code: CodeShutDown, Message: err.Error()}
	case errors.Is(err, session.ErrStart):
		e := &jsonrpc2.Error{Code: CodeStartFailed, Message: err.Error()}
		e.SetError(map[string]string{"error": errors.Unwrap(err).Error()})
		return e
	case errors.Is(err, session.ErrFinished), errors.Is(err, session.ErrNoTerminal), errors.Is(err, session.ErrInput):
		return &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()}
	}
	return &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: err.Error()}
}

// refusedError is a command that did not run: blocked, or not approved.
func refusedError(re *engine.RefusedError) *jsonrpc2.Error {
	code := int64(CodeNotApproved)
	if re.Blocked {
		code = CodeBlocked
	}
	e := &jsonrpc2.Error{Code: code, Message: re.Msg}
	if len(re.Reasons) > 0 || re.Blocked {
		e.SetError(map[string]any{"reasons": re.Reasons})
	}
	return e
}

// decodeParams reads params into v, naming the field of a wrong type.
func decodeParams(raw *json.RawMessage, v any, required bool) error {
	if raw == nil || string(*raw) == "null" {
		if required {
			return errParams("params are required")
		}
		return nil
	}
	if len(*raw) > 0 && (*raw)[0] != '{' {
		return errParams("params must be an object")
	}
	if err := json.Unmarshal(*raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return errParams("field %q must be %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
		}
		return errParams("%v", err)
	}
	return nil
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int64", "int32", "uint16", "float64":
		return "a number"
	case "map", "struct":
		return "an object"
	case "ptr":
		return "a value of another type"
	}
	return "a " + goKind
}
