package mcp

import (
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Args are the terminal tool's arguments: the call shapes of PROTOCOL.md
// sections 3 and 4, in the snake case MCP tools use. The SDK derives the
// input schema from them (see inputSchema) and validates every call
// against it.
type Args struct {
	Command      string             `json:"command,omitempty" jsonschema:"A shell command line to run (sh -c on Unix, PowerShell on Windows). Multi-line scripts and heredocs are fine."`
	Cwd          string             `json:"cwd,omitempty" jsonschema:"With command: the working directory, relative to the project root or absolute inside it. Default: the root."`
	Env          map[string]*string `json:"env,omitempty" jsonschema:"With command: environment variables to set for this command; a null value unsets one."`
	Background   bool               `json:"background,omitempty" jsonschema:"With command: the command keeps running (dev server, watcher): answer after yield_ms (default 2000, or 30000 with ready_pattern/ready_port) with a session_id."`
	TimeoutMs    *int64             `json:"timeout_ms,omitempty" jsonschema:"With command: kill the whole process tree after this many milliseconds. Default 60000 (180000 for known slow commands; none for background)."`
	YieldMs      *int64             `json:"yield_ms,omitempty" jsonschema:"Longest this call blocks before answering with a live session (at most mcp_yield_ms, 45000 by default). With session_id and input \"\": wait up to this long for new output."`
	Mode         string             `json:"mode,omitempty" jsonschema:"With command: \"pty\" (default): a real terminal. \"pipes\": plain pipes, stderr kept apart."`
	ReadyPattern string             `json:"ready_pattern,omitempty" jsonschema:"With background: answer as soon as the output matches this regular expression (RE2), e.g. \"ready in|listening on\"."`
	ReadyPort    int                `json:"ready_port,omitempty" jsonschema:"With background: answer as soon as this TCP port on localhost accepts connections."`
	Sandbox      string             `json:"sandbox,omitempty" jsonschema:"With command: the sandbox for this command. Default: the configured one (usually workspace-write: writes only inside the project and its temporary folder, the network only to allowed hosts). read-only narrows it; a wider one (workspace-write over read-only, or off) asks the user first. Use off only after a result's sandbox.denied shows the sandbox stopped what the command must do."`
	SessionID    string             `json:"session_id,omitempty" jsonschema:"A session from an earlier result, to answer, poll, wait for, show or kill."`
	Input        *string            `json:"input,omitempty" jsonschema:"With session_id: text to type into the session (\"\\n\" ends a line). \"\" only polls."`
	Secret       bool               `json:"secret,omitempty" jsonschema:"With input: the input is a password or token the user gave. It is never shown back."`
	Until        string             `json:"until,omitempty" jsonschema:"With session_id: \"exit\" waits for the command to end; \"stable\" waits until the screen stops changing."`
	StableMs     *int64             `json:"stable_ms,omitempty" jsonschema:"With until \"stable\": how long the screen must stay unchanged. Default 1000."`
	Kill         bool               `json:"kill,omitempty" jsonschema:"With session_id: end the command's whole process tree."`
	Signal       string             `json:"signal,omitempty" jsonschema:"With kill: the first signal sent; SIGKILL follows after 2 s."`
	Screen       bool               `json:"screen,omitempty" jsonschema:"With session_id: show the terminal screen as a person would see it now."`
	List         bool               `json:"list,omitempty" jsonschema:"List every session with its state."`
}

const toolDescription = `Run shell commands in a real terminal inside the project, and work with the ones still running.

Call shapes (use exactly one):
- Run: {"command": "npm test"}. Waits for the end and returns the cleaned output and the exit code. A command that fails is a normal result: read its output and exit code. A command still running after {yield} answers with its session_id and state "running" (it goes on; its lifetime cap is 60 s, 180 s for known slow commands, or timeout_ms): wait on with {"session_id": "3", "until": "exit"}.
- Long-running work (dev servers, watchers, "npm run dev", "python -m http.server"): add "background": true. The call returns after a few seconds (or as soon as "ready_pattern" matches the output, or "ready_port" accepts connections) with a session_id while the command keeps running.
- Answer a prompt: {"session_id": "3", "input": "y\n"}. When a result says the session is waiting for input, the program is blocked reading its terminal (a [Y/n] question, a REPL, a password). Input is sent as typed: end a line with "\n"; "\u0003" is Ctrl-C, "\u0004" is Ctrl-D.
- Secret prompts: when the status line says "secret: ask the user", never guess or invent a password. Ask the person, and send their answer with "secret": true; it is masked everywhere output comes back.
- Poll: {"session_id": "3", "input": ""} returns what the session printed since the last result.
- Wait: {"session_id": "3", "until": "exit"} waits for the end; {"session_id": "3", "until": "stable"} waits until a full-screen program (vim, less, top, a menu) has stopped drawing.
- Screen: {"session_id": "3", "screen": true} shows what a full-screen program shows now, row by row.
- Kill: {"session_id": "3", "kill": true} ends the command and everything it started.
- List: {"list": true} lists the sessions.

Commands run with the project root as the working directory ("cwd" picks a folder inside it). Output is cleaned of terminal escape codes and capped; when cut, "fullOutputPath" in the result names a file with all of it. Dangerous commands are refused; some commands need the user's approval first.

Commands run in a sandbox where the machine has one: they write only inside the project, its temporary folder ($TMPDIR) and the package caches; the user's keys and tokens are hidden; the network is reachable only on localhost and, through a proxy, to allowed hosts (package registries, code hosts). When the sandbox stopped something, the result ends with a "sandbox stopped" line naming the path or host: do not retry the same way; say what is needed, or ask the user to allow it.`

// inputSchema is the schema the SDK derives from Args, made precise where
// a Go type cannot say enough (enums, ranges) and plain where hosts need it
// plain: no property has a "type" array (Gemini's schema converters reject
// them), so a nullable value is an anyOf.
func inputSchema() *jsonschema.Schema {
	s, err := jsonschema.For[Args](nil)
	if err != nil {
		panic("mcp: the terminal tool's schema: " + err.Error())
	}
	for name, p := range s.Properties {
		single(p)
		if p.AdditionalProperties != nil && name == "env" {
			p.AdditionalProperties = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "string"}, {Type: "null"}}}
		}
	}
	s.Properties["mode"].Enum = []any{"pty", "pipes"}
	s.Properties["until"].Enum = []any{"exit", "stable"}
	s.Properties["sandbox"].Enum = []any{"workspace-write", "read-only", "off"}
	s.Properties["signal"].Enum = []any{"SIGTERM", "SIGINT", "SIGHUP", "SIGKILL"}
	for _, n := range []string{"timeout_ms", "yield_ms", "stable_ms"} {
		s.Properties[n].Minimum = ptr(0.0)
	}
	s.Properties["ready_port"].Minimum, s.Properties["ready_port"].Maximum = ptr(1.0), ptr(65535.0)
	return s
}

// single turns a type array (a pointer's ["null", "integer"]) into its one
// non-null type: an absent argument says what a null would.
func single(p *jsonschema.Schema) {
	for _, t := range p.Types {
		if t != "null" {
			p.Type = t
		}
	}
	p.Types = nil
}

func ptr[T any](v T) *T { return &v }

// outputSchema describes structuredContent: the native answer of
// PROTOCOL.md sections 3 and 4 (finished, alive, a list or a screen), and
// the notices the text starts with.
func outputSchema() *jsonschema.Schema {
	nullable := func(t string) *jsonschema.Schema {
		return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: t}, {Type: "null"}}}
	}
	typ := func(t string) *jsonschema.Schema { return &jsonschema.Schema{Type: t} }
	array := func(t string) *jsonschema.Schema { return &jsonschema.Schema{Type: "array", Items: typ(t)} }
	return &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"exitCode": typ("integer"), "signal": nullable("string"), "durationMs": typ("integer"),
		"timedOut": typ("boolean"), "output": typ("string"), "stderr": typ("string"),
		"truncated": typ("boolean"), "fullOutputPath": nullable("string"), "summary": typ("string"),
		"sessionId": typ("string"), "pid": typ("integer"),
		"state":  {Type: "string", Enum: []any{"running", "waiting", "background", "exited"}},
		"prompt": {Type: "object", Properties: map[string]*jsonschema.Schema{"text": typ("string"), "secret": typ("boolean")}},
		"ready":  typ("boolean"), "ports": array("integer"), "sessions": array("object"), "screen": typ("boolean"),
		"cols": typ("integer"), "rows": typ("integer"), "lines": array("string"),
		"cursor": typ("object"), "altScreen": typ("boolean"),
		"notices": {Type: "array", Items: typ("string"),
			Description: "Sessions that ended since the last result without being polled; how commands are confined, where it falls short of what was asked."},
		"sandbox": {Type: "object", Description: "What the sandbox stopped the command doing.",
			Properties: map[string]*jsonschema.Schema{"denied": {Type: "array", Items: &jsonschema.Schema{Type: "object",
				Properties: map[string]*jsonschema.Schema{"kind": {Type: "string", Enum: []any{"network", "write", "read", "limit"}},
					"host": typ("string"), "port": typ("integer"), "path": typ("string"), "reason": typ("string")}}}}},
	}}
}

// terminalTool is the one tool; yield is when a call answers alive.
func terminalTool(yield time.Duration) *sdk.Tool {
	desc := strings.ReplaceAll(toolDescription, "{yield}", strconv.FormatFloat(yield.Seconds(), 'f', -1, 64)+" s")
	return &sdk.Tool{Name: "terminal", Title: "Terminal", Description: desc,
		InputSchema: inputSchema(), OutputSchema: outputSchema(),
		Annotations: &sdk.ToolAnnotations{Title: "Terminal", DestructiveHint: ptr(true), OpenWorldHint: ptr(true)}}
}
