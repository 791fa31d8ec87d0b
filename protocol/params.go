package protocol

// RunParams are exec/run's params (PROTOCOL.md section 3).
type RunParams struct {
	Command      string             `json:"command"`
	Cwd          string             `json:"cwd"`
	Env          map[string]*string `json:"env"`
	Mode         string             `json:"mode"`
	Background   bool               `json:"background"`
	TimeoutMs    *int64             `json:"timeoutMs"`
	YieldMs      *int64             `json:"yieldMs"`
	Stderr       string             `json:"stderr"`
	Stdin        *string            `json:"stdin"`
	Cols         int                `json:"cols"`
	Rows         int                `json:"rows"`
	ReadyPattern string             `json:"readyPattern"`
	ReadyPort    int                `json:"readyPort"`
	Sandbox      string             `json:"sandbox"`
}

// SessionParams name a session: session/screen's params, and the field
// every session method has.
type SessionParams struct {
	SessionID *string `json:"sessionId"`
}

// WriteParams are session/write's params.
type WriteParams struct {
	SessionParams
	Input   *string `json:"input"`
	Secret  bool    `json:"secret"`
	YieldMs *int64  `json:"yieldMs"`
}

// ReadParams are session/read's params.
type ReadParams struct {
	SessionParams
	YieldMs  *int64 `json:"yieldMs"`
	Until    string `json:"until"`
	StableMs *int64 `json:"stableMs"`
	Cursor   *int64 `json:"cursor"`
}

// KillParams are session/kill's params.
type KillParams struct {
	SessionParams
	Signal  string `json:"signal"`
	GraceMs *int64 `json:"graceMs"`
}

// ResizeParams are session/resize's params.
type ResizeParams struct {
	SessionParams
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

// CheckParams are policy/check's params.
type CheckParams struct {
	Command *string `json:"command"`
	Cwd     string  `json:"cwd"`
	Sandbox string  `json:"sandbox"`
}

// CheckResult is policy/check's answer: what exec/run would do now, and
// the sandbox mode the command would run in (for "ask": once approved).
type CheckResult struct {
	Decision string   `json:"decision"`
	Reasons  []string `json:"reasons"`
	Sandbox  string   `json:"sandbox"`
}

// RestoreParams are trash/restore's params.
type RestoreParams struct {
	ID *string `json:"id"`
}

// ApprovalParams are approval/request's params, sent to the host. Command,
// Cwd and Reasons are safe to show (control characters escaped);
// ExactCommand is the line as it will run, only where it differs.
//
// Kind is "command" for a command about to run, or "network" for a host a
// running command tries to reach (Host and Port set, no Cwd).
type ApprovalParams struct {
	Kind         string   `json:"kind"`
	Command      string   `json:"command"`
	ExactCommand string   `json:"exactCommand,omitempty"`
	Cwd          string   `json:"cwd,omitempty"`
	Host         string   `json:"host,omitempty"`
	Port         int      `json:"port,omitempty"`
	Reasons      []string `json:"reasons"`
	Planted      []string `json:"planted,omitempty"`
}

// ApprovalResult is the host's answer: "allow", "deny" or "always".
type ApprovalResult struct {
	Decision string `json:"decision"`
}
