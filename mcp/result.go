package mcp

import (
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/sandbox"
	"github.com/termhelper/termhelper/session"
)

// Result is the terminal tool's structured content, in the tool's own
// snake case: a finished command (exit_code), a live one (session_id),
// the session list, a screen, or a refusal (error). Some hosts show a
// model only this, others only the text: it says everything the text
// says, and nothing a model does not need (no null, no false, no
// default, no summary of its own fields). The SDK derives the tool's
// output schema from it and checks every result against that.
type Result struct {
	ExitCode   *int   `json:"exit_code,omitempty" jsonschema:"The command has ended, with this status (killed by a signal: 128+N)."`
	Signal     string `json:"signal,omitempty" jsonschema:"The signal that ended it."`
	DurationMs int64  `json:"duration_ms,omitempty" jsonschema:"From its start to its end."`
	TimedOut   bool   `json:"timed_out,omitempty" jsonschema:"Its lifetime cap ended it."`
	TimeoutMs  int64  `json:"timeout_ms,omitempty" jsonschema:"With timed_out: the cap, counted from the start, or from the last call on the session with cap_renews."`
	KilledBy   string `json:"killed_by,omitempty" jsonschema:"A kill call ended it, with this signal."`

	SessionID string    `json:"session_id,omitempty" jsonschema:"The command is still alive in this session: poll, wait on, answer or kill it."`
	Pid       int       `json:"pid,omitempty" jsonschema:"The process id of the live command's shell."`
	State     string    `json:"state,omitempty" jsonschema:"running (it goes on), waiting (blocked reading its input), background."`
	Prompt    *Prompt   `json:"prompt,omitempty" jsonschema:"What a waiting command asks."`
	Ready     *bool     `json:"ready,omitempty" jsonschema:"With ready_pattern or ready_port: whether it became ready."`
	Ports     []int     `json:"ports,omitempty" jsonschema:"The TCP ports its process tree listens on."`
	EndsInMs  int64     `json:"ends_in_ms,omitempty" jsonschema:"How long after this answer its lifetime cap ends it, unless it ends first."`
	CapRenews bool      `json:"cap_renews,omitempty" jsonschema:"Each call on the session (a poll, a wait, input) counts ends_in_ms again: it is ended only if left alone that long."`
	Output    string    `json:"output,omitempty" jsonschema:"The cleaned output, or on a live command what is new since the last result."`
	Stderr    string    `json:"stderr,omitempty" jsonschema:"With mode pipes: the error stream, apart."`
	Screen    bool      `json:"screen,omitempty" jsonschema:"output is the terminal's page as a person sees it, row by row."`
	Truncated bool      `json:"truncated,omitempty" jsonschema:"The output was cut."`
	FullPath  string    `json:"full_output_path,omitempty" jsonschema:"The file holding all of the cut output."`
	Cursor    int64     `json:"cursor,omitempty" jsonschema:"The position after output in the session's history: poll or wait with cursor to read on from it."`
	Skipped   int64     `json:"skipped,omitempty" jsonschema:"A read from a cursor older than what is kept: the bytes no longer kept (full_output_path has them)."`
	More      bool      `json:"more,omitempty" jsonschema:"A read from a cursor stopped at the cap: read on from cursor."`
	Sandbox   *Sandbox  `json:"sandbox,omitempty" jsonschema:"What the sandbox stopped the command doing."`
	EnvRead   []string  `json:"env_files_read,omitempty" jsonschema:"The project's .env files the command opened."`
	EnvMasked []string  `json:"env_values_masked,omitempty" jsonschema:"The .env files whose values the output held: they show as ********."`
	Sessions  []Row     `json:"sessions,omitzero" jsonschema:"The sessions, oldest first (list)."`
	Terminal  *Terminal `json:"terminal,omitempty" jsonschema:"The terminal as a person sees it now (screen)."`
	Error     string    `json:"error,omitempty" jsonschema:"The call was refused, and why: nothing ran."`
	Notices   []string  `json:"notices,omitempty" jsonschema:"Sessions that ended since the last result without being polled; how commands are confined, where it falls short of what was asked."`
}

// Prompt is what a waiting command shows.
type Prompt struct {
	Text   string `json:"text"`
	Secret bool   `json:"secret,omitempty" jsonschema:"A password read: ask the user, never guess."`
}

// Sandbox is what the sandbox stopped.
type Sandbox struct {
	Denied []Denial `json:"denied"`
}

// Denial is one thing the sandbox stopped: a host, or a path.
type Denial struct {
	Kind   string `json:"kind" jsonschema:"network, write, read, or limit (a cap on processes or temporary space reached)."`
	Host   string `json:"host,omitempty"`
	Port   int    `json:"port,omitempty"`
	Path   string `json:"path,omitempty"`
	Reason string `json:"reason,omitempty" jsonschema:"With limit: which cap, and what failed."`
}

// Row is one session of a list.
type Row struct {
	SessionID string `json:"session_id"`
	Pid       int    `json:"pid"`
	Command   string `json:"command"`
	Cwd       string `json:"cwd"`
	State     string `json:"state"`
	StartedAt string `json:"started_at"`
	ExitCode  *int   `json:"exit_code,omitempty"`
	Ports     []int  `json:"ports,omitempty"`
	Cursor    int64  `json:"cursor,omitempty"`
}

// Terminal is a screen, rows and columns counted from 0.
type Terminal struct {
	Cols      int      `json:"cols"`
	Rows      int      `json:"rows"`
	Lines     []string `json:"lines" jsonschema:"The rows drawn, blank rows at the bottom dropped."`
	CursorRow int      `json:"cursor_row"`
	CursorCol int      `json:"cursor_col"`
	AltScreen bool     `json:"alt_screen,omitempty" jsonschema:"A full-screen program (vim, less, top) is drawing."`
}

// resultOf is a command's answer as the tool gives it.
func resultOf(r session.Result) *Result {
	out := &Result{Output: r.Output, Truncated: r.Truncated, FullPath: r.FullOutputPath, Sandbox: sandboxOf(r.Denied),
		Cursor: r.Cursor, Skipped: r.Skipped, More: r.More, EnvRead: r.Opened, EnvMasked: r.Masked}
	if r.Stderr != nil {
		out.Stderr = *r.Stderr
	}
	if r.Exit != nil {
		code := r.Exit.Code
		out.ExitCode, out.Signal, out.DurationMs = &code, r.Exit.Signal, r.Duration.Milliseconds()
		out.TimedOut, out.KilledBy = r.TimedOut, r.KilledBy
		if r.TimedOut {
			out.TimeoutMs, out.CapRenews = r.Timeout.Milliseconds(), r.Renews
		}
		return out
	}
	out.SessionID, out.Pid, out.State = r.ID, r.Pid, string(r.State)
	out.Ready, out.Ports, out.Screen = r.Ready, r.Ports, r.Screen
	if r.Prompt != nil {
		out.Prompt = &Prompt{Text: r.Prompt.Text, Secret: r.Prompt.Secret}
	}
	if r.EndsIn > 0 {
		out.EndsInMs, out.CapRenews = max(r.EndsIn.Milliseconds(), 1), r.Renews
	}
	return out
}

func sandboxOf(denied []sandbox.Denial) *Sandbox {
	if len(denied) == 0 {
		return nil
	}
	s := &Sandbox{Denied: make([]Denial, 0, len(denied))}
	for _, d := range denied {
		s.Denied = append(s.Denied, Denial(d))
	}
	return s
}

// listOf is the session list as the tool gives it.
func listOf(infos []session.Info) *Result {
	rows := make([]Row, 0, len(infos))
	for _, in := range infos {
		r := Row{SessionID: in.ID, Pid: in.Pid, Command: in.Command, Cwd: in.Cwd, State: string(in.State),
			StartedAt: in.StartedAt.UTC().Format(time.RFC3339), Ports: in.Ports, Cursor: in.Cursor}
		if in.Exit != nil {
			code := in.Exit.Code
			r.ExitCode = &code
		}
		rows = append(rows, r)
	}
	return &Result{Sessions: rows}
}

// terminalOf is a screen as the tool gives it.
func terminalOf(sc engine.Screen) *Result {
	return &Result{Terminal: &Terminal{Cols: sc.Cols, Rows: sc.Rows, Lines: sc.Lines,
		CursorRow: sc.Cursor.Row, CursorCol: sc.Cursor.Col, AltScreen: sc.AltScreen}}
}

// outputSchema is the schema the SDK derives from Result, plain where
// hosts need it plain (see single).
func outputSchema() *jsonschema.Schema {
	s, err := jsonschema.For[Result](nil)
	if err != nil {
		panic("mcp: the terminal tool's output schema: " + err.Error())
	}
	plain(s)
	return s
}

// plain makes every property of s, however deep, single-typed.
func plain(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	single(s)
	for _, p := range s.Properties {
		plain(p)
	}
	plain(s.Items)
}
