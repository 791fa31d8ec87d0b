//go:build unix

package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gatedSpec runs until the file it returns appears, under a renewing cap.
func gatedSpec(t *testing.T, limit time.Duration) (Spec, string) {
	release := filepath.Join(t.TempDir(), "release")
	sp := spec(`while [ ! -e ` + release + ` ]; do sleep 0.02; done; echo done`)
	sp.Timeout, sp.TimeoutRenews = limit, true
	return sp, release
}

// A yielded command whose cap renews outlives that cap while calls keep
// coming, each answer saying when it would end, and then ends on its own.
func TestRenewingCapOutlivesItsCapWhilePolled(t *testing.T) {
	m, _ := newManager(t, Config{})
	const limit = 1500 * time.Millisecond
	sp, release := gatedSpec(t, limit)
	s := startT(t, m, sp)
	start := time.Now()
	for time.Since(start) < 3*limit {
		r := s.Answer(AnswerOpts{Yield: limit / 4})
		if r.Exit != nil {
			t.Fatalf("ended at %s under a cap of %s while polled: %s", time.Since(start), limit, Summary(r))
		}
		if !r.Renews || r.EndsIn <= 0 || r.EndsIn > limit {
			t.Fatalf("an alive answer says when the cap ends it: ends in %s, renews %v", r.EndsIn, r.Renews)
		}
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r := s.Answer(AnswerOpts{UntilExit: true})
	if r.Exit == nil || r.TimedOut || !strings.Contains(r.Output, "done") {
		t.Fatalf("want its own end: %+v", r)
	}
}

// A yielded command nobody calls on any more is ended by its cap, counted
// from the last call, and says so.
func TestRenewingCapEndsAForgottenCommand(t *testing.T) {
	m, _ := newManager(t, Config{Grace: 100 * time.Millisecond})
	sp, _ := gatedSpec(t, 500*time.Millisecond)
	s := startT(t, m, sp)
	if r := s.Answer(AnswerOpts{Now: true}); r.Exit != nil {
		t.Fatalf("ended before its first answer: %+v", r)
	}
	waitUntil(t, s, "the cap", func(s *Session) bool { return s.exit != nil })
	r := s.Answer(AnswerOpts{Now: true})
	if !r.TimedOut || !r.Renews || Summary(r) != "timed out · 500ms without a call" {
		t.Fatalf("want the forgotten command timed out: %q %+v", Summary(r), r)
	}
}

// A cap that does not renew (a timeout the host set) ends the command at
// its cap from the start, however often it is polled.
func TestFixedCapIsNotRenewed(t *testing.T) {
	m, _ := newManager(t, Config{Grace: 100 * time.Millisecond})
	sp, _ := gatedSpec(t, 500*time.Millisecond)
	sp.TimeoutRenews = false
	s := startT(t, m, sp)
	for {
		r := s.Answer(AnswerOpts{Yield: 100 * time.Millisecond})
		if r.Exit != nil {
			if !r.TimedOut || r.Renews || Summary(r) != "timed out · 500ms" {
				t.Fatalf("want timed out at the fixed cap: %q", Summary(r))
			}
			return
		}
		if r.Renews {
			t.Fatalf("a fixed cap does not renew: %+v", r)
		}
	}
}

// A call that waits on a handed-over command for its end (until exit,
// with no yield) keeps it alive however long it runs: the host is waiting
// on it, and the cap counts only once nobody is.
func TestRenewingCapDoesNotEndACommandWaitedOn(t *testing.T) {
	m, _ := newManager(t, Config{Grace: 100 * time.Millisecond})
	const limit = 300 * time.Millisecond
	sp, release := gatedSpec(t, limit)
	s := startT(t, m, sp)
	if r := s.Answer(AnswerOpts{Now: true}); r.Exit != nil || !r.Renews {
		t.Fatalf("want it handed over alive under a renewing cap: %+v", r)
	}
	got := make(chan Result, 1)
	go func() { got <- s.Answer(AnswerOpts{UntilExit: true}) }()
	select {
	case r := <-got:
		t.Fatalf("ended while a call waited on it: %q", Summary(r))
	case <-time.After(5 * limit):
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-got:
		if r.Exit == nil || r.TimedOut || !strings.Contains(r.Output, "done") {
			t.Fatalf("want its own end: %q %+v", Summary(r), r)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no answer within the watchdog")
	}
}
