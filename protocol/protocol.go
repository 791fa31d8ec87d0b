// Package protocol holds termhelper's native wire shapes (PROTOCOL.md):
// the params and results of every method, the notifications, the error
// codes and their data, with the JSON names a host sees. The engine
// speaks Go; this package is where its values get their native names, so
// that no other front end inherits them.
package protocol

// Methods and notifications of the native protocol.
const (
	MethodInitialize   = "initialize"
	MethodShutdown     = "shutdown"
	MethodExit         = "exit"
	MethodRun          = "exec/run"
	MethodWrite        = "session/write"
	MethodRead         = "session/read"
	MethodKill         = "session/kill"
	MethodList         = "session/list"
	MethodResize       = "session/resize"
	MethodScreen       = "session/screen"
	MethodCheck        = "policy/check"
	MethodTrashList    = "trash/list"
	MethodTrashRestore = "trash/restore"
	MethodApproval     = "approval/request" // the helper asks the host
	MethodCancel       = "$/cancelRequest"  // either side gives up on a request
	MethodPing         = "$/ping"           // the host is there (a notification, or a request answered null)

	NotifyExited  = "session/exited"
	NotifyWaiting = "session/waiting"
	NotifyOutput  = "session/output"
)

// Application error codes (PROTOCOL.md section 10).
const (
	CodeNoSession       = -32001
	CodeOutsideRoot     = -32002
	CodeBlocked         = -32003
	CodeNotApproved     = -32004
	CodeStartFailed     = -32005
	CodeTooMany         = -32006
	CodeSandboxRequired = -32007
	CodeHelperRefused   = -32008 // --persist: the background helper refused this connection
	CodeCancelled       = -32800 // the host cancelled the request
)

// Version is the native protocol's version, answered at initialize.
const Version = 1

// ReasonsData is the data of -32003 and -32004: the policy's reasons.
type ReasonsData struct {
	Reasons []string `json:"reasons"`
}

// SandboxRequiredData is the data of -32007: why this machine has no
// sandbox.
type SandboxRequiredData struct {
	Reason string `json:"reason"`
}

// StartFailedData is the data of -32005: the OS error.
type StartFailedData struct {
	Error string `json:"error"`
}
