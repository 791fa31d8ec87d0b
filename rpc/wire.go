package rpc

import (
	"github.com/termhelper/termhelper/session"
)

// FinishedWire is the answer for a command that has ended.
type FinishedWire struct {
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

// AliveWire is the answer for a command still running.
type AliveWire struct {
	SessionID      string          `json:"sessionId"`
	Pid            int             `json:"pid"`
	State          session.State   `json:"state"`
	Output         string          `json:"output"`
	Stderr         *string         `json:"stderr,omitempty"`
	Truncated      bool            `json:"truncated,omitempty"`
	FullOutputPath *string         `json:"fullOutputPath,omitempty"`
	Prompt         *session.Prompt `json:"prompt,omitempty"`
}

type exitedWire struct {
	SessionID  string  `json:"sessionId"`
	ExitCode   int     `json:"exitCode"`
	Signal     *string `json:"signal"`
	DurationMs int64   `json:"durationMs"`
	TimedOut   bool    `json:"timedOut"`
	Summary    string  `json:"summary"`
}

func resultWire(r session.Result) any {
	if r.Exit != nil {
		return finishedWire(r)
	}
	return AliveWire{SessionID: r.ID, Pid: r.Pid, State: r.State, Output: r.Output, Stderr: r.Stderr,
		Truncated: r.Truncated, FullOutputPath: optional(r.FullOutputPath), Prompt: r.Prompt}
}

func finishedWire(r session.Result) FinishedWire {
	return FinishedWire{ExitCode: r.Exit.Code, Signal: optional(r.Exit.Signal),
		DurationMs: r.Duration.Milliseconds(), TimedOut: r.TimedOut, Output: r.Output, Stderr: r.Stderr,
		Truncated: r.Truncated, FullOutputPath: optional(r.FullOutputPath), Summary: session.Summary(r)}
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
