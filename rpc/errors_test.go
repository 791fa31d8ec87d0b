package rpc

import (
	"encoding/json"
	"testing"

	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/protocol"
)

// TestEveryEngineFieldHasANativeName: an engine error names its field by
// its Go identity; the native protocol must know each one's wire name.
func TestEveryEngineFieldHasANativeName(t *testing.T) {
	want := map[engine.Field]string{
		engine.FieldCommand: "command", engine.FieldMode: "mode", engine.FieldStderr: "stderr",
		engine.FieldTimeoutMs: "timeoutMs", engine.FieldYieldMs: "yieldMs", engine.FieldReadyPattern: "readyPattern",
		engine.FieldReadyPort: "readyPort", engine.FieldBackground: "background", engine.FieldCols: "cols",
		engine.FieldRows: "rows", engine.FieldSessionID: "sessionId", engine.FieldUntil: "until",
		engine.FieldStableMs: "stableMs", engine.FieldSignal: "signal", engine.FieldGraceMs: "graceMs",
		engine.FieldID: "id", engine.FieldSandbox: "sandbox", engine.FieldCursor: "cursor",
	}
	for f, name := range want {
		if got := fieldName(f); got != name {
			t.Errorf("%s is %q on the wire, want %q", f, got, name)
		}
	}
}

// TestSandboxRequiredIsItsOwnCode: a sandbox the config requires and the
// machine lacks is -32007, with the probe's reason in data.
func TestSandboxRequiredIsItsOwnCode(t *testing.T) {
	we := wireError(&engine.SandboxError{Reason: "no Landlock here"})
	if we.Code != protocol.CodeSandboxRequired {
		t.Fatalf("code %d, want %d", we.Code, protocol.CodeSandboxRequired)
	}
	var data protocol.SandboxRequiredData
	if we.Data == nil || json.Unmarshal(*we.Data, &data) != nil || data.Reason != "no Landlock here" {
		t.Fatalf("data %v", we.Data)
	}
}
