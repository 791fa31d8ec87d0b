package protocol

import "github.com/termhelper/termhelper/sandbox"

// InitializeParams are initialize's params (PROTOCOL.md section 2).
type InitializeParams struct {
	ClientInfo   *ClientInfo  `json:"clientInfo"`
	Capabilities Capabilities `json:"capabilities"`
	Trusted      *bool        `json:"trusted"` // absent: trusted
	// HeartbeatMs asks the helper to count a host that sends nothing
	// for three such periods as gone; absent or 0: never.
	HeartbeatMs *int64 `json:"heartbeatMs"`
}

// ClientInfo names the host.
type ClientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Capabilities are what the host can do.
type Capabilities struct {
	Approval     bool `json:"approval"`     // it answers approval/request
	OutputStream bool `json:"outputStream"` // it wants session/output
}

// InitializeResult is initialize's answer. Its fields are in the order
// of their names, as the helper has always written them.
type InitializeResult struct {
	Limits          Limits   `json:"limits"`
	Platform        Platform `json:"platform"`
	ProtocolVersion int      `json:"protocolVersion"`
	// Restored lists the sessions the helper held for the root before
	// this connection, as session/list does: always empty for a helper
	// that lives and dies with its connection.
	Restored   []Row         `json:"restored"`
	Root       string        `json:"root"`
	Sandbox    SandboxStatus `json:"sandbox"`
	ServerInfo ServerInfo    `json:"serverInfo"`
	// Warnings are what the helper found at start that a person should
	// know: keys of the project's config ignored because they would have
	// widened it, processes that cannot be held as the platform would.
	Warnings []string `json:"warnings,omitempty"`
}

// SandboxStatus is how commands are confined here (PROTOCOL.md section
// 7a): the mode and network in force, the mechanism, and why what was
// asked for could not be had (null when it all is).
type SandboxStatus struct {
	Mode    string  `json:"mode"`
	Backend string  `json:"backend"`
	Network string  `json:"network"`
	Reason  *string `json:"reason"`
	// Limits names the caps on a confined command that hold here, and
	// how; a cap that cannot is in Reason.
	Limits []string `json:"limits,omitempty"`
}

// SandboxStatusOf is a probed status on the wire, with the caps that
// hold.
func SandboxStatusOf(st sandbox.Status, limits []string) SandboxStatus {
	return SandboxStatus{Mode: string(st.Mode), Backend: st.Backend, Network: string(st.Network), Reason: optional(st.Reason),
		Limits: limits}
}

// ServerInfo names the helper.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Limits are the caps commands run under.
type Limits struct {
	TimeoutMs      int `json:"timeoutMs"`
	MaxStreamChars int `json:"maxStreamChars"`
	MaxLineChars   int `json:"maxLineChars"`
}

// Platform says where commands run.
type Platform struct {
	OS    string `json:"os"`
	Arch  string `json:"arch"`
	Shell string `json:"shell"`
	PTY   string `json:"pty"`
}

// CancelParams are $/cancelRequest's params.
type CancelParams struct {
	ID any `json:"id"`
}
