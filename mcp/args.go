package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// checkCall refuses a terminal call whose arguments are wrong before the
// SDK reads them, in the tool's own words: the argument's name and what
// it must be, never a decoder's or a validator's text. It also refuses a
// call that mixes two call shapes, naming both, and drops null arguments
// (a model's way of leaving one out).
func (f *front) checkCall(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		p, ok := req.GetParams().(*sdk.CallToolParamsRaw)
		if method != "tools/call" || !ok || p.Name != "terminal" {
			return next(ctx, method, req)
		}
		args, err := checkArguments(p.Arguments)
		if err == nil {
			err = oneShape(args)
		}
		if err != nil {
			return f.refused(err), nil
		}
		p.Arguments, _ = json.Marshal(args)
		return next(ctx, method, req)
	}
}

// errCursorWrite is a cursor given with input to type: a cursor reads.
var errCursorWrite = fmt.Errorf(`argument "cursor" goes with a read (input "" or until), not with input to type`)

// errUsage is a call whose arguments fit no shape.
var errUsage = fmt.Errorf(`give "command" to run, "session_id" with one of input, until, screen or kill, or "list": true`)

// argSchema is the derived schema the checks read, derived at the first
// check: at package initialisation every process the binary starts would
// pay for it, the sandbox's trampoline before each command included.
var argSchema = sync.OnceValue(inputSchema)

// checkArguments reads the arguments, naming an unknown or mistyped one.
func checkArguments(raw json.RawMessage) (map[string]json.RawMessage, error) {
	args := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		return args, errUsage
	}
	if json.Unmarshal(raw, &args) != nil {
		return args, fmt.Errorf("the arguments must be an object")
	}
	for name, v := range args {
		if string(v) == "null" {
			delete(args, name)
			continue
		}
		p, ok := argSchema().Properties[name]
		if !ok {
			return args, fmt.Errorf("unknown argument %q: the arguments are %s", name, strings.Join(argNamesSorted(), ", "))
		}
		if err := checkValue(name, p, v); err != nil {
			return args, err
		}
	}
	return args, nil
}

func argNamesSorted() []string {
	names := make([]string, 0, len(argSchema().Properties))
	for n := range argSchema().Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// argSchemas are the derived schema's properties, resolved: each argument
// is validated against its own, so that a refusal names it.
var argSchemas = sync.OnceValue(func() map[string]*jsonschema.Resolved {
	out := map[string]*jsonschema.Resolved{}
	for name, p := range argSchema().Properties {
		r, err := p.Resolve(nil)
		if err != nil {
			panic("mcp: the terminal tool's argument " + name + ": " + err.Error())
		}
		out[name] = r
	}
	return out
})

// checkValue validates one argument against the derived schema and, when
// it does not fit, says in words what the argument takes.
func checkValue(name string, p *jsonschema.Schema, v json.RawMessage) error {
	var x any
	json.Unmarshal(v, &x)
	if argSchemas()[name].Validate(x) == nil {
		return nil
	}
	if m, ok := x.(map[string]any); ok && name == "env" {
		for k, val := range m {
			if _, ok := val.(string); !ok && val != nil {
				return fmt.Errorf("argument \"env\": the value of %q must be a string, or null to unset it", k)
			}
		}
	}
	return fmt.Errorf("argument %q must be %s, not %s", name, expected(p), v)
}

// expected is what a property's schema takes, in words: "one of "pty",
// "pipes"", "a whole number between 0 and 86400000".
func expected(p *jsonschema.Schema) string {
	if p.Enum != nil {
		return "one of " + enumText(p.Enum)
	}
	text := article(p.Type)
	if p.Minimum != nil || p.Maximum != nil {
		text += " " + rangeText(p)
	}
	return text
}

func article(typ string) string {
	switch typ {
	case "integer":
		return "a whole number"
	case "object":
		return "an object"
	}
	return "a " + typ
}

func enumText(enum []any) string {
	var parts []string
	for _, e := range enum {
		parts = append(parts, fmt.Sprintf("%q", e))
	}
	return strings.Join(parts, ", ")
}

// rangeText is a schema's range in words: "between 0 and 86400000", or
// "at least 1" where it has no maximum.
func rangeText(p *jsonschema.Schema) string {
	lo := 0.0
	if p.Minimum != nil {
		lo = *p.Minimum
	}
	if p.Maximum == nil {
		return "at least " + strconv.FormatFloat(lo, 'f', -1, 64)
	}
	return "between " + strconv.FormatFloat(lo, 'f', -1, 64) + " and " + strconv.FormatFloat(*p.Maximum, 'f', -1, 64)
}

// The call shapes: what names a shape, and what goes with it.
var (
	mains   = []string{"command", "list", "session_id"}
	actions = []string{"input", "until", "kill", "screen"}
	// belongs says which shape an argument goes with.
	belongs = map[string][]string{
		"cwd": {"command"}, "env": {"command"}, "background": {"command"}, "timeout_ms": {"command"},
		"mode": {"command"}, "ready_pattern": {"command"}, "ready_port": {"command"},
		"yield_ms": {"command", "input", "until", "session_id"}, "secret": {"input"}, "stable_ms": {"until"},
		"signal": {"kill"}, "cursor": {"session_id", "input", "until"},
	}
)

// oneShape refuses arguments that mix two call shapes ({command, list:
// true}, {session_id, kill: true, input}), or that go with a shape the
// call is not: one call does one thing, never a silent choice.
func oneShape(args map[string]json.RawMessage) error {
	given := func(name string) bool {
		v, ok := args[name]
		return ok && (name == "input" || string(v) != "false" && string(v) != `""`)
	}
	main := present(mains, given)
	if len(main) == 0 {
		return errUsage
	}
	if len(main) > 1 {
		return twoShapes(main)
	}
	shape := main[0]
	if shape == "session_id" {
		acts := present(actions, given)
		if len(acts) > 1 {
			return twoShapes(acts)
		}
		if len(acts) == 1 {
			shape = acts[0]
		}
	} else if acts := present(actions, given); len(acts) > 0 {
		return twoShapes([]string{shape, acts[0]})
	}
	for name := range args {
		owners, ok := belongs[name]
		if ok && given(name) && !slices.Contains(owners, shape) {
			return fmt.Errorf("argument %q goes with %s, not with %q", name, quoteAll(owners), shape)
		}
	}
	return nil
}

func present(names []string, given func(string) bool) []string {
	var out []string
	for _, n := range names {
		if given(n) {
			out = append(out, n)
		}
	}
	return out
}

func twoShapes(names []string) error {
	return fmt.Errorf("arguments %s are different call shapes: give one per call", quoteAll(names))
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}
