//go:build linux

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/termhelper/termhelper/e2e/fakemodel"
)

// acpAgent is an Agent Client Protocol agent (Claude Code's, from npm)
// driven as an editor drives it: JSON-RPC, a message per line, on its
// stdin and stdout.
type acpAgent struct {
	t    *testing.T
	r    *hostRun
	in   io.WriteCloser
	msgs chan map[string]any // answers to this client's requests
	next int
}

// startACP starts the agent for run, with the environment Claude Code
// gets in the hosts' tests.
func startACP(t *testing.T, bin string, script fakemodel.Script) *acpAgent {
	t.Helper()
	r := newHostRun(t, bin, agentHost{name: "acp", configure: func(t *testing.T, r *hostRun) {
		r.env = append(r.env, "ANTHROPIC_BASE_URL="+r.srv.URL, "ANTHROPIC_API_KEY=sk-e2e", "ENABLE_TOOL_SEARCH=false",
			"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "MCP_CONNECTION_NONBLOCKING=false",
			// As root the agent asks Claude Code to allow skipping its
			// confirmations, which Claude Code refuses to root unless it
			// is told it runs in a sandbox (a container, as CI's is).
			"IS_SANDBOX=1",
			// The pinned Claude Code, not the copy the agent bundles,
			// which looks up api.anthropic.com whatever the base URL.
			"CLAUDE_CODE_EXECUTABLE="+lookPath(t, "claude", bin))
	}}, script)
	r.cmd = exec.Command(lookPath(t, "claude-code-acp", bin))
	r.cmd.Dir, r.cmd.Env = r.root, r.env
	r.cmd.Stderr = r.out
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := r.cmd.StdinPipe()
	require.NoError(t, err)
	out, err := r.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, r.cmd.Start())
	r.done = make(chan error, 1)
	a := &acpAgent{t: t, r: r, in: in, msgs: make(chan map[string]any, 16)}
	go func() {
		a.serve(out)
		r.done <- r.cmd.Wait()
	}()
	t.Cleanup(r.cleanup)
	return a
}

// serve reads the agent's messages: answers go to msgs, its requests are
// answered (a permission asked is given, as a person allowing it would).
func (a *acpAgent) serve(out io.Reader) {
	defer close(a.msgs)
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		method, _ := m["method"].(string)
		switch {
		case method == "":
			a.msgs <- m
		case m["id"] == nil: // a notification: session/update
		case method == "session/request_permission":
			a.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": map[string]any{
				"outcome": map[string]any{"outcome": "selected", "optionId": allowOption(m)}}})
		default:
			a.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "error": map[string]any{"code": -32601, "message": "not offered"}})
		}
	}
}

// allowOption is the id of the option that allows, in a permission request.
func allowOption(m map[string]any) string {
	params, _ := m["params"].(map[string]any)
	opts, _ := params["options"].([]any)
	for _, o := range opts {
		o, _ := o.(map[string]any)
		if kind, _ := o["kind"].(string); strings.HasPrefix(kind, "allow") {
			id, _ := o["optionId"].(string)
			return id
		}
	}
	return ""
}

func (a *acpAgent) send(m map[string]any) {
	b, _ := json.Marshal(m)
	a.in.Write(append(b, '\n'))
}

// request sends a request and returns its id.
func (a *acpAgent) request(method string, params any) float64 {
	a.next++
	a.send(map[string]any{"jsonrpc": "2.0", "id": a.next, "method": method, "params": params})
	return float64(a.next)
}

// answer waits for the answer to id and returns its result.
func (a *acpAgent) answer(id float64) map[string]any {
	a.t.Helper()
	for {
		m, ok := <-a.msgs
		if !ok {
			a.t.Fatalf("the agent stopped before answering; it printed:\n%s", a.r.out.String())
		}
		if m["id"] == id {
			require.Nil(a.t, m["error"], "%v", m)
			res, _ := m["result"].(map[string]any)
			return res
		}
	}
}

// call sends a request and waits for its result, within the watchdog.
func (a *acpAgent) call(method string, params any) map[string]any {
	a.t.Helper()
	done := make(chan map[string]any, 1)
	id := a.request(method, params)
	go func() { done <- a.answer(id) }()
	return within(a.t, done, method)
}

// newSession is session/new with the recipe's parameters: termhelper for
// the project.
func (a *acpAgent) newSession() string {
	a.t.Helper()
	a.call("initialize", map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": false, "writeTextFile": false}, "terminal": false}})
	params := strings.ReplaceAll(docRecipe(a.t, "docs/mcp.md", "acp session/new"), "/path/to/project", a.r.root)
	params = strings.ReplaceAll(params, "/path/to/termhelper", binary)
	var p any
	require.NoError(a.t, json.Unmarshal([]byte(params), &p), params)
	res := a.call("session/new", p)
	id, _ := res["sessionId"].(string)
	require.NotEmpty(a.t, id, "%v", res)
	return id
}

func prompt(session, text string) map[string]any {
	return map[string]any{"sessionId": session, "prompt": []any{map[string]any{"type": "text", "text": text}}}
}

// acpBin is the folder that holds claude-code-acp.
func acpBin(t *testing.T) string {
	bin := filepath.Join(hostsDir(t), "node_modules", ".bin")
	if _, err := os.Stat(filepath.Join(bin, "claude-code-acp")); err != nil {
		t.Fatalf("the ACP agent is not installed in %s: %v", bin, err)
	}
	return bin
}

// TestACPSessionNewServer: an editor passes termhelper to Claude Code's
// ACP agent in session/new, as docs/mcp.md's recipe says; the model is
// offered the tool and `echo hi` comes back with its output and exit
// code; the agent ended leaves no termhelper.
func TestACPSessionNewServer(t *testing.T) {
	t.Parallel()
	a := startACP(t, acpBin(t), func(results []string) fakemodel.Step {
		if len(results) == 0 {
			return fakemodel.Step{Call: map[string]any{"command": "echo hi"}}
		}
		return fakemodel.Done
	})
	session := a.newSession()
	res := a.call("session/prompt", prompt(session, "run echo hi"))
	assert.Equal(t, "end_turn", res["stopReason"])
	assert.Contains(t, strings.Join(a.r.srv.Tools(), " "), "terminal", "the tool was not offered to the model")
	results := a.r.srv.Results()
	require.Len(t, results, 1, "the agent printed:\n%s", a.r.out.String())
	assert.Regexp(t, `\bhi(\n|\\n)`, results[0])
	assert.Equal(t, 0, exitCode(results[0]), results[0])
	require.NotEmpty(t, pidsWith(a.r.root), "termhelper runs for the session")
	require.NoError(t, a.r.cmd.Process.Signal(syscall.SIGTERM))
	a.r.wait(hostWatchdog)
	noneLeft(t, a.r.root)
}

// TestACPCancelEndsTheCommand: session/cancel while the model's call runs
// (an editor's Stop) ends the turn as cancelled and the command with it.
func TestACPCancelEndsTheCommand(t *testing.T) {
	t.Parallel()
	m := marker()
	a := startACP(t, acpBin(t), func(results []string) fakemodel.Step {
		if len(results) == 0 {
			return fakemodel.Step{Call: map[string]any{"command": "sleep " + m}}
		}
		return fakemodel.Done
	})
	session := a.newSession()
	id := a.request("session/prompt", prompt(session, "sleep"))
	waitFor(t, "the command running", func() bool { return len(pidsWith(m)) > 0 })
	a.send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": session}})
	done := make(chan map[string]any, 1)
	go func() { done <- a.answer(id) }()
	res := within(t, done, "the cancelled prompt's answer")
	assert.Equal(t, "cancelled", res["stopReason"], fmt.Sprint(res))
	noneLeft(t, m)
}
