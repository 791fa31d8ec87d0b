package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/protocol"
	"github.com/termhelper/termhelper/session"
	"github.com/termhelper/termhelper/wire"
)

type callParams struct {
	Name      string           `json:"name"`
	Arguments *json.RawMessage `json:"arguments"`
	Meta      struct {
		ProgressToken any `json:"progressToken"`
	} `json:"_meta"`
}

// toolResult is a tools/call answer.
type toolResult struct {
	Content           []textContent `json:"content"`
	StructuredContent any           `json:"structuredContent,omitempty"`
	IsError           bool          `json:"isError,omitempty"`
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// toolsCall is the terminal tool: one engine call per shape, answered with
// the text a model reads and the native answer as structured content. A
// refused call is a result with isError, not a protocol error.
func (f *front) toolsCall(ctx context.Context, raw *json.RawMessage) (any, error) {
	var p callParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if p.Name != "terminal" {
		return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q: the one tool is terminal", p.Name)}
	}
	a, err := arguments(p.Arguments)
	if err != nil {
		return f.result(nil, "", err), nil
	}
	defer f.progress(ctx, p.Meta.ProgressToken)()
	ans, text, err := f.dispatch(f.withApprover(ctx), a)
	return f.result(ans, text, err), nil
}

// arguments decodes a call's arguments, naming an unknown or mistyped one.
func arguments(raw *json.RawMessage) (Args, error) {
	var a Args
	if raw == nil {
		return a, errUsage
	}
	dec := json.NewDecoder(bytes.NewReader(*raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return a, fmt.Errorf("argument %q must be a %s", te.Field, te.Type)
		}
		return a, fmt.Errorf("bad arguments: %v", err)
	}
	return a, nil
}

func (f *front) result(ans any, text string, err error) toolResult {
	lead := f.events.take()
	if err != nil {
		return toolResult{Content: []textContent{{"text", lead + refusal(err)}}, IsError: true}
	}
	return toolResult{Content: []textContent{{"text", lead + text}}, StructuredContent: ans}
}

// withApprover asks through elicitation on clients that have it; on
// others the client's own tool-call confirmation stands for approval.
func (f *front) withApprover(ctx context.Context) context.Context {
	f.mu.Lock()
	elicit := f.elicit
	f.mu.Unlock()
	if !elicit {
		return ctx
	}
	return engine.WithApprover(ctx, elicitor{f.peer})
}

// errUsage is a call whose arguments fit no shape.
var errUsage = errors.New(`give "command" to run, "session_id" with one of input, until, screen or kill, or "list": true`)

func (f *front) dispatch(ctx context.Context, a Args) (any, string, error) {
	switch {
	case a.List:
		rows := protocol.Rows(f.eng.List())
		return protocol.List{Sessions: rows}, listText(rows), nil
	case a.Command != "" && a.SessionID != "":
		return nil, "", errors.New(`give "command" or "session_id", not both`)
	case a.Command != "":
		return f.answer(f.eng.Run(ctx, runParams(a)))
	case a.SessionID == "":
		return nil, "", errUsage
	case a.Screen:
		sc, err := f.eng.Screen(a.SessionID)
		if err != nil {
			return nil, "", err
		}
		return protocol.ScreenOf(sc), screenText(a.SessionID, sc), nil
	case a.Kill:
		return f.answer(f.eng.Kill(ctx, engine.KillParams{SessionID: a.SessionID, Signal: a.Signal}))
	case a.Input != nil && *a.Input != "":
		return f.answer(f.eng.Write(ctx, engine.WriteParams{SessionID: a.SessionID, Input: *a.Input,
			Secret: a.Secret, YieldMs: a.YieldMs}))
	}
	return f.answer(f.eng.Read(ctx, engine.ReadParams{SessionID: a.SessionID, YieldMs: a.YieldMs,
		Until: a.Until, StableMs: a.StableMs}))
}

func runParams(a Args) engine.RunParams {
	return engine.RunParams{Command: a.Command, Cwd: a.Cwd, Env: a.Env, Mode: a.Mode,
		Background: a.Background, TimeoutMs: a.TimeoutMs, YieldMs: a.YieldMs,
		ReadyPattern: a.ReadyPattern, ReadyPort: a.ReadyPort}
}

// answer is a result as structured content and as text: the cleaned
// output, then one status line.
func (f *front) answer(r session.Result, err error) (any, string, error) {
	if err != nil {
		return nil, "", err
	}
	if r.Exit != nil && r.ID != "" {
		f.events.answered(r.ID)
	}
	text := r.Output
	if r.Stderr != nil && *r.Stderr != "" {
		text = joinLines(text, "[stderr]\n"+*r.Stderr)
	}
	return protocol.Answer(r), joinLines(text, status(r)), nil
}

func joinLines(a, b string) string {
	if a == "" {
		return b
	}
	if !strings.HasSuffix(a, "\n") {
		a += "\n"
	}
	return a + b
}

// status is the one line that says where the command stands.
func status(r session.Result) string {
	if r.Exit != nil {
		line := session.Summary(r)
		if r.FullOutputPath != "" {
			line += " · output cut, full text in " + r.FullOutputPath
		}
		return line
	}
	switch r.State {
	case session.Waiting:
		return waitingLine(r)
	case session.Background:
		return fmt.Sprintf("session %s running in the background", r.ID) + serverNews(r)
	}
	return fmt.Sprintf("session %s still running (poll with input \"\", wait with until \"exit\", or kill)", r.ID)
}

// serverNews is ", ready, ports 5173" for a server: whether its ready
// line or port was seen, and where it listens.
func serverNews(r session.Result) string {
	var b strings.Builder
	switch {
	case r.Ready == nil:
	case *r.Ready:
		b.WriteString(", ready")
	default:
		b.WriteString(", not ready yet")
	}
	for i, p := range r.Ports {
		if i == 0 {
			b.WriteString(", ports ")
		} else {
			b.WriteString(" ")
		}
		fmt.Fprint(&b, p)
	}
	return b.String()
}

// screenText shows a screen row by row, with where the cursor is.
func screenText(id string, sc engine.Screen) string {
	var b strings.Builder
	for _, l := range sc.Lines {
		b.WriteString(l + "\n")
	}
	kind := "screen"
	if sc.AltScreen {
		kind = "full-screen program"
	}
	fmt.Fprintf(&b, "session %s %s, %dx%d, cursor at row %d, column %d", id, kind, sc.Cols, sc.Rows, sc.Cursor.Row, sc.Cursor.Col)
	return b.String()
}

func waitingLine(r session.Result) string {
	line := fmt.Sprintf("session %s waiting for input", r.ID)
	if r.Prompt == nil {
		return line
	}
	line += fmt.Sprintf(": %q", strings.TrimSpace(r.Prompt.Text))
	if r.Prompt.Secret {
		line += " (secret: ask the user)"
	}
	return line
}

func listText(rows []protocol.Row) string {
	if len(rows) == 0 {
		return "no sessions"
	}
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "session %s · %s · pid %d · %q", r.SessionID, r.State, r.Pid, r.Command)
		if r.ExitCode != nil {
			fmt.Fprintf(&b, " · exit %d", *r.ExitCode)
		}
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// refusal is the text of a call that did not do what it asked: why, and
// the policy's reasons where there are some.
func refusal(err error) string {
	var re *engine.RefusedError
	var pe *engine.ParamError
	switch {
	case errors.As(err, &pe):
		return "error: " + argumentText(pe)
	case !errors.As(err, &re):
		return "error: " + err.Error()
	}
	text := "refused: " + re.Msg
	for _, r := range re.Reasons {
		text += "\n- " + r
	}
	return text
}

// argNames are the tool's argument names of the engine's fields.
var argNames = func() map[string]string {
	names := map[string]string{}
	for _, f := range reflect.VisibleFields(reflect.TypeOf(Args{})) {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" {
			names[f.Name] = name
		}
	}
	return names
}()

// argName is a field as the tool names it; a field the tool does not
// have keeps its Go name.
func argName(f engine.Field) string {
	if n, ok := argNames[string(f)]; ok {
		return n
	}
	return string(f)
}

// argumentText is a bad value in the tool's own words: its argument names.
func argumentText(pe *engine.ParamError) string {
	text := pe.Render(argName)
	for _, noun := range []string{"fields ", "field "} {
		if rest, ok := strings.CutPrefix(text, noun); ok {
			return "argument" + strings.TrimPrefix(noun, "field") + rest
		}
	}
	return text
}
