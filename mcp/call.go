package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/session"
)

// call is the terminal tool: one engine call per shape, answered with the
// text a model reads and the native answer as structured content. A
// refused call is a result with isError, not a protocol error; a call the
// client cancelled gets no answer (the transport drops it).
func (f *front) call(ctx context.Context, req *sdk.CallToolRequest, a Args) (*sdk.CallToolResult, *Result, error) {
	eng, asked, err := f.engineFor(ctx, req)
	if asked != nil {
		return asked, nil, nil
	}
	if err != nil {
		res, out := f.refusedWith(err)
		return res, out, nil
	}
	ask := f.asker(req)
	if ask != nil {
		ctx = engine.WithApprover(ctx, ask)
	}
	c := &callState{f: f, eng: eng, req: req}
	defer c.progress(ctx)()
	out, text, err := c.dispatch(ctx, a)
	switch {
	case errors.Is(err, engine.ErrCancelled):
		return nil, nil, err
	case errors.Is(err, errAsk):
		return ask.question(), nil, nil
	case err != nil:
		res, out := f.refusedWith(err)
		return res, out, nil
	}
	lead, notices := f.events.take()
	if first := f.firstNotice(eng); first != "" {
		lead, notices = first+"\n"+lead, append([]string{first}, notices...)
	}
	out.Notices = notices
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: lead + text}}}, out, nil
}

// firstNotice is, for the first result only, how commands are confined
// where that falls short of what was asked (a missing mechanism, a
// project config's ignored keys), so the model knows it before it relies
// on it; "" otherwise.
func (f *front) firstNotice(eng *engine.Engine) string {
	var line string
	f.toldOnce.Do(func() {
		var parts []string
		if why := eng.SandboxShortfall(); why != "" {
			st := eng.Sandbox()
			parts = append(parts, fmt.Sprintf("sandbox %s (%s, network %s): %s", st.Mode, st.Backend, st.Network, why))
		}
		parts = append(parts, eng.Warnings()...)
		if len(parts) > 0 {
			line = "[" + strings.Join(parts, " · ") + "]"
		}
	})
	return line
}

// refused is the result of a call that did not do what it asked, its
// structured content set: for a call refused before the tool's handler.
func (f *front) refused(err error) *sdk.CallToolResult {
	res, out := f.refusedWith(err)
	res.StructuredContent = out
	return res
}

// refusedWith is the result of a call that did not do what it asked, and
// its structured content: the same words, and the notices.
func (f *front) refusedWith(err error) (*sdk.CallToolResult, *Result) {
	lead, notices := f.events.take()
	text := refusal(err)
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: lead + text}}},
		&Result{Error: text, Notices: notices}
}

// callState is one call in progress.
type callState struct {
	f   *front
	eng *engine.Engine
	req *sdk.CallToolRequest

	mu      sync.Mutex
	session string // the session the call waits on, once known
}

func (c *callState) dispatch(ctx context.Context, a Args) (*Result, string, error) {
	switch {
	case a.List:
		out := listOf(c.eng.List())
		return out, listText(out.Sessions), nil
	case a.Command != "":
		p := runParams(a)
		p.YieldMs = c.f.yieldFor(a.YieldMs, !a.Background)
		p.Started = c.watch
		return c.answer(c.eng.Run(ctx, p))
	case a.Screen:
		sc, err := c.eng.Screen(a.SessionID)
		if err != nil {
			return nil, "", err
		}
		sc.Lines = trimBlankRows(sc.Lines)
		return terminalOf(sc), screenText(a.SessionID, sc), nil
	case a.Kill:
		return c.answer(c.eng.Kill(ctx, engine.KillParams{SessionID: a.SessionID, Signal: a.Signal}))
	}
	c.watch(a.SessionID)
	if a.Input != nil && *a.Input != "" {
		if a.Cursor != nil {
			return nil, "", errCursorWrite
		}
		return c.answer(c.eng.Write(ctx, engine.WriteParams{SessionID: a.SessionID, Input: *a.Input,
			Secret: a.Secret, YieldMs: c.f.yieldFor(a.YieldMs, false)}))
	}
	p := engine.ReadParams{SessionID: a.SessionID, YieldMs: a.YieldMs, Until: a.Until, StableMs: a.StableMs,
		Cursor: a.Cursor}
	if a.Until != "" {
		p.YieldMs = c.f.yieldFor(a.YieldMs, true)
	}
	return c.answer(c.eng.Read(ctx, p))
}

// yieldFor caps a call's wait at the front's yield, so that a host's tool
// timeout never outruns the answer; waits is whether the call would wait
// without limit when the client sets none.
func (f *front) yieldFor(asked *int64, waits bool) *int64 {
	limit := f.opts.Yield.Milliseconds()
	switch {
	case asked != nil && *asked <= limit:
		return asked
	case asked != nil || waits:
		return &limit
	}
	return nil
}

func runParams(a Args) engine.RunParams {
	return engine.RunParams{Command: a.Command, Cwd: a.Cwd, Env: a.Env, Mode: a.Mode,
		Background: a.Background, TimeoutMs: a.TimeoutMs, YieldMs: a.YieldMs,
		ReadyPattern: a.ReadyPattern, ReadyPort: a.ReadyPort, Sandbox: a.Sandbox}
}

// answer is a result as structured content and as text: the cleaned
// output, then one status line.
func (c *callState) answer(r session.Result, err error) (*Result, string, error) {
	if err != nil {
		return nil, "", err
	}
	if r.Exit != nil && r.ID != "" {
		c.f.events.answered(r.ID)
	}
	text := r.Output
	if r.Stderr != nil && *r.Stderr != "" {
		text = joinLines(text, "[stderr]\n"+*r.Stderr)
	}
	text = joinLines(skippedLine(r)+text, status(r)+moreNote(r))
	if line := deniedLine(r.Denied); line != "" {
		text = joinLines(text, line)
	}
	return resultOf(r), text, nil
}

// trimBlankRows drops the empty rows at the bottom of a screen: a model
// reads what is drawn, not the terminal's height.
func trimBlankRows(lines []string) []string {
	n := len(lines)
	for n > 0 && strings.TrimSpace(lines[n-1]) == "" {
		n--
	}
	return lines[:n]
}

// progressEvery paces progress notifications during a long call.
const progressEvery = 5 * time.Second
