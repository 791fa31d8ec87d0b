//go:build linux

//lint:file-ignore SA1019 PROTOCOL.md section 9 reports ended sessions as logging notifications, which MCP 2026-07-28 deprecates but keeps working.

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mcpHost is a real MCP client (the official Go SDK) connected to the
// built helper over its stdin and stdout.
type mcpHost struct {
	t    *testing.T
	cmd  *exec.Cmd // the process the client spawned
	cs   *sdk.ClientSession
	root string
	logs chan *sdk.LoggingMessageParams
}

type mcpOpts struct {
	elicit  func(*sdk.ElicitRequest) (*sdk.ElicitResult, error) // nil: no elicitation capability
	version string                                              // the protocol revision asked; "": the SDK's newest
	// dir, when set, is where the helper starts, without --root; roots
	// are the client's roots (file URIs).
	dir    string
	roots  []string
	config string // the user's config.toml
	// progress receives the progress notifications.
	progress chan *sdk.ProgressNotificationParams
	root     string   // the project root; "": a new one
	args     []string // more flags
	env      []string // more environment
}

func startMCP(t *testing.T, o mcpOpts) *mcpHost {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	if o.root != "" {
		root = o.root
	}
	h := &mcpHost{t: t, root: root, logs: make(chan *sdk.LoggingMessageParams, 100)}
	copts := &sdk.ClientOptions{LoggingMessageHandler: func(_ context.Context, r *sdk.LoggingMessageRequest) {
		h.logs <- r.Params
	}}
	if o.progress != nil {
		copts.ProgressNotificationHandler = func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			o.progress <- r.Params
		}
	}
	if o.elicit != nil {
		copts.ElicitationHandler = func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return o.elicit(r)
		}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, copts)
	for _, r := range o.roots {
		client.AddRoots(&sdk.Root{URI: r})
	}
	cmd := exec.Command(binary, append([]string{"--mcp", "--root", root}, o.args...)...)
	if o.dir != "" {
		cmd = exec.Command(binary, "--mcp")
		cmd.Dir = o.dir
	}
	cfgDir := filepath.Join(root, ".cfg")
	if o.config != "" {
		require.NoError(t, os.MkdirAll(cfgDir, 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(o.config), 0o600))
	}
	cmd.Env = append(append(os.Environ(), "TERMHELPER_CONFIG_DIR="+cfgDir, "SHELL="), o.env...)
	h.cmd = cmd
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: o.version})
	require.NoError(t, err)
	h.cs = cs
	t.Cleanup(func() { cs.Close() })
	return h
}

// call calls the terminal tool and returns its result.
func (h *mcpHost) call(args map[string]any) *sdk.CallToolResult {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	res, err := h.cs.CallTool(ctx, &sdk.CallToolParams{Name: "terminal", Arguments: args})
	require.NoError(h.t, err)
	return res
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// toolResult is the terminal tool's structured content, in its own
// snake case.
type toolResult struct {
	ExitCode  *int            `json:"exit_code"`
	TimedOut  bool            `json:"timed_out"`
	TimeoutMs int64           `json:"timeout_ms"`
	Output    string          `json:"output"`
	SessionID string          `json:"session_id"`
	State     string          `json:"state"`
	Ready     *bool           `json:"ready"`
	Ports     []int           `json:"ports"`
	EndsInMs  int64           `json:"ends_in_ms"`
	CapRenews bool            `json:"cap_renews"`
	Sandbox   json.RawMessage `json:"sandbox"`
	Error     string          `json:"error"`
	Notices   []string        `json:"notices"`
}

func (r toolResult) denied() []string { return result{Sandbox: r.Sandbox}.denied() }

// structured decodes a result's structured content.
func structured(t *testing.T, res *sdk.CallToolResult) toolResult {
	t.Helper()
	data, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var r toolResult
	require.NoError(t, json.Unmarshal(data, &r), "%s", data)
	return r
}

func TestMCPToolsList(t *testing.T) {
	t.Parallel()
	h := startMCP(t, mcpOpts{})
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	tools, err := h.cs.ListTools(ctx, nil)
	require.NoError(t, err)
	require.Len(t, tools.Tools, 1)
	tool := tools.Tools[0]
	assert.Equal(t, "terminal", tool.Name)
	assert.Contains(t, tool.Description, "secret: ask the user")
	data, _ := json.Marshal(tool.InputSchema)
	var schema struct {
		Type       string
		Properties map[string]struct {
			Type        any
			Enum        []string
			Description string
		}
	}
	require.NoError(t, json.Unmarshal(data, &schema))
	assert.Equal(t, "object", schema.Type)
	for _, p := range []string{"command", "cwd", "env", "background", "timeout_ms", "yield_ms", "mode",
		"ready_pattern", "ready_port", "session_id", "input", "secret", "until", "kill", "screen", "list"} {
		require.Contains(t, schema.Properties, p)
		assert.NotEmpty(t, schema.Properties[p].Description, p)
	}
	assert.Equal(t, []string{"exit", "stable"}, schema.Properties["until"].Enum)
	assert.Equal(t, []string{"pty", "pipes"}, schema.Properties["mode"].Enum)
	assert.NotNil(t, tool.OutputSchema)
	// Hosts that convert schemas for Gemini models reject a "type" that is
	// an array.
	for _, s := range []any{tool.InputSchema, tool.OutputSchema} {
		data, err := json.Marshal(s)
		require.NoError(t, err)
		assert.NotRegexp(t, `"type":\[`, string(data))
	}
}

func TestMCPColourAndExitCode(t *testing.T) {
	t.Parallel()
	h := startMCP(t, mcpOpts{})
	res := h.call(map[string]any{"command": `printf '\033[1;31mred\033[0m\n'; exit 3`})
	assert.False(t, res.IsError, "a failed command is a normal result")
	assert.Equal(t, "red\n", strings.SplitAfter(text(res), "\n")[0])
	assert.Regexp(t, `\nexit 3 · \d+ms$`, text(res))
	r := structured(t, res)
	require.NotNil(t, r.ExitCode)
	assert.Equal(t, 3, *r.ExitCode)
	assert.Equal(t, "red\n", r.Output)
}

func TestMCPPromptAnswered(t *testing.T) {
	t.Parallel()
	h := startMCP(t, mcpOpts{})
	res := h.call(map[string]any{"command": `read -p "Name? " n; echo "hi $n"`})
	r := structured(t, res)
	require.Equal(t, "waiting", r.State, text(res))
	assert.Contains(t, text(res), fmt.Sprintf(`session %s waiting for input: "Name?"`, r.SessionID))
	res = h.call(map[string]any{"session_id": r.SessionID, "input": "Ada\n"})
	assert.Contains(t, text(res), "hi Ada")
	require.NotNil(t, structured(t, res).ExitCode, text(res))
}

func TestMCPSecretPrompt(t *testing.T) {
	t.Parallel()
	h := startMCP(t, mcpOpts{})
	res := h.call(map[string]any{"command": `stty -echo; printf "Password: "; read p; stty echo; echo; echo "got $p"`})
	r := structured(t, res)
	require.Equal(t, "waiting", r.State, text(res))
	assert.Contains(t, text(res), "(secret: ask the user)")
	res = h.call(map[string]any{"session_id": r.SessionID, "input": "hunter22\n", "secret": true})
	assert.Contains(t, text(res), "got ********")
	assert.NotContains(t, text(res), "hunter22")
}

func TestMCPBackgroundPolledListedKilled(t *testing.T) {
	t.Parallel()
	h := startMCP(t, mcpOpts{})
	m := marker()
	res := h.call(map[string]any{"command": fmt.Sprintf("while true; do echo tick; sleep 0.1; done & sleep %s", m),
		"background": true, "yield_ms": 300})
	r := structured(t, res)
	require.Equal(t, "background", r.State, text(res))
	id := r.SessionID
	assert.Contains(t, text(res), "session "+id+" running in the background")
	res = h.call(map[string]any{"session_id": id, "input": "", "yield_ms": 30000})
	assert.Contains(t, text(res), "tick")
	res = h.call(map[string]any{"list": true})
	assert.Contains(t, text(res), "session "+id+" · background")
	res = h.call(map[string]any{"session_id": id, "kill": true})
	assert.Contains(t, text(res), "killed (SIGTERM)")
	noneLeft(t, m)
}

func TestMCPRefusedIsAnErrorResult(t *testing.T) {
	t.Parallel()
	h := startMCP(t, mcpOpts{})
	res := h.call(map[string]any{"command": "sudo rm -rf /tmp/x"})
	assert.True(t, res.IsError)
	assert.Contains(t, text(res), "refused: blocked by policy")
	assert.Contains(t, text(res), "sudo")
	res = h.call(map[string]any{"session_id": "99", "input": ""})
	assert.True(t, res.IsError)
	assert.Contains(t, text(res), "no such session")
}

// TestMCPApproval: the person is asked through the client in both forms:
// elicitation/create before 2026-07-28, a multi round-trip request from
// it on. A decline and a dismissal are told apart; an accept runs.
func TestMCPApproval(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var asked []string
			action := "decline"
			// The question for a line the policy asks about: with a sandbox
			// in force, touch runs confined without one.
			h := startMCP(t, mcpOpts{version: version, config: "sandbox = \"off\"\n", elicit: func(r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, r.Params.Message)
				if action == "accept" {
					return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"always": false}}, nil
				}
				return &sdk.ElicitResult{Action: action}, nil
			}})
			require.Equal(t, version, h.cs.InitializeResult().ProtocolVersion)
			for _, c := range []struct{ action, file, says string }{
				{"decline", "declined", "user declined"},
				{"cancel", "dismissed", "the host dismissed the approval question"},
				{"accept", "accepted", ""},
			} {
				mu.Lock()
				action = c.action
				mu.Unlock()
				res := h.call(map[string]any{"command": "touch " + c.file})
				if c.says == "" {
					assert.False(t, res.IsError, text(res))
					assert.FileExists(t, filepath.Join(h.root, c.file))
					continue
				}
				assert.True(t, res.IsError, c.action)
				assert.Contains(t, text(res), c.says)
				if c.action == "cancel" {
					assert.NotContains(t, text(res), "user declined", "a dismissal is no person's refusal")
				}
				assert.NoFileExists(t, filepath.Join(h.root, c.file))
			}
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, asked, 3)
			assert.Contains(t, asked[2], "touch accepted")
		})
	}
}

func TestMCPEndReportedWithoutPolling(t *testing.T) {
	t.Parallel()
	h := startMCP(t, mcpOpts{})
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	require.NoError(t, h.cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: "info"}))
	command, open := gated(t, "exit 7")
	res := h.call(map[string]any{"command": command, "background": true, "yield_ms": 0})
	id := structured(t, res).SessionID
	require.NotEmpty(t, id, text(res))
	open()
	line := fmt.Sprintf("[session %s %q exited 7 after", id, command)
	select {
	case l := <-h.logs:
		data, _ := json.Marshal(l.Data)
		quoted, _ := json.Marshal(line)
		assert.Contains(t, string(data), strings.Trim(string(quoted), `"`))
	case <-time.After(watchdog):
		t.Fatal("no logging notification for the session's end")
	}
	res = h.call(map[string]any{"list": true})
	assert.Regexp(t, `^`+regexp.QuoteMeta(line)+` [0-9.]+m?s\]\n`, text(res))
	res = h.call(map[string]any{"list": true})
	assert.NotContains(t, text(res), "exited 7 after", "reported once")
}

func TestMCPCancelEndsTheWaitNotTheSession(t *testing.T) {
	t.Parallel()
	h := startMCP(t, mcpOpts{})
	m := marker()
	res := h.call(map[string]any{"command": "sleep " + m, "background": true, "yield_ms": 0})
	id := structured(t, res).SessionID
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := h.cs.CallTool(ctx, &sdk.CallToolParams{Name: "terminal",
			Arguments: map[string]any{"session_id": id, "until": "exit"}})
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	cancel()
	within(t, done, "the cancelled call")
	res = h.call(map[string]any{"list": true})
	assert.Contains(t, text(res), "session "+id+" · background", "the session goes on")
	assert.NotEmpty(t, pidsWith(m))
	h.call(map[string]any{"session_id": id, "kill": true})
	noneLeft(t, m)
}

func TestMCPReadyAndPorts(t *testing.T) {
	t.Parallel()
	h := startMCP(t, mcpOpts{})
	res := h.call(map[string]any{"command": "python3 -u -m http.server 0 --bind 127.0.0.1",
		"background": true, "ready_pattern": `Serving HTTP on \S+ port \d+`})
	r := structured(t, res)
	require.True(t, r.Ready != nil && *r.Ready, text(res))
	require.Len(t, r.Ports, 1, text(res))
	assert.Contains(t, text(res), fmt.Sprintf("session %s running in the background, ready, ports %d", r.SessionID, r.Ports[0]))
	h.call(map[string]any{"session_id": r.SessionID, "kill": true})
}

func TestMCPScreen(t *testing.T) {
	t.Parallel()
	h := startMCP(t, mcpOpts{})
	res := h.call(map[string]any{"command": `printf '\033[?1049h\033[H\033[2JTOP LINE\033[5;3Hfifth'; sleep 30`,
		"background": true, "yield_ms": 0})
	id := structured(t, res).SessionID
	h.call(map[string]any{"session_id": id, "until": "stable", "stable_ms": 300})
	// The screen as drawn: a shell a busy machine starts late draws after
	// any quiet period.
	waitFor(t, "the screen drawn", func() bool {
		res = h.call(map[string]any{"session_id": id, "screen": true})
		return res.IsError || strings.Contains(text(res), "cursor at row 4, column 7")
	})
	assert.False(t, res.IsError, text(res))
	assert.Contains(t, text(res), "TOP LINE\n")
	assert.Contains(t, text(res), "\n  fifth\n")
	assert.Contains(t, text(res), "full-screen program, 160x48, cursor at row 4, column 7")
	data, _ := json.Marshal(res.StructuredContent)
	assert.Contains(t, string(data), `"alt_screen":true`)
	h.call(map[string]any{"session_id": id, "kill": true})
}

// TestMCPYieldAnswersAlive: a foreground call still running at the yield
// (mcp_yield_ms, short here) answers with its live session, and
// until "exit" finishes it.
func TestMCPYieldAnswersAlive(t *testing.T) {
	t.Parallel()
	h := startMCP(t, mcpOpts{config: "mcp_yield_ms = 1000\n"})
	command, open := gated(t, "echo done")
	res := h.call(map[string]any{"command": command})
	r := structured(t, res)
	require.Equal(t, "running", r.State, text(res))
	assert.Contains(t, text(res), "session "+r.SessionID+" still running")
	res = h.call(map[string]any{"session_id": r.SessionID, "until": "exit"})
	require.Equal(t, "running", structured(t, res).State, "a wait past the yield answers alive too")
	open()
	for {
		res = h.call(map[string]any{"session_id": r.SessionID, "until": "exit"})
		if structured(t, res).ExitCode != nil {
			break
		}
		require.Equal(t, "running", structured(t, res).State, "a wait past the yield answers alive too")
	}
	assert.Contains(t, text(res), "done")
}

// TestMCPModelReadsWhatItNeeds: Claude Code and Codex show a model only
// structuredContent, Gemini CLI only the text. Neither carries a null, a
// false or a default; a failing build keeps its exit code and error line
// in both; and every result fits the tool's output schema.
func TestMCPModelReadsWhatItNeeds(t *testing.T) {
	t.Parallel()
	h := startMCP(t, mcpOpts{})
	schema := h.outputSchema()
	h.call(map[string]any{"command": "true"}) // the first result may carry a notice
	res := h.call(map[string]any{"command": "echo hi"})
	var hi map[string]any
	require.NoError(t, json.Unmarshal(h.structuredJSON(res, schema), &hi))
	delete(hi, "duration_ms") // absent, as a default, when it took under a millisecond
	assert.Equal(t, map[string]any{"exit_code": 0.0, "output": "hi\n", "cursor": 3.0}, hi)
	assert.Regexp(t, `^hi\nexit 0 · \d+ms$`, text(res))

	res = h.call(map[string]any{"command": `printf 'main.c:1:25: error: undeclared_name undeclared\nmake: *** [Makefile:2: main] Error 1\n' >&2; exit 2`})
	data := string(h.structuredJSON(res, schema))
	for _, form := range []string{text(res), data} {
		assert.Contains(t, form, "main.c:1:25: error: undeclared_name undeclared")
		assert.Contains(t, form, "make: *** [Makefile:2: main] Error 1")
	}
	assert.Contains(t, data, `"exit_code":2`)
	assert.Regexp(t, `\nexit 2 · \d+ms$`, text(res))

	m := marker()
	res = h.call(map[string]any{"command": "sleep " + m, "background": true, "yield_ms": 0})
	data = string(h.structuredJSON(res, schema))
	id := structured(t, res).SessionID
	assert.Regexp(t, `^\{"pid":\d+,"session_id":"`+id+`","state":"background"\}$`, data)
	for _, args := range []map[string]any{{"list": true}, {"session_id": id, "screen": true}, {"session_id": id, "kill": true}} {
		data = string(h.structuredJSON(h.call(args), schema))
		assert.NotContains(t, data, "null", args)
	}
	noneLeft(t, m)
}

// outputSchema is the terminal tool's output schema, resolved.
func (h *mcpHost) outputSchema() *jsonschema.Resolved {
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	tools, err := h.cs.ListTools(ctx, nil)
	require.NoError(h.t, err)
	data, err := json.Marshal(tools.Tools[0].OutputSchema)
	require.NoError(h.t, err)
	var s jsonschema.Schema
	require.NoError(h.t, json.Unmarshal(data, &s))
	r, err := s.Resolve(nil)
	require.NoError(h.t, err)
	return r
}

// structuredJSON is a result's structured content as the server sent it,
// checked against the schema.
func (h *mcpHost) structuredJSON(res *sdk.CallToolResult, schema *jsonschema.Resolved) []byte {
	h.t.Helper()
	require.False(h.t, res.IsError, text(res))
	data, err := json.Marshal(res.StructuredContent)
	require.NoError(h.t, err)
	var v any
	require.NoError(h.t, json.Unmarshal(data, &v))
	require.NoError(h.t, schema.Validate(v), "%s", data)
	return data
}

// TestMCPYieldedCommandOutlivesItsCap: a command longer than the default
// cap (3 s here, 60 s by default), run without timeout_ms, runs to its end
// through yields and waits, each answer saying when it would be ended;
// one left without a call is still ended by the cap, and says why.
func TestMCPYieldedCommandOutlivesItsCap(t *testing.T) {
	t.Parallel()
	h := startMCP(t, mcpOpts{config: "mcp_yield_ms = 1000\n[limits]\ntimeout_ms = 3000\n"})
	m := marker()
	forgotten := structured(t, h.call(map[string]any{"command": "sleep " + m}))
	require.Equal(t, "running", forgotten.State)
	res := h.call(map[string]any{"command": "for i in $(seq 6); do echo tick $i; sleep 1; done"})
	r := structured(t, res)
	require.Equal(t, "running", r.State, text(res))
	assert.True(t, r.CapRenews && r.EndsInMs > 0 && r.EndsInMs <= 3000, "%+v", r)
	assert.Contains(t, text(res), "; ended if left without a call for 3 s")
	out := r.Output
	for r.ExitCode == nil {
		res = h.call(map[string]any{"session_id": r.SessionID, "until": "exit"})
		r = structured(t, res)
		out += r.Output
	}
	assert.Equal(t, 0, *r.ExitCode, text(res))
	assert.False(t, r.TimedOut, text(res))
	assert.Contains(t, out, "tick 6")

	noneLeft(t, m)
	res = h.call(map[string]any{"session_id": forgotten.SessionID})
	r = structured(t, res)
	assert.True(t, r.TimedOut && r.CapRenews && r.TimeoutMs == 3000, "%+v", r)
	assert.Contains(t, text(res), "timed out · 3000ms without a call")
}

// TestMCPTimeoutIsFixed: a timeout_ms the model set is not renewed by
// calls, and the answers say when it ends.
func TestMCPTimeoutIsFixed(t *testing.T) {
	t.Parallel()
	h := startMCP(t, mcpOpts{config: "mcp_yield_ms = 1000\n"})
	res := h.call(map[string]any{"command": "sleep 30", "timeout_ms": 2500})
	r := structured(t, res)
	require.Equal(t, "running", r.State, text(res))
	assert.False(t, r.CapRenews)
	assert.Regexp(t, `; ended in [0-9.]+ s \(its timeout\)$`, text(res))
	for r.ExitCode == nil {
		r = structured(t, h.call(map[string]any{"session_id": r.SessionID, "until": "exit"}))
	}
	assert.True(t, r.TimedOut && !r.CapRenews && r.TimeoutMs == 2500, "%+v", r)
}

// TestMCPOneShapePerCall: arguments that mix two call shapes are refused,
// naming both, and nothing runs.
func TestMCPOneShapePerCall(t *testing.T) {
	t.Parallel()
	h := startMCP(t, mcpOpts{})
	res := h.call(map[string]any{"command": "touch mixed", "list": true})
	assert.True(t, res.IsError)
	assert.Contains(t, text(res), `arguments "command" and "list" are different call shapes`)
	assert.NoFileExists(t, filepath.Join(h.root, "mixed"))
	m := marker()
	id := structured(t, h.call(map[string]any{"command": "sleep " + m, "background": true, "yield_ms": 0})).SessionID
	// Answered at once: a confined command may still be its trampoline.
	waitFor(t, "the command to run", func() bool { return len(pidsWith(m)) > 0 })
	res = h.call(map[string]any{"session_id": id, "kill": true, "input": "y\n"})
	assert.True(t, res.IsError)
	assert.Contains(t, text(res), `arguments "input" and "kill" are different call shapes`)
	assert.NotEmpty(t, pidsWith(m), "nothing was killed")
	res = h.call(map[string]any{"session_id": id, "cwd": "sub"})
	assert.Contains(t, text(res), `argument "cwd" goes with "command"`)
	h.call(map[string]any{"session_id": id, "kill": true})
	noneLeft(t, m)
}

// TestMCPErrorsNameTheToolsArguments: bad values are named as the tool
// names them, never with a native field name or a decoder's text.
func TestMCPErrorsNameTheToolsArguments(t *testing.T) {
	t.Parallel()
	h := startMCP(t, mcpOpts{})
	for args, want := range map[string]string{
		`{"comand":"ls"}`:                    `unknown argument "comand"`,
		`{"command":5}`:                      `argument "command" must be a string, not 5`,
		`{"command":"ls","timeout_ms":-1}`:   `argument "timeout_ms" must be a whole number between 0 and 86400000, not -1`,
		`{"command":"ls","mode":"tty"}`:      `argument "mode" must be one of "pty", "pipes"`,
		`{"command":"ls","ready_port":80}`:   `arguments "ready_pattern" and "ready_port" need "background": true`,
		`{"command":"ls","env":{"A":1}}`:     `the value of "A" must be a string`,
		`{"session_id":"1","until":"later"}`: `argument "until" must be one of "exit", "stable"`,
		`{}`:                                 `give "command" to run`,
		`{"command":"ls","yield_ms":1.5}`:    `argument "yield_ms" must be a whole number`,
	} {
		var a map[string]any
		require.NoError(t, json.Unmarshal([]byte(args), &a))
		res := h.call(a)
		assert.True(t, res.IsError, args)
		assert.Contains(t, text(res), want, args)
		for _, leak := range []string{"timeoutMs", "readyPort", "json:", "validating"} {
			assert.NotContains(t, text(res), leak, args)
		}
	}
}

// TestMCPRoot: without --root the client's first root is the project;
// from / with no root from the client, every call is refused and says to
// pass --root.
func TestMCPRoot(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			project, err := filepath.EvalSymlinks(t.TempDir())
			require.NoError(t, err)
			h := startMCP(t, mcpOpts{version: version, dir: "/", roots: []string{"file://" + project}})
			res := h.call(map[string]any{"command": "pwd"})
			require.False(t, res.IsError, text(res))
			assert.Equal(t, project+"\n", structured(t, res).Output)
		})
	}
	h := startMCP(t, mcpOpts{dir: "/"})
	res := h.call(map[string]any{"command": "pwd"})
	assert.True(t, res.IsError)
	assert.Contains(t, text(res), "--root")
}

// TestMCPGarbageBeforeAndBetween: bytes that are no message, before the
// first and between the others, are answered with -32700 and skipped; the
// messages around them are served. The SDK's own stdio transport would
// close the connection at the first.
func TestMCPGarbageBeforeAndBetween(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	cmd := exec.Command(binary, "--mcp", "--root", root)
	cmd.Env = append(os.Environ(), "TERMHELPER_CONFIG_DIR="+filepath.Join(root, ".cfg"), "SHELL=")
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		in.Close()
		cmd.Wait()
	})
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	next := func() string {
		select {
		case l, ok := <-lines:
			require.True(t, ok, "the helper closed its output")
			return l
		case <-time.After(watchdog):
			t.Fatal("no answer within the watchdog")
		}
		return ""
	}
	send := func(s string) {
		_, err := io.WriteString(in, s+"\n")
		require.NoError(t, err)
	}
	send("hello, this is no JSON")
	assert.Contains(t, next(), `"code":-32700`)
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	assert.Contains(t, next(), `"protocolVersion":"2025-11-25"`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,`)
	assert.Contains(t, next(), `"code":-32700`)
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"terminal","arguments":{"command":"echo between"}}}`)
	assert.Contains(t, next(), `between\n`)
}

// TestMCPProgressShowsTheLastLine: a client that sent a progress token is
// told, while the call waits, what the command last showed.
func TestMCPProgressShowsTheLastLine(t *testing.T) {
	t.Parallel()
	progress := make(chan *sdk.ProgressNotificationParams, 16)
	h := startMCP(t, mcpOpts{progress: progress})
	m := marker()
	done := make(chan *sdk.CallToolResult, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), watchdog)
		defer cancel()
		res, _ := h.cs.CallTool(ctx, &sdk.CallToolParams{Name: "terminal", Meta: sdk.Meta{"progressToken": "p1"},
			Arguments: map[string]any{"command": "echo building step 1; sleep " + m}})
		done <- res
	}()
	p := within(t, progress, "a progress notification")
	assert.Equal(t, "p1", p.ProgressToken)
	assert.Contains(t, p.Message, "building step 1")
	for _, pid := range pidsWith(m) {
		syscall.Kill(pid, syscall.SIGTERM)
	}
	within(t, done, "the call's answer")
}

// TestMCPSandboxStopped: a result whose command the sandbox stopped says
// so in one line and in structuredContent. A host the proxy does not
// allow is asked about through elicitation before 2026-07-28, and refused
// without a question from it on (a question travels only in a call's
// result there); either way the result names it. Declined, nothing is
// dialled.
func TestMCPSandboxStopped(t *testing.T) {
	t.Parallel()
	probe := start(t, "ndjson", t.TempDir(), nil)
	if st := initSandbox(t, probe); st.Mode == "off" || st.Network != "proxy" {
		t.Skipf("no sandbox with the network governed here: %v", deref(st.Reason))
	}
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var asked []string
			h := startMCP(t, mcpOpts{version: version, elicit: func(r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, r.Params.Message)
				return &sdk.ElicitResult{Action: "decline"}, nil
			}})
			outside := filepath.Join(t.TempDir(), "escaped")
			res := h.call(map[string]any{"command": "echo x > " + outside})
			assert.Contains(t, text(res), "\nsandbox stopped: write "+outside)
			assert.Contains(t, structured(t, res).denied(), "write "+outside)
			assert.NoFileExists(t, outside)

			res = h.call(map[string]any{"command": "curl -sS https://refused.example/"})
			assert.Contains(t, text(res), "sandbox stopped: network refused.example:443")
			assert.Contains(t, text(res), "network_allow")
			assert.Contains(t, structured(t, res).denied(), "network refused.example:443")
			mu.Lock()
			defer mu.Unlock()
			if version >= "2026-07-28" {
				assert.Empty(t, asked, "a client asked only through results cannot be asked mid-command")
				return
			}
			require.Len(t, asked, 1)
			assert.Contains(t, asked[0], "refused.example (port 443)")
			assert.Contains(t, asked[0], "curl -sS https://refused.example/")
		})
	}
}
