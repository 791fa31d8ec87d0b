//go:build unix

package session

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/termhelper/termhelper/platform"
)

// waitUntil polls the session's own state under its lock; the limit is
// only a watchdog.
func waitUntil(t *testing.T, s *Session, what string, cond func(*Session) bool) {
	t.Helper()
	waitFor(t, what, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return cond(s)
	})
}

// waitFor polls cond; the limit is only a watchdog.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within the watchdog", what)
		}
	}
}

// A command being killed is not waiting, though it still sits in its read
// (it ignores SIGTERM): an answer given meanwhile waits for the end.
func TestKilledCommandIsNeverWaiting(t *testing.T) {
	m, _ := newManager(t, Config{})
	s := startT(t, m, spec(`trap '' TERM; read -p 'Continue? ' x; echo took-$x`))
	waitState(t, s, Waiting)
	killed := make(chan Result, 1)
	go func() { killed <- s.Kill(platform.SIGTERM, time.Minute) }()
	waitUntil(t, s, "kill under way", func(s *Session) bool { return s.ending })
	if st := stateOf(s); st != Running {
		t.Fatalf("state %s while the kill is under way", st)
	}
	answered := make(chan Result, 1)
	go func() { answered <- s.Answer(AnswerOpts{}) }()
	// The command still reads: the input ends it, and with it the kill.
	if err := s.Write("yes\n", false); err != nil {
		t.Fatal(err)
	}
	r := within(t, answered)
	if r.Exit == nil || r.KilledBy != "SIGTERM" {
		t.Fatalf("want the finished answer of the killed command: %+v", r)
	}
	within(t, killed)
}

// A command past its timeout answers finished, with TimedOut, even when
// asked for an answer at once while the kill still waits out its grace.
func TestTimedOutCommandAnswersFinished(t *testing.T) {
	m, _ := newManager(t, Config{Grace: time.Minute})
	dir := t.TempDir()
	release := filepath.Join(dir, "release")
	sp := spec(`trap '' TERM; printf 'last line:'; while [ ! -e ` + release + ` ]; do sleep 0.02; done`)
	sp.Timeout = 50 * time.Millisecond
	s := startT(t, m, sp)
	waitUntil(t, s, "the timeout", func(s *Session) bool { return s.timedOut && s.ending })
	answered := make(chan Result, 1)
	go func() { answered <- s.Answer(AnswerOpts{Now: true}) }()
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r := within(t, answered)
	if r.Exit == nil || !r.TimedOut {
		t.Fatalf("want the finished, timed-out answer: %+v", r)
	}
	if got := Summary(r); got != "timed out · 50ms" {
		t.Fatalf("summary %q", got)
	}
}
