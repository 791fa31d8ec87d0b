// Package mcp is termhelper's Model Context Protocol front end: one tool,
// terminal, over the same engine and the same JSON-RPC connection as the
// native protocol. It turns tool arguments into engine calls and engine
// answers into what a model reads (the cleaned output and one status
// line) plus the native answer as structured content; it asks the person
// through elicitation where the client can, and reports sessions that end
// without being polled.
package mcp

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/rpc"
	"github.com/termhelper/termhelper/wire"
)

// versions are the MCP revisions served, newest first. A client asking
// for another gets the newest, as the specification says.
var versions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// front is one MCP connection over one engine.
type front struct {
	eng     *engine.Engine
	peer    rpc.Peer
	version string
	events  *events

	mu     sync.Mutex
	elicit bool // the client can be asked through elicitation/create
}

// Front serves MCP over the engine; version is termhelper's own.
func Front(eng *engine.Engine, version string) rpc.Front {
	return func(p rpc.Peer) (map[string]rpc.Method, engine.Sink) {
		f := &front{eng: eng, peer: p, version: version, events: newEvents(eng, p)}
		eng.SetHost(engine.Host{Trusted: true})
		return map[string]rpc.Method{
			"initialize":                f.initialize,
			"notifications/initialized": ignore,
			"ping":                      f.ping,
			"tools/list":                f.toolsList,
			"tools/call":                f.toolsCall,
			"logging/setLevel":          f.events.setLevel,
			"notifications/cancelled":   f.cancelled,
		}, f.events
	}
}

func ignore(context.Context, *json.RawMessage) (any, error) { return nil, nil }

func (f *front) ping(context.Context, *json.RawMessage) (any, error) { return struct{}{}, nil }

type initializeParams struct {
	ProtocolVersion string `json:"protocolVersion"`
	Capabilities    struct {
		Elicitation *json.RawMessage `json:"elicitation"`
	} `json:"capabilities"`
	ClientInfo *struct{ Name, Version string } `json:"clientInfo"`
}

func (f *front) initialize(_ context.Context, raw *json.RawMessage) (any, error) {
	var p initializeParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.elicit = p.Capabilities.Elicitation != nil
	f.mu.Unlock()
	version := versions[0]
	if slices.Contains(versions, p.ProtocolVersion) {
		version = p.ProtocolVersion
	}
	return map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{"tools": map[string]any{}, "logging": map[string]any{}},
		"serverInfo":      map[string]string{"name": "termhelper", "version": f.version},
		"instructions":    "termhelper runs shell commands in a real terminal inside the project: use the terminal tool.",
	}, nil
}

func (f *front) toolsList(context.Context, *json.RawMessage) (any, error) {
	return map[string]any{"tools": []any{terminalTool}}, nil
}

func (f *front) cancelled(_ context.Context, raw *json.RawMessage) (any, error) {
	var p struct {
		RequestID *wire.ID `json:"requestId"`
	}
	if err := decode(raw, &p); err == nil && p.RequestID != nil {
		f.peer.Cancel(*p.RequestID)
	}
	return nil, nil
}

// decode reads params into v; a protocol error names what is wrong.
func decode(raw *json.RawMessage, v any) error {
	if raw == nil {
		return nil
	}
	if err := json.Unmarshal(*raw, v); err != nil {
		return &wire.Error{Code: wire.CodeInvalidParams, Message: "invalid params: " + err.Error()}
	}
	return nil
}
