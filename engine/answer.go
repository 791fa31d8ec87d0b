package engine

import (
	"time"

	"github.com/termhelper/termhelper/session"
)

// Finished is the protocol's answer for a command that has ended.
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
}

// Alive is the protocol's answer for a command still running.
type Alive struct {
	SessionID      string          `json:"sessionId"`
	Pid            int             `json:"pid"`
	State          session.State   `json:"state"`
	Output         string          `json:"output"`
	Stderr         *string         `json:"stderr,omitempty"`
	Truncated      bool            `json:"truncated,omitempty"`
	FullOutputPath *string         `json:"fullOutputPath,omitempty"`
	Prompt         *session.Prompt `json:"prompt,omitempty"`
	Ready          *bool           `json:"ready,omitempty"`
	Ports          []int           `json:"ports,omitempty"`
	// Screen: output is the screen as a person sees it, row by row.
	Screen bool `json:"screen,omitempty"`
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

// Exited is the session/exited event.
type Exited struct {
	SessionID  string  `json:"sessionId"`
	ExitCode   int     `json:"exitCode"`
	Signal     *string `json:"signal"`
	DurationMs int64   `json:"durationMs"`
	TimedOut   bool    `json:"timedOut"`
	Summary    string  `json:"summary"`
}

// Answer is a result in the protocol's shape: a Finished when the command
// has ended, an Alive otherwise.
func Answer(r session.Result) any {
	if r.Exit != nil {
		return finished(r)
	}
	return Alive{SessionID: r.ID, Pid: r.Pid, State: r.State, Output: r.Output, Stderr: r.Stderr,
		Truncated: r.Truncated, FullOutputPath: optional(r.FullOutputPath), Prompt: r.Prompt,
		Ready: r.Ready, Ports: r.Ports, Screen: r.Screen}
}

func finished(r session.Result) Finished {
	return Finished{ExitCode: r.Exit.Code, Signal: optional(r.Exit.Signal),
		DurationMs: r.Duration.Milliseconds(), TimedOut: r.TimedOut, Output: r.Output, Stderr: r.Stderr,
		Truncated: r.Truncated, FullOutputPath: optional(r.FullOutputPath), Summary: session.Summary(r)}
}

// ExitedEvent is the session/exited event for a finished result.
func ExitedEvent(id string, r session.Result) Exited {
	f := finished(r)
	return Exited{SessionID: id, ExitCode: f.ExitCode, Signal: f.Signal,
		DurationMs: f.DurationMs, TimedOut: f.TimedOut, Summary: f.Summary}
}

// Row is one session of session/list.
type Row struct {
	SessionID string        `json:"sessionId"`
	Pid       int           `json:"pid"`
	Command   string        `json:"command"`
	Cwd       string        `json:"cwd"`
	State     session.State `json:"state"`
	StartedAt string        `json:"startedAt"`
	ExitCode  *int          `json:"exitCode,omitempty"`
	Ports     []int         `json:"ports,omitempty"`
}

// Rows is session/list's answer for the given sessions.
func Rows(list []session.Info) []Row {
	rows := make([]Row, 0, len(list))
	for _, in := range list {
		r := Row{SessionID: in.ID, Pid: in.Pid, Command: in.Command, Cwd: in.Cwd, State: in.State,
			StartedAt: in.StartedAt.UTC().Format(time.RFC3339Nano), Ports: in.Ports}
		if in.Exit != nil {
			code := in.Exit.Code
			r.ExitCode = &code
		}
		rows = append(rows, r)
	}
	return rows
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
