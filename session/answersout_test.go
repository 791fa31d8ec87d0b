//go:build unix

package session

import (
	"sync"
	"testing"
	"time"
)

// exitChecker calls check when a session's exit is notified.
type exitChecker struct {
	recorder
	check func()
}

func (c *exitChecker) Exited(id string, r Result) {
	c.check()
	c.recorder.Exited(id, r)
}

// TestAnswersComeBeforeTheBookkeeping: every answer waiting for a
// session's end has been built before the helper goes on to its
// bookkeeping, of which session/exited is a part.
func TestAnswersComeBeforeTheBookkeeping(t *testing.T) {
	const waiters = 128
	var s *Session
	under := -1
	notified := make(chan struct{})
	rec := &exitChecker{check: func() {
		s.mu.Lock()
		under = s.answering
		s.mu.Unlock()
		close(notified)
	}}
	m := NewManager(Config{}, rec)
	t.Cleanup(m.Close)
	command, open := gated(t, "exit 4")
	s = startT(t, m, spec(command))
	answerWithin(t, s, AnswerOpts{Now: true}) // handed: its exit is notified
	var wg sync.WaitGroup
	for range waiters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Answer(AnswerOpts{UntilExit: true})
		}()
	}
	watchdog := time.After(30 * time.Second)
	for n := 0; n < waiters; {
		select {
		case <-watchdog:
			t.Fatalf("%d of %d answers waiting", n, waiters)
		case <-time.After(time.Millisecond):
		}
		s.mu.Lock()
		n = s.answering
		s.mu.Unlock()
	}
	open()
	select {
	case <-notified:
	case <-watchdog:
		t.Fatal("no session/exited within 30s")
	}
	answered := make(chan struct{})
	go func() { wg.Wait(); close(answered) }()
	select {
	case <-answered:
	case <-watchdog:
		t.Fatal("answers still waiting 30s after the exit")
	}
	if under != 0 {
		t.Fatalf("%d answers still under way at session/exited", under)
	}
}
