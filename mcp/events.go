package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/protocol"
	"github.com/termhelper/termhelper/rpc"
	"github.com/termhelper/termhelper/session"
	"github.com/termhelper/termhelper/wire"
)

// events reports sessions that end without being polled: a logging
// notification for clients that listen, and a line at the top of the next
// tool result for the model.
type events struct {
	eng  *engine.Engine
	peer rpc.Peer

	mu       sync.Mutex
	level    int // the client's logging level; 0: not set, send nothing
	pending  []endLine
	reported map[string]bool // sessions whose finished answer a result gave
}

func newEvents(eng *engine.Engine, p rpc.Peer) *events {
	return &events{eng: eng, peer: p, reported: map[string]bool{}}
}

// levels are MCP's logging levels (RFC 5424's), least severe first.
var levels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// setLevel is logging/setLevel: messages at this level and above are sent.
func (e *events) setLevel(_ context.Context, raw *json.RawMessage) (any, error) {
	var p struct {
		Level string `json:"level"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	i := slices.Index(levels, p.Level)
	if i < 0 {
		return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: fmt.Sprintf("invalid params: unknown level %q", p.Level)}
	}
	e.mu.Lock()
	e.level = i + 1
	e.mu.Unlock()
	return struct{}{}, nil
}

type endLine struct{ id, text string }

// answered records a finished answer given in a result: its end needs no
// line of its own, whether its event came before the answer or comes after.
func (e *events) answered(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.reported[id] = true
	kept := e.pending[:0]
	for _, l := range e.pending {
		if l.id != id {
			kept = append(kept, l)
		}
	}
	e.pending = kept
}

// take returns the lines for sessions that ended since the last result.
func (e *events) take() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.pending) == 0 {
		return ""
	}
	var b strings.Builder
	for _, l := range e.pending {
		b.WriteString(l.text + "\n")
	}
	e.pending = nil
	return b.String()
}

func (e *events) Exited(id string, r session.Result) {
	line := fmt.Sprintf("[session %s %q %s after %s]", id, e.command(id), ended(r), session.FormatDuration(r.Duration))
	e.mu.Lock()
	if !e.reported[id] {
		e.pending = append(e.pending, endLine{id, line})
	}
	listens := e.level > 0 && e.level <= 2 // "info" passes
	e.mu.Unlock()
	if listens {
		e.peer.Notify("notifications/message", map[string]any{"level": "info", "logger": "termhelper",
			"data": map[string]any{"event": "session/exited", "message": line, "session": protocol.ExitedEvent(id, r)}})
	}
}

func (e *events) Waiting(id string, p session.Prompt) {}

func (e *events) Output(id, stream, data string) {}

// command looks the session up alone: a list would read every live
// session's ports.
func (e *events) command(id string) string {
	c, _ := e.eng.Command(id)
	return c
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
