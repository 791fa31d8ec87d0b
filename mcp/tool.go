package mcp

// Args are the terminal tool's arguments: the call shapes of PROTOCOL.md
// sections 3 and 4, in the snake case MCP tools use.
type Args struct {
	Command      string             `json:"command"`
	Cwd          string             `json:"cwd"`
	Env          map[string]*string `json:"env"`
	Background   bool               `json:"background"`
	TimeoutMs    *int64             `json:"timeout_ms"`
	YieldMs      *int64             `json:"yield_ms"`
	Mode         string             `json:"mode"`
	ReadyPattern string             `json:"ready_pattern"`
	ReadyPort    int                `json:"ready_port"`
	SessionID    string             `json:"session_id"`
	Input        *string            `json:"input"`
	Secret       bool               `json:"secret"`
	Until        string             `json:"until"`
	StableMs     *int64             `json:"stable_ms"`
	Kill         bool               `json:"kill"`
	Signal       string             `json:"signal"`
	Screen       bool               `json:"screen"`
	List         bool               `json:"list"`
}

const toolDescription = `Run shell commands in a real terminal inside the project, and work with the ones still running.

Call shapes (use exactly one):
- Run: {"command": "npm test"}. Waits for the end (up to 60 s; known slow commands 180 s) and returns the cleaned output and the exit code. A command that fails is a normal result: read its output and exit code.
- Long-running work (dev servers, watchers, "npm run dev", "python -m http.server"): add "background": true. The call returns after a few seconds (or as soon as "ready_pattern" matches the output, or "ready_port" accepts connections) with a session_id while the command keeps running.
- Answer a prompt: {"session_id": "3", "input": "y\n"}. When a result says the session is waiting for input, the program is blocked reading its terminal (a [Y/n] question, a REPL, a password). Input is sent as typed: end a line with "\n"; "\u0003" is Ctrl-C, "\u0004" is Ctrl-D.
- Secret prompts: when the status line says "secret: ask the user", never guess or invent a password. Ask the person, and send their answer with "secret": true; it is masked everywhere output comes back.
- Poll: {"session_id": "3", "input": ""} returns what the session printed since the last result.
- Wait: {"session_id": "3", "until": "exit"} waits for the end; {"session_id": "3", "until": "stable"} waits until a full-screen program (vim, less, top, a menu) has stopped drawing.
- Screen: {"session_id": "3", "screen": true} shows what a full-screen program shows now, row by row.
- Kill: {"session_id": "3", "kill": true} ends the command and everything it started.
- List: {"list": true} lists the sessions.

Commands run with the project root as the working directory ("cwd" picks a folder inside it). Output is cleaned of terminal escape codes and capped; when cut, "fullOutputPath" in the result names a file with all of it. Dangerous commands are refused; some commands need the user's approval first.`

type schema = map[string]any

func prop(typ any, desc string, extra ...any) schema {
	s := schema{"type": typ, "description": desc}
	for i := 0; i+1 < len(extra); i += 2 {
		s[extra[i].(string)] = extra[i+1]
	}
	return s
}

var inputSchema = schema{
	"type":                 "object",
	"additionalProperties": false,
	"properties": schema{
		"command":       prop("string", "A shell command line to run (sh -c on Unix, PowerShell on Windows). Multi-line scripts and heredocs are fine."),
		"cwd":           prop("string", "Working directory, relative to the project root or absolute inside it. Default: the root."),
		"env":           prop("object", "Environment variables to set for this command; a null value unsets one.", "additionalProperties", schema{"type": []string{"string", "null"}}),
		"background":    prop("boolean", "The command keeps running (dev server, watcher): answer after yield_ms (default 2000, or 30000 with ready_pattern/ready_port) with a session_id."),
		"timeout_ms":    prop("integer", "Kill the whole process tree after this many milliseconds. Default 60000 (180000 for known slow commands; none for background).", "minimum", 0),
		"yield_ms":      prop("integer", "Longest this call blocks before answering with a live session. With session_id and input \"\": wait up to this long for new output.", "minimum", 0),
		"mode":          prop("string", "\"pty\" (default): a real terminal. \"pipes\": plain pipes, stderr kept apart.", "enum", []string{"pty", "pipes"}),
		"ready_pattern": prop("string", "With background: answer as soon as the output matches this regular expression (RE2), e.g. \"ready in|listening on\"."),
		"ready_port":    prop("integer", "With background: answer as soon as this TCP port on localhost accepts connections.", "minimum", 1, "maximum", 65535),
		"session_id":    prop("string", "A session from an earlier result, to answer, poll, wait for, show or kill."),
		"input":         prop("string", "With session_id: text to type into the session (\"\\n\" ends a line). \"\" only polls."),
		"secret":        prop("boolean", "With input: the input is a password or token the user gave. It is never shown back."),
		"until":         prop("string", "With session_id: \"exit\" waits for the command to end; \"stable\" waits until the screen stops changing.", "enum", []string{"exit", "stable"}),
		"stable_ms":     prop("integer", "With until \"stable\": how long the screen must stay unchanged. Default 1000.", "minimum", 0),
		"kill":          prop("boolean", "With session_id: end the command's whole process tree."),
		"signal":        prop("string", "With kill: the first signal sent; SIGKILL follows after 2 s.", "enum", []string{"SIGTERM", "SIGINT", "SIGHUP", "SIGKILL"}),
		"screen":        prop("boolean", "With session_id: show the terminal screen as a person would see it now."),
		"list":          prop("boolean", "List every session with its state."),
	},
}

// outputSchema describes structuredContent: the native answer of
// PROTOCOL.md sections 3 and 4 (finished, alive, a list or a screen).
var outputSchema = schema{"type": "object", "properties": schema{
	"exitCode":       schema{"type": "integer"},
	"signal":         schema{"type": []string{"string", "null"}},
	"durationMs":     schema{"type": "integer"},
	"timedOut":       schema{"type": "boolean"},
	"output":         schema{"type": "string"},
	"stderr":         schema{"type": "string"},
	"truncated":      schema{"type": "boolean"},
	"fullOutputPath": schema{"type": []string{"string", "null"}},
	"summary":        schema{"type": "string"},
	"sessionId":      schema{"type": "string"},
	"pid":            schema{"type": "integer"},
	"state":          schema{"type": "string", "enum": []string{"running", "waiting", "background", "exited"}},
	"prompt":         schema{"type": "object"},
	"ready":          schema{"type": "boolean"},
	"ports":          schema{"type": "array", "items": schema{"type": "integer"}},
	"sessions":       schema{"type": "array", "items": schema{"type": "object"}},
	"cols":           schema{"type": "integer"},
	"rows":           schema{"type": "integer"},
	"lines":          schema{"type": "array", "items": schema{"type": "string"}},
	"cursor":         schema{"type": "object"},
	"altScreen":      schema{"type": "boolean"},
}}

var terminalTool = schema{
	"name":         "terminal",
	"title":        "Terminal",
	"description":  toolDescription,
	"inputSchema":  inputSchema,
	"outputSchema": outputSchema,
	"annotations":  schema{"title": "Terminal", "destructiveHint": true, "openWorldHint": true},
}
