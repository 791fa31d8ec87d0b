//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// schemaDir holds the protocol's JSON Schemas (docs/protocol.md).
const schemaDir = "../docs/schema"

// schemas validates messages against docs/schema and remembers which
// files were used, so that a test can require every one of them.
type schemas struct {
	t        *testing.T
	resolved map[string]*jsonschema.Resolved

	mu   sync.Mutex
	used map[string]bool
}

func loadSchemas(t *testing.T) *schemas {
	t.Helper()
	dir, err := filepath.Abs(schemaDir)
	must(t, err)
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	must(t, err)
	s := &schemas{t: t, resolved: map[string]*jsonschema.Resolved{}, used: map[string]bool{}}
	for _, f := range files {
		sc, err := readSchema(f)
		must(t, err)
		rs, err := sc.Resolve(&jsonschema.ResolveOptions{BaseURI: "file://" + f, Loader: loadSchemaURI})
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(f), err)
		}
		s.resolved[strings.TrimSuffix(filepath.Base(f), ".json")] = rs
	}
	return s
}

func readSchema(path string) (*jsonschema.Schema, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var sc jsonschema.Schema
	if err := json.Unmarshal(data, &sc); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return &sc, nil
}

// loadSchemaURI reads a schema another one refers to (common.json).
func loadSchemaURI(u *url.URL) (*jsonschema.Schema, error) {
	return readSchema(u.Path)
}

// fileOf is the schema file of a method's params or result:
// "session/read" is session-read.params, "$/cancelRequest" cancelRequest.params.
func fileOf(method, part string) string {
	return strings.ReplaceAll(strings.TrimPrefix(method, "$/"), "/", "-") + "." + part
}

// check validates v (raw JSON or a value to marshal) against a schema.
func (s *schemas) check(name string, v any) {
	s.t.Helper()
	rs := s.resolved[name]
	if rs == nil {
		s.t.Errorf("no schema %s.json for %s", name, show(v))
		return
	}
	s.mu.Lock()
	s.used[name] = true
	s.mu.Unlock()
	var instance any
	must(s.t, json.Unmarshal(asJSON(s.t, v), &instance))
	if err := rs.Validate(instance); err != nil {
		s.t.Errorf("%s.json does not match %s:\n%v", name, show(v), err)
	}
}

func asJSON(t *testing.T, v any) []byte {
	if raw, ok := v.(json.RawMessage); ok {
		return raw
	}
	data, err := json.Marshal(v)
	must(t, err)
	return data
}

func show(v any) string {
	if raw, ok := v.(json.RawMessage); ok {
		return string(raw)
	}
	data, _ := json.Marshal(v)
	return string(data)
}

// checkedHost is a host whose every message, both ways, is checked
// against the schemas.
type checkedHost struct {
	*client
	s    *schemas
	seen *[]string // the notifications checked, in order
}

// call sends a request whose params and answer (result or error) must
// match the schemas; a null result needs no schema.
func (h checkedHost) call(method string, params any) (json.RawMessage, *rpcError) {
	h.t.Helper()
	if params != nil {
		h.s.check(fileOf(method, "params"), params)
	}
	raw, rerr := h.client.call(method, params)
	switch {
	case rerr != nil:
		h.s.check("error", rerr)
	case string(raw) != "null":
		h.s.check(fileOf(method, "result"), raw)
	}
	return raw, rerr
}

// ok is call for a request that must succeed.
func (h checkedHost) ok(method string, params any) result {
	h.t.Helper()
	raw, rerr := h.call(method, params)
	if rerr != nil {
		h.t.Fatalf("%s %s: error %d %s", method, show(params), rerr.Code, rerr.Message)
	}
	var r result
	must(h.t, json.Unmarshal(raw, &r))
	return r
}

// refused is call for a request that must fail with code.
func (h checkedHost) refused(code int, method string, params any) {
	h.t.Helper()
	if _, rerr := h.call(method, params); rerr == nil || rerr.Code != code {
		h.t.Errorf("%s %s: %+v, want error %d", method, show(params), rerr, code)
	}
}

// malformed sends a request the schemas reject on purpose; only its
// error is checked.
func (h checkedHost) malformed(code int, method string, params any) {
	h.t.Helper()
	_, rerr := h.client.call(method, params)
	if rerr == nil || rerr.Code != code {
		h.t.Errorf("%s %s: %+v, want error %d", method, show(params), rerr, code)
		return
	}
	h.s.check("error", rerr)
}

// note checks a notification, or a stray answer's error.
func (h checkedHost) note(m message) {
	h.t.Helper()
	if m.Method == "" {
		h.s.check("error", m.Error)
		return
	}
	*h.seen = append(*h.seen, m.Method)
	h.s.check(fileOf(m.Method, "params"), m.Params)
}

// until checks every message until one that is method (or, for "", a
// stray answer), and returns it.
func (h checkedHost) until(method string) message {
	h.t.Helper()
	for {
		m := h.nextNote()
		h.note(m)
		if m.Method == method {
			return m
		}
	}
}

// notes checks every notification and stray answer received so far.
func (h checkedHost) notes() []string {
	for {
		select {
		case m := <-h.client.notes:
			h.note(m)
		default:
			return *h.seen
		}
	}
}

// checkedHelper starts a helper whose host approves what the policy asks
// about, unless the command says "refuse-me", checking both directions of
// each question.
func checkedHelper(t *testing.T, s *schemas, root string, args ...string) checkedHost {
	h := checkedHost{start(t, "ndjson", root, args), s, new([]string)}
	h.onRequest = func(m message) any {
		s.check(fileOf(m.Method, "params"), m.Params)
		answer := map[string]string{"decision": "allow"}
		if strings.Contains(string(m.Params), "refuse-me") {
			answer["decision"] = "deny"
		}
		s.check(fileOf(m.Method, "result"), answer)
		return answer
	}
	h.ok("initialize", map[string]any{"clientInfo": map[string]string{"name": "schema-test", "version": "1"},
		"capabilities": map[string]bool{"approval": true, "outputStream": true}, "trusted": true})
	return h
}

// TestSchemasMatchRealAnswers drives the built helper through every
// method, notification and error of the native protocol and checks each
// real message against docs/schema; every schema file must be used.
func TestSchemasMatchRealAnswers(t *testing.T) {
	s := loadSchemas(t)
	root := t.TempDir()
	h := checkedHelper(t, s, root)
	schemaRuns(t, h)
	schemaSessions(t, h)
	schemaPolicyAndTrash(h)
	schemaErrors(t, h, root)
	schemaCancel(t, h)
	schemaLimits(t, s)
	h.ok("shutdown", nil)
	seen := h.notes()
	for _, n := range []string{"session/exited", "session/waiting", "session/output"} {
		if !slices.Contains(seen, n) {
			t.Errorf("no %s notification was seen to check (saw %v)", n, seen)
		}
	}
	for name := range s.resolved {
		if name != "common" && !s.used[name] {
			t.Errorf("%s.json was never checked against a real message", name)
		}
	}
}

// schemaRuns: the finished shape in each mode, cut output, a prompt.
func schemaRuns(t *testing.T, h checkedHost) {
	h.ok("exec/run", map[string]any{"command": "echo hi", "cwd": ".", "env": map[string]any{"A": "1", "HOME": nil}})
	h.ok("exec/run", map[string]any{"command": "cat; echo err >&2", "mode": "pipes", "stdin": "in\n", "timeoutMs": 30000})
	h.ok("exec/run", map[string]any{"command": "echo out; echo err >&2", "stderr": "separate", "cols": 100, "rows": 30})
	long := h.ok("exec/run", map[string]any{"command": "seq 1 30000"})
	if !long.Truncated || long.FullOutputPath == nil {
		t.Errorf("seq 1 30000 was not cut: %+v", long)
	}
	r := h.ok("exec/run", map[string]any{"command": "printf 'Name? '; read n; echo \"hi $n\"", "yieldMs": 20000})
	for r.ExitCode == nil && r.State != "waiting" {
		r = h.ok("session/read", map[string]any{"sessionId": r.SessionID, "yieldMs": 5000})
	}
	if r.ExitCode != nil || r.Prompt == nil {
		t.Fatalf("the prompt was not seen: %+v", r)
	}
	if r = h.ok("session/write", map[string]any{"sessionId": r.SessionID, "input": "bob\n", "secret": false, "yieldMs": 10000}); r.ExitCode == nil {
		h.ok("session/read", map[string]any{"sessionId": r.SessionID, "until": "exit"})
	}
	// A question nobody is waiting on comes as session/waiting.
	r = h.ok("exec/run", map[string]any{"command": "printf 'Again? '; read n", "background": true, "yieldMs": 0})
	h.until("session/waiting")
	h.ok("session/write", map[string]any{"sessionId": r.SessionID, "input": "\n"})
}

// schemaSessions: a background server, ready and listening, then the
// session methods on it.
func schemaSessions(t *testing.T, h checkedHost) {
	r := h.ok("exec/run", map[string]any{"command": "exec python3 -u -m http.server 0 --bind 127.0.0.1",
		"background": true, "readyPattern": "Serving HTTP", "yieldMs": 30000})
	if r.SessionID == "" || r.Ready == nil || !*r.Ready {
		t.Fatalf("the server did not answer ready: %+v", r)
	}
	id := r.SessionID
	waitFor(t, "the server's port in session/list", func() bool {
		raw, _ := h.call("session/list", nil)
		return strings.Contains(string(raw), `"ports":[`)
	})
	h.ok("session/read", map[string]any{"sessionId": id, "yieldMs": 0})
	h.ok("session/read", map[string]any{"sessionId": id, "until": "stable", "stableMs": 100})
	if _, rerr := h.call("session/screen", map[string]any{"sessionId": id}); rerr != nil {
		t.Fatalf("session/screen: %+v", rerr)
	}
	h.ok("session/resize", map[string]any{"sessionId": id, "cols": 90, "rows": 20})
	from := h.ok("session/read", map[string]any{"sessionId": id, "cursor": 0})
	h.ok("session/read", map[string]any{"sessionId": id, "cursor": from.Cursor, "yieldMs": 0})
	h.ok("session/kill", map[string]any{"sessionId": id, "signal": "SIGINT", "graceMs": 5000})
	h.ok("session/read", map[string]any{"sessionId": id, "cursor": 0})
	h.ok("session/list", nil)
	h.call("$/ping", nil)
}

func schemaPolicyAndTrash(h checkedHost) {
	h.ok("policy/check", map[string]any{"command": "rm -rf /"})
	h.ok("policy/check", map[string]any{"command": "ls", "cwd": "."})
	h.ok("policy/check", map[string]any{"command": "make", "sandbox": "off"})
	h.ok("exec/run", map[string]any{"command": "echo x > made", "sandbox": "read-only"})
	raw, _ := h.call("initialize", map[string]any{"capabilities": map[string]bool{"approval": true, "outputStream": true},
		"heartbeatMs": 600000})
	if strings.Contains(string(raw), `"network":"proxy"`) {
		// A host the proxy asks about, refused (the command names
		// refuse-me): the question, and a finished answer naming it.
		h.ok("exec/run", map[string]any{"command": "curl -sS https://refuse-me.invalid/"})
	}
	h.ok("exec/run", map[string]any{"command": "echo x > f && rm f"})
	raw, _ = h.call("trash/list", nil)
	var list struct{ Entries []struct{ ID string } }
	must(h.t, json.Unmarshal(raw, &list))
	if len(list.Entries) == 0 {
		h.t.Fatalf("trash/list is empty after rm: %s", raw)
	}
	h.ok("trash/restore", map[string]any{"id": list.Entries[0].ID})
}

// schemaErrors: each error code a host can meet on one helper.
func schemaErrors(t *testing.T, h checkedHost, root string) {
	h.malformed(-32601, "no/such", map[string]any{})
	h.malformed(-32602, "exec/run", map[string]any{"command": 5})
	h.malformed(-32602, "session/write", map[string]any{"sessionId": "1"})
	h.refused(-32001, "session/read", map[string]any{"sessionId": "999"})
	h.refused(-32002, "exec/run", map[string]any{"command": "ls", "cwd": filepath.Dir(root)})
	h.refused(-32003, "exec/run", map[string]any{"command": "sudo true"})
	h.refused(-32004, "exec/run", map[string]any{"command": "git push refuse-me"}) // asked with or without a sandbox
	h.sendRaw([]byte("{not json"))
	h.sendRaw([]byte(`[{"jsonrpc":"2.0","id":"b","method":"session/list"}]`))
	got := map[int]bool{}
	for !got[-32700] || !got[-32600] {
		if m := h.until(""); m.Error != nil {
			got[m.Error.Code] = true
		}
	}
}

// schemaLimits: a start that fails (-32005) and too many sessions
// (-32006), each on a helper of its own config.
func schemaLimits(t *testing.T, s *schemas) {
	root := t.TempDir()
	config := filepath.Join(t.TempDir(), "config.toml")
	must(t, os.WriteFile(config, []byte("shell = \"/no/such/shell\"\n"), 0o600))
	checkedHelper(t, s, root, "--config", config).refused(-32005, "exec/run", map[string]any{"command": "ls"})
	must(t, os.WriteFile(config, []byte("[limits]\nmax_sessions = 1\n"), 0o600))
	h := checkedHelper(t, s, root, "--config", config)
	h.ok("exec/run", map[string]any{"command": "sleep 600", "background": true, "yieldMs": 0})
	h.refused(-32006, "exec/run", map[string]any{"command": "sleep 601", "background": true, "yieldMs": 0})
	h.ok("shutdown", nil)
}

// schemaCancel: $/cancelRequest for a foreground run answers -32800.
func schemaCancel(t *testing.T, h checkedHost) {
	params := map[string]any{"command": "sleep 600", "timeoutMs": 600000}
	h.s.check("exec-run.params", params)
	ch := h.callAsync("exec/run", params)
	h.mu.Lock()
	id := h.next
	h.mu.Unlock()
	cancel := map[string]any{"id": id}
	h.s.check("cancelRequest.params", cancel)
	h.send(map[string]any{"jsonrpc": "2.0", "method": "$/cancelRequest", "params": cancel})
	_, rerr := h.await(ch, "a cancelled exec/run")
	if rerr == nil || rerr.Code != -32800 {
		t.Errorf("a cancelled exec/run answered %+v, want error -32800", rerr)
		return
	}
	h.s.check("error", rerr)
}
