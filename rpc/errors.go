package rpc

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/protocol"
	"github.com/termhelper/termhelper/session"
	"github.com/termhelper/termhelper/wire"
)

// Application error codes (PROTOCOL.md section 10), as tests and hosts in
// Go name them.
const (
	CodeNoSession             = protocol.CodeNoSession
	CodeOutsideRoot           = protocol.CodeOutsideRoot
	CodeBlocked               = protocol.CodeBlocked
	CodeNotApproved           = protocol.CodeNotApproved
	CodeStartFailed           = protocol.CodeStartFailed
	CodeTooMany               = protocol.CodeTooMany
	CodeSandboxRequired       = protocol.CodeSandboxRequired
	CodeShutDown        int64 = wire.CodeInvalidRequest
)

// errParams is an invalid-params error naming the field.
func errParams(format string, args ...any) *wire.Error {
	return &wire.Error{Code: wire.CodeInvalidParams, Message: "invalid params: " + fmt.Sprintf(format, args...)}
}

// wireError is the one place a Go error becomes a protocol error: a plain
// error would reach the host as code 0.
func wireError(err error) *wire.Error {
	var we *wire.Error
	var pe *engine.ParamError
	var re *engine.RefusedError
	var se *engine.SandboxError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &re):
		// Before the wire error: a refusal may wrap the host's own error
		// answer to approval/request, which is not this call's error.
		return refusedError(re)
	case errors.As(err, &we):
		return we
	case errors.As(err, &pe):
		return &wire.Error{Code: wire.CodeInvalidParams, Message: "invalid params: " + pe.Render(fieldName)}
	case errors.Is(err, engine.ErrCancelled):
		return &wire.Error{Code: protocol.CodeCancelled, Message: err.Error()}
	case errors.As(err, &se):
		e := &wire.Error{Code: CodeSandboxRequired, Message: engine.ErrSandboxRequired.Error()}
		e.SetData(protocol.SandboxRequiredData{Reason: se.Reason})
		return e
	case errors.Is(err, session.ErrNotFound):
		return &wire.Error{Code: CodeNoSession, Message: err.Error()}
	case errors.Is(err, platform.ErrOutsideRoot), errors.Is(err, platform.ErrNotDir):
		return &wire.Error{Code: CodeOutsideRoot, Message: err.Error()}
	case errors.Is(err, session.ErrTooMany):
		return &wire.Error{Code: CodeTooMany, Message: err.Error()}
	case errors.Is(err, session.ErrClosed):
		return &wire.Error{Code: CodeShutDown, Message: err.Error()}
	case errors.Is(err, session.ErrStart):
		e := &wire.Error{Code: CodeStartFailed, Message: err.Error()}
		e.SetData(protocol.StartFailedData{Error: errors.Unwrap(err).Error()})
		return e
	case errors.Is(err, session.ErrFinished), errors.Is(err, session.ErrNoTerminal), errors.Is(err, session.ErrInput):
		return &wire.Error{Code: wire.CodeInvalidParams, Message: err.Error()}
	}
	return &wire.Error{Code: wire.CodeInternalError, Message: err.Error()}
}

// refusedError is a command that did not run: blocked, or not approved.
func refusedError(re *engine.RefusedError) *wire.Error {
	code := int64(CodeNotApproved)
	if re.Blocked {
		code = CodeBlocked
	}
	e := &wire.Error{Code: code, Message: re.Msg}
	if len(re.Reasons) > 0 || re.Blocked {
		e.SetData(protocol.ReasonsData{Reasons: re.Reasons})
	}
	return e
}

// fieldNames are the native names of the engine's fields, read from the
// params of package protocol, whose Go names are the engine's.
var fieldNames = jsonNames(protocol.RunParams{}, protocol.WriteParams{}, protocol.ReadParams{},
	protocol.KillParams{}, protocol.ResizeParams{}, protocol.RestoreParams{})

// fieldName is a field as the native protocol names it.
func fieldName(f engine.Field) string {
	if n, ok := fieldNames[string(f)]; ok {
		return n
	}
	return string(f)
}

// jsonNames maps the Go name of each field of the given structs (and of
// the structs they embed) to its JSON name.
func jsonNames(structs ...any) map[string]string {
	names := map[string]string{}
	for _, v := range structs {
		for _, f := range reflect.VisibleFields(reflect.TypeOf(v)) {
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && !f.Anonymous {
				names[f.Name] = name
			}
		}
	}
	return names
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
