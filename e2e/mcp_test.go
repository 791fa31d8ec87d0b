//go:build linux

//lint:file-ignore SA1019 PROTOCOL.md section 9 reports ended sessions as logging notifications, which MCP 2026-07-28 deprecates but keeps working.

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mcpHost is a real MCP client (the official Go SDK) connected to the
// built helper over its stdin and stdout.
type mcpHost struct {
	t    *testing.T
	cs   *sdk.ClientSession
	root string
	logs chan *sdk.LoggingMessageParams
}

type mcpOpts struct {
	elicit func(*sdk.ElicitRequest) (*sdk.ElicitResult, error) // nil: no elicitation capability
}

func startMCP(t *testing.T, o mcpOpts) *mcpHost {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	h := &mcpHost{t: t, root: root, logs: make(chan *sdk.LoggingMessageParams, 100)}
	copts := &sdk.ClientOptions{LoggingMessageHandler: func(_ context.Context, r *sdk.LoggingMessageRequest) {
		h.logs <- r.Params
	}}
	if o.elicit != nil {
		copts.ElicitationHandler = func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return o.elicit(r)
		}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, copts)
	cmd := exec.Command(binary, "--mcp", "--root", root)
	cmd.Env = append(os.Environ(), "TERMHELPER_CONFIG_DIR="+filepath.Join(root, ".cfg"), "SHELL=")
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
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

// structured decodes a result's structured content.
func structured(t *testing.T, res *sdk.CallToolResult) result {
	t.Helper()
	data, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var r result
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

func TestMCPApprovalByElicitation(t *testing.T) {
	t.Parallel()
	var asked []string
	accept := false
	h := startMCP(t, mcpOpts{elicit: func(r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked = append(asked, r.Params.Message)
		if accept {
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"always": false}}, nil
		}
		return &sdk.ElicitResult{Action: "decline"}, nil
	}})
	res := h.call(map[string]any{"command": "touch declined"})
	assert.True(t, res.IsError)
	assert.Contains(t, text(res), "user declined")
	assert.NoFileExists(t, filepath.Join(h.root, "declined"))
	accept = true
	res = h.call(map[string]any{"command": "touch accepted"})
	assert.False(t, res.IsError, text(res))
	assert.FileExists(t, filepath.Join(h.root, "accepted"))
	require.Len(t, asked, 2)
	assert.Contains(t, asked[1], "touch accepted")
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
	assert.Contains(t, string(data), `"altScreen":true`)
	h.call(map[string]any{"session_id": id, "kill": true})
}
