//go:build unix

package session

import (
	"os"
	"testing"
	"time"
)

// TestStopDuringSaveGap: the helper's exit does not wait out the pause
// between two writes of the state file.
func TestStopDuringSaveGap(t *testing.T) {
	old := saveGap
	saveGap = time.Hour
	t.Cleanup(func() { saveGap = old })
	// No cleanup closes m: where the stop waits out the gap, Close would
	// too, and the failure would be a hang.
	m := NewManager(Config{}, &recorder{})
	if _, err := m.EnableState(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	m.markDirty()
	watchdog := time.After(30 * time.Second)
	for len(m.dirty) > 0 { // the saver took it: it writes, then waits the gap
		select {
		case <-watchdog:
			t.Fatal("the saver never took the change")
		case <-time.After(time.Millisecond):
		}
	}
	stopped := make(chan struct{})
	go func() { m.removeState(); close(stopped) }()
	select {
	case <-stopped:
	case <-watchdog:
		t.Fatal("removeState waits out the gap between writes")
	}
	m.Close()
	if _, err := os.Stat(m.stateFile); !os.IsNotExist(err) {
		t.Fatalf("state file left: %v", err)
	}
}
