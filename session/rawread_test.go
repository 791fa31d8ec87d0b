//go:build unix

package session

import (
	"testing"
	"time"

	"github.com/termhelper/termhelper/platform"
)

// The rule over time, as the monitor applies it to what the kernel shows:
// a server that logs between its reads of keys stays a listener, though
// the kernel saw it busy in between; a command that fell silent in raw
// mode after a prompt-like line is asking.
func TestRawReadsOverTime(t *testing.T) {
	m, _ := newManager(t, Config{})
	for _, c := range []struct {
		name, line string
		logs       bool
		want       bool
	}{
		{"a listener that logs", "request from 127.0.0.1:", true, false},
		{"a silent prompt", "Name:", false, true},
	} {
		sp := spec("printf '" + c.line + "\\n'; sleep 30")
		sp.Background = true
		s := startT(t, m, sp)
		waitUntil(t, s, "the line", func(s *Session) bool { return s.out.clean.LastLine() == c.line })
		listening := platform.InputState{Known: true, Waiting: true, Raw: true}
		busy := platform.InputState{Known: true, Raw: true}
		s.mu.Lock()
		t0 := time.Now()
		s.rawSince, s.lastOutput = time.Time{}, t0.Add(-time.Second)
		s.waitingLocked(listening, t0)
		if c.logs {
			s.lastOutput = t0.Add(time.Second)
		}
		s.waitingLocked(busy, t0.Add(2*time.Second))
		got := s.waitingLocked(listening, t0.Add(10*time.Second))
		s.mu.Unlock()
		if got != c.want {
			t.Errorf("%s: waiting %v, want %v", c.name, got, c.want)
		}
	}
}
