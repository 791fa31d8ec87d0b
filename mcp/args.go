package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
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

// checkValue checks one argument against its schema: its type, its enum,
// its range.
func checkValue(name string, p *jsonschema.Schema, v json.RawMessage) error {
	var x any
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	dec.Decode(&x)
	if !fits(p.Type, x) {
		return fmt.Errorf("argument %q must be %s, not %s", name, article(p.Type), v)
	}
	if p.Enum != nil && !slices.Contains(p.Enum, x) {
		return fmt.Errorf("argument %q must be one of %s, not %s", name, enumText(p.Enum), v)
	}
	if n, ok := x.(json.Number); ok {
		f, _ := n.Float64()
		if p.Minimum != nil && f < *p.Minimum || p.Maximum != nil && f > *p.Maximum {
			return fmt.Errorf("argument %q must be between %s, not %s", name, rangeText(p), v)
		}
	}
	if name == "env" {
		for k, val := range x.(map[string]any) {
			if _, ok := val.(string); !ok && val != nil {
				return fmt.Errorf("argument \"env\": the value of %q must be a string, or null to unset it", k)
			}
		}
	}
	return nil
}

func fits(typ string, x any) bool {
	switch typ {
	case "string":
		_, ok := x.(string)
		return ok
	case "boolean":
		_, ok := x.(bool)
		return ok
	case "integer":
		n, ok := x.(json.Number)
		_, err := n.Int64()
		return ok && err == nil
	case "object":
		_, ok := x.(map[string]any)
		return ok
	}
	return true
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

func rangeText(p *jsonschema.Schema) string {
	lo, hi := "0", "any size"
	if p.Minimum != nil {
		lo = fmt.Sprint(*p.Minimum)
	}
	if p.Maximum != nil {
		hi = fmt.Sprint(*p.Maximum)
	}
	return lo + " and " + hi
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
