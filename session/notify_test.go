//go:build unix

package session

import (
	"slices"
	"testing"
	"time"
)

// A session that waits, is answered and exits tells the host "waiting"
// before "exited", however slowly the host takes the first notification.
func TestWaitingIsNotifiedBeforeExited(t *testing.T) {
	rec := &recorder{waitingDelay: 30 * time.Millisecond}
	m := NewManager(Config{}, rec)
	defer m.Close()
	for i := range 20 {
		// The gate lets the session be handed over before it waits, so
		// that its waiting is notified.
		command, open := gated(t, "read x; echo got $x")
		s, err := m.Start(spec(command))
		if err != nil {
			t.Fatal(err)
		}
		r := answerWithin(t, s, AnswerOpts{Now: true})
		if r.Exit != nil {
			t.Fatalf("run %d: ended before it waited: %+v", i, r)
		}
		open()
		r = answerWithin(t, s, AnswerOpts{})
		if r.State != Waiting {
			t.Fatalf("run %d: not waiting: %+v", i, r)
		}
		if err := s.Write("x\n", false); err != nil {
			t.Fatal(err)
		}
		if r = answerWithin(t, s, AnswerOpts{UntilExit: true}); r.Exit == nil {
			t.Fatalf("run %d: no exit: %+v", i, r)
		}
		waitEvents(t, rec, s.ID(), 2)
		if got := rec.eventsOf(s.ID()); !slices.Equal(got, []string{"waiting", "exited"}) {
			t.Fatalf("run %d: notifications %v, want [waiting exited]", i, got)
		}
	}
}

// waitEvents waits until n notifications of session id are recorded.
func waitEvents(t *testing.T, rec *recorder, id string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(rec.eventsOf(id)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("session %s: notifications %v, want %d", id, rec.eventsOf(id), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
