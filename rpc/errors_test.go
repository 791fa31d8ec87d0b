package rpc

import (
	"testing"

	"github.com/termhelper/termhelper/engine"
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
		engine.FieldID: "id",
	}
	for f, name := range want {
		if got := fieldName(f); got != name {
			t.Errorf("%s is %q on the wire, want %q", f, got, name)
		}
	}
}
