//lint:file-ignore SA1019 PROTOCOL.md section 9 reports ended sessions as logging notifications, which MCP 2026-07-28 deprecates but keeps working.

package mcp

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/termhelper/termhelper/protocol"
	"github.com/termhelper/termhelper/session"
)

// events reports sessions that end without being polled: a logging
// notification for clients that listen, and a notice at the top of the
// next tool result (its text and its structured content) for the model.
type events struct {
	f *front

	mu       sync.Mutex
	pending  []endLine
	reported map[string]bool // sessions whose finished answer a result gave
}

func newEvents(f *front) *events {
	return &events{f: f, reported: map[string]bool{}}
}

type endLine struct{ id, text string }

// answered records a finished answer given in a result: its end needs no
// notice of its own, whether its event came before the answer or after.
// A session whose event has come, or that the engine no longer knows,
// has no event to come (one never handed over is forgotten at its
// finished answer, one handed over after its event and a linger), so it
// is not remembered; and the sessions remembered are dropped once their
// event comes or the engine forgets them: the record never outgrows the
// engine's own sessions.
func (e *events) answered(id string) {
	e.mu.Lock()
	ids := append(slices.Collect(maps.Keys(e.reported)), id)
	came := slices.ContainsFunc(e.pending, func(l endLine) bool { return l.id == id })
	e.pending = slices.DeleteFunc(e.pending, func(l endLine) bool { return l.id == id })
	e.mu.Unlock()
	gone := slices.DeleteFunc(ids, e.known)
	e.mu.Lock()
	defer e.mu.Unlock()
	if !came && !slices.Contains(gone, id) {
		e.reported[id] = true
	}
	for _, g := range gone {
		delete(e.reported, g)
	}
}

// known reports whether the engine still has the session.
func (e *events) known(id string) bool {
	eng := e.f.engine()
	if eng == nil {
		return false
	}
	_, err := eng.Command(id)
	return err == nil
}

// take returns the notices for sessions that ended since the last result,
// as the lines the text starts with and as a list.
func (e *events) take() (string, []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b strings.Builder
	var notices []string
	for _, l := range e.pending {
		b.WriteString(l.text + "\n")
		notices = append(notices, l.text)
	}
	e.pending = nil
	return b.String(), notices
}

func (e *events) Exited(id string, r session.Result) {
	line := fmt.Sprintf("[session %s %q %s after %s]", id, e.command(id), ended(r), session.FormatDuration(r.Duration))
	e.mu.Lock()
	if !e.reported[id] {
		e.pending = append(e.pending, endLine{id, line})
	}
	delete(e.reported, id) // its one event has come
	e.mu.Unlock()
	if ss := e.f.session(); ss != nil {
		// The session's log level decides whether it is sent.
		ss.Log(context.Background(), &sdk.LoggingMessageParams{Level: "info", Logger: "termhelper",
			Data: map[string]any{"event": "session/exited", "message": line, "session": protocol.ExitedEvent(id, r)}})
	}
}

func (e *events) Waiting(string, session.Prompt) {}

func (e *events) Output(string, string, string) {}

// command looks the session up alone: a list would read every live
// session's ports.
func (e *events) command(id string) string {
	if eng := e.f.engine(); eng != nil {
		c, _ := eng.Command(id)
		return c
	}
	return ""
}

// ended says how a session ended: "exited 1", "timed out", "was killed
// (SIGTERM)".
func ended(r session.Result) string {
	switch {
	case r.TimedOut:
		return "timed out"
	case r.KilledBy != "":
		return "was killed (" + r.KilledBy + ")"
	case r.Exit != nil && r.Exit.Signal != "":
		return fmt.Sprintf("ended by %s", r.Exit.Signal)
	case r.Exit != nil:
		return fmt.Sprintf("exited %d", r.Exit.Code)
	}
	return "ended"
}
