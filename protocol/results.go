package protocol

import (
	"time"

	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/sandbox"
	"github.com/termhelper/termhelper/session"
	"github.com/termhelper/termhelper/trash"
)

// Finished is the answer for a command that has ended.
type Finished struct {
	ExitCode       int     `json:"exitCode"`
	Signal         *string `json:"signal"`
	DurationMs     int64   `json:"durationMs"`
	TimedOut       bool    `json:"timedOut"`
	Output         string  `json:"output"`
	Stderr         *string `json:"stderr,omitempty"`
	Truncated      bool    `json:"truncated"`
	FullOutputPath *string `json:"fullOutputPath"`
	Summary        string  `json:"summary"`
	Cursor         int64   `json:"cursor"`
	// Skipped and More: see Alive.
	Skipped int64 `json:"skipped,omitempty"`
	More    bool  `json:"more,omitempty"`
	// Sandbox is present only when the sandbox stopped something it can
	// name.
	Sandbox *SandboxReport `json:"sandbox,omitempty"`
}

// SandboxReport is what the sandbox stopped a command doing.
type SandboxReport struct {
	Denied []Denial `json:"denied"`
}

// Denial is one thing the sandbox stopped: a host (kind "network"; a unix
// socket has a path instead), a path written or read, or a cap the
// command reached (kind "limit", the reason saying which).
type Denial struct {
	Kind   string `json:"kind"`
	Host   string `json:"host,omitempty"`
	Port   int    `json:"port,omitempty"`
	Path   string `json:"path,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// SandboxReportOf is the report of a command's denials; nil for none.
func SandboxReportOf(denied []sandbox.Denial) *SandboxReport {
	if len(denied) == 0 {
		return nil
	}
	r := &SandboxReport{Denied: make([]Denial, 0, len(denied))}
	for _, d := range denied {
		r.Denied = append(r.Denied, Denial(d))
	}
	return r
}

// Alive is the answer for a command still running.
type Alive struct {
	SessionID      string  `json:"sessionId"`
	Pid            int     `json:"pid"`
	State          string  `json:"state"`
	Output         string  `json:"output"`
	Stderr         *string `json:"stderr,omitempty"`
	Truncated      bool    `json:"truncated,omitempty"`
	FullOutputPath *string `json:"fullOutputPath,omitempty"`
	Prompt         *Prompt `json:"prompt,omitempty"`
	Ready          *bool   `json:"ready,omitempty"`
	Ports          []int   `json:"ports,omitempty"`
	// Screen: output is the screen as a person sees it, row by row (a
	// full-screen program, or a page drawn by cursor address).
	Screen bool `json:"screen,omitempty"`
	// EndsInMs is, under a lifetime cap, how long after this answer the
	// cap ends the command; CapRenews: each call on the session counts it
	// again (the default cap of a foreground command that has yielded).
	EndsInMs  int64 `json:"endsInMs,omitempty"`
	CapRenews bool  `json:"capRenews,omitempty"`
	// Cursor is the position after output in the session's history.
	// Read from a cursor, Skipped counts the bytes between the cursor
	// asked and output that are no longer kept, and More says that there
	// is output after Cursor already.
	Cursor  int64 `json:"cursor"`
	Skipped int64 `json:"skipped,omitempty"`
	More    bool  `json:"more,omitempty"`
}

// Prompt is what a waiting command shows; Secret marks a password read.
type Prompt struct {
	Text   string `json:"text"`
	Secret bool   `json:"secret"`
}

// Answer is a result in the protocol's shape: a Finished when the command
// has ended, an Alive otherwise.
func Answer(r session.Result) any {
	if r.Exit != nil {
		return finished(r)
	}
	return Alive{SessionID: r.ID, Pid: r.Pid, State: string(r.State), Output: r.Output, Stderr: r.Stderr,
		Truncated: r.Truncated, FullOutputPath: optional(r.FullOutputPath), Prompt: PromptOf(r.Prompt),
		Ready: r.Ready, Ports: r.Ports, Screen: r.Screen, EndsInMs: endsInMs(r), CapRenews: r.Renews,
		Cursor: r.Cursor, Skipped: r.Skipped, More: r.More}
}

// endsInMs is EndsIn in whole milliseconds, at least 1 while it is set:
// a cap about to end the command is not no cap.
func endsInMs(r session.Result) int64 {
	if r.EndsIn <= 0 {
		return 0
	}
	return max(r.EndsIn.Milliseconds(), 1)
}

func finished(r session.Result) Finished {
	return Finished{ExitCode: r.Exit.Code, Signal: optional(r.Exit.Signal),
		DurationMs: r.Duration.Milliseconds(), TimedOut: r.TimedOut, Output: r.Output, Stderr: r.Stderr,
		Truncated: r.Truncated, FullOutputPath: optional(r.FullOutputPath), Summary: session.Summary(r),
		Sandbox: SandboxReportOf(r.Denied), Cursor: r.Cursor, Skipped: r.Skipped, More: r.More}
}

// PromptOf is a session's prompt on the wire; nil stays nil.
func PromptOf(p *session.Prompt) *Prompt {
	if p == nil {
		return nil
	}
	return &Prompt{Text: p.Text, Secret: p.Secret}
}

// Exited is the session/exited notification.
type Exited struct {
	SessionID  string  `json:"sessionId"`
	ExitCode   int     `json:"exitCode"`
	Signal     *string `json:"signal"`
	DurationMs int64   `json:"durationMs"`
	TimedOut   bool    `json:"timedOut"`
	Summary    string  `json:"summary"`
	// Cursor is the position at the end of the session's output: a host
	// whose cursor is behind it has output to read.
	Cursor int64 `json:"cursor"`
}

// ExitedEvent is the session/exited notification for a finished result.
func ExitedEvent(id string, r session.Result) Exited {
	f := finished(r)
	return Exited{SessionID: id, ExitCode: f.ExitCode, Signal: f.Signal,
		DurationMs: f.DurationMs, TimedOut: f.TimedOut, Summary: f.Summary, Cursor: f.Cursor}
}

// Waiting is the session/waiting notification.
type Waiting struct {
	Prompt    Prompt `json:"prompt"`
	SessionID string `json:"sessionId"`
}

// Output is the session/output notification.
type Output struct {
	Data      string `json:"data"`
	SessionID string `json:"sessionId"`
	Stream    string `json:"stream"`
}

// Row is one session of session/list.
type Row struct {
	SessionID string `json:"sessionId"`
	Pid       int    `json:"pid"`
	Command   string `json:"command"`
	Cwd       string `json:"cwd"`
	State     string `json:"state"`
	StartedAt string `json:"startedAt"`
	ExitCode  *int   `json:"exitCode,omitempty"`
	Ports     []int  `json:"ports,omitempty"`
	Cursor    int64  `json:"cursor"`
}

// List is session/list's answer.
type List struct {
	Sessions []Row `json:"sessions"`
}

// Rows are the given sessions as session/list rows.
func Rows(list []session.Info) []Row {
	rows := make([]Row, 0, len(list))
	for _, in := range list {
		r := Row{SessionID: in.ID, Pid: in.Pid, Command: in.Command, Cwd: in.Cwd, State: string(in.State),
			StartedAt: in.StartedAt.UTC().Format(time.RFC3339Nano), Ports: in.Ports, Cursor: in.Cursor}
		if in.Exit != nil {
			code := in.Exit.Code
			r.ExitCode = &code
		}
		rows = append(rows, r)
	}
	return rows
}

// Screen is session/screen's answer: rows and columns count from 0.
type Screen struct {
	Cols      int      `json:"cols"`
	Rows      int      `json:"rows"`
	Lines     []string `json:"lines"`
	Cursor    Cursor   `json:"cursor"`
	AltScreen bool     `json:"altScreen"`
}

// Cursor is where the cursor stands on a Screen.
type Cursor struct {
	Row int `json:"row"`
	Col int `json:"col"`
}

// ScreenOf is the engine's screen on the wire.
func ScreenOf(sc engine.Screen) Screen {
	return Screen{Cols: sc.Cols, Rows: sc.Rows, Lines: sc.Lines,
		Cursor: Cursor{Row: sc.Cursor.Row, Col: sc.Cursor.Col}, AltScreen: sc.AltScreen}
}

// TrashEntry is one item the rm shim moved to the trash.
type TrashEntry struct {
	ID        string    `json:"id"`
	Path      string    `json:"path"`      // the absolute path it was deleted from
	DeletedAt time.Time `json:"deletedAt"` // RFC 3339
	Size      int64     `json:"size"`      // bytes; a folder's files summed
	Command   string    `json:"command"`   // the command line that deleted it
	IsDir     bool      `json:"isDir"`
}

// TrashList is trash/list's answer.
type TrashList struct {
	Entries []TrashEntry `json:"entries"`
}

// TrashEntryOf is a trash entry on the wire.
func TrashEntryOf(e trash.Entry) TrashEntry {
	return TrashEntry{ID: e.ID, Path: e.Path, DeletedAt: e.DeletedAt, Size: e.Size, Command: e.Command, IsDir: e.IsDir}
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
