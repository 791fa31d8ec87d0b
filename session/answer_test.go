//go:build unix

package session

import (
	"bytes"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/termhelper/termhelper/platform"
)

func startT(t *testing.T, m *Manager, sp Spec) *Session {
	t.Helper()
	s, err := m.Start(sp)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Kill(platform.SIGKILL, 0) })
	return s
}

func newManager(t *testing.T, cfg Config) (*Manager, *recorder) {
	rec := &recorder{}
	m := NewManager(cfg, rec)
	t.Cleanup(m.Close)
	return m, rec
}

// stateOf reads the session's state as the state machine holds it.
func stateOf(s *Session) State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

func waitState(t *testing.T, s *Session, want State) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for stateOf(s) != want {
		if time.Now().After(deadline) {
			t.Fatalf("state %s, want %s", stateOf(s), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestAnswerYieldGivesAliveRunning(t *testing.T) {
	m, _ := newManager(t, Config{})
	s := startT(t, m, spec("sleep 30"))
	r := answerWithin(t, s, AnswerOpts{Yield: 20 * time.Millisecond})
	if r.Exit != nil || r.State != Running || r.ID != s.ID() || r.Pid == 0 {
		t.Fatalf("want alive and running: %+v", r)
	}
}

func TestAnswerNowDoesNotWait(t *testing.T) {
	m, _ := newManager(t, Config{})
	s := startT(t, m, spec("sleep 30"))
	if r := answerWithin(t, s, AnswerOpts{Now: true, UntilExit: true}); r.Exit != nil || r.State != Running {
		t.Fatalf("want alive at once: %+v", r)
	}
}

func TestAnswerOnOutputComesWithTheOutput(t *testing.T) {
	m, _ := newManager(t, Config{})
	s := startT(t, m, spec("sleep 0.1; echo first-line; sleep 30"))
	r := answerWithin(t, s, AnswerOpts{OnOutput: true, UntilExit: true})
	if r.Exit != nil || !strings.Contains(r.Output, "first-line") {
		t.Fatalf("want alive with the new output: %+v", r)
	}
}

func TestAnswerWaitingShowsThePrompt(t *testing.T) {
	m, _ := newManager(t, Config{})
	s := startT(t, m, spec("printf 'name? '; read x; echo hello $x"))
	r := answerWithin(t, s, AnswerOpts{})
	if r.State != Waiting || r.Prompt == nil || r.Prompt.Text != "name?" || r.Prompt.Secret {
		t.Fatalf("want waiting on the prompt: %+v prompt %+v", r, r.Prompt)
	}
	if err := s.Write("ann\n", false); err != nil {
		t.Fatal(err)
	}
	r = answerWithin(t, s, AnswerOpts{UntilExit: true})
	if r.Exit == nil || r.Exit.Code != 0 || !strings.Contains(r.Output, "hello ann") {
		t.Fatalf("want finished with the greeting: %+v", r)
	}
}

// UntilExit lets a prompt pass: the answer is the exit.
func TestAnswerUntilExitIgnoresPrompts(t *testing.T) {
	m, _ := newManager(t, Config{})
	s := startT(t, m, spec("read x; echo got $x"))
	ch := make(chan Result, 1)
	go func() { ch <- s.Answer(AnswerOpts{UntilExit: true}) }()
	waitState(t, s, Waiting)
	select {
	case r := <-ch:
		t.Fatalf("answered at the prompt: %+v", r)
	case <-time.After(200 * time.Millisecond):
	}
	if err := s.Write("y\n", false); err != nil {
		t.Fatal(err)
	}
	r := within(t, ch)
	if r.Exit == nil || !strings.Contains(r.Output, "got y") {
		t.Fatalf("want the exit: %+v", r)
	}
}

func TestAnswerFinished(t *testing.T) {
	m, _ := newManager(t, Config{})
	s := startT(t, m, spec("echo bye; exit 3"))
	r := answerWithin(t, s, AnswerOpts{})
	if r.Exit == nil || r.Exit.Code != 3 || r.State != Exited || !strings.Contains(r.Output, "bye") {
		t.Fatalf("want finished with code 3: %+v", r)
	}
	if Summary(r) == "" || r.Duration <= 0 {
		t.Fatalf("no summary or duration: %+v", r)
	}
}

// A session the host never heard of is forgotten with its finished answer.
func TestAnswerForgetsUnhandedSession(t *testing.T) {
	m, rec := newManager(t, Config{})
	s := startT(t, m, spec("exit 0"))
	if r := answerWithin(t, s, AnswerOpts{}); r.Exit == nil {
		t.Fatalf("want finished: %+v", r)
	}
	if _, err := m.Get(s.ID()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("an unhanded session lingers: %v", err)
	}
	if got := rec.eventsOf(s.ID()); len(got) != 0 {
		t.Fatalf("the host was told of a session it never saw: %v", got)
	}
}

// A handed session stays readable after its end, for Linger.
func TestHandedSessionLingers(t *testing.T) {
	// Longer than the test: a short Linger could pass before the checks.
	m, rec := newManager(t, Config{Linger: time.Hour})
	s := handedAndFinished(t, m)
	if _, err := m.Get(s.ID()); err != nil {
		t.Fatalf("a handed session must linger: %v", err)
	}
	waitEvents(t, rec, s.ID(), 1)
	again := answerWithin(t, s, AnswerOpts{})
	if again.Exit == nil || again.Exit.Code != 0 {
		t.Fatalf("a late read must get the exit: %+v", again)
	}
}

// A handed session is forgotten once Linger has passed.
func TestHandedSessionGoesAfterLinger(t *testing.T) {
	m, _ := newManager(t, Config{Linger: 300 * time.Millisecond})
	s := handedAndFinished(t, m)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := m.Get(s.ID()); errors.Is(err, ErrNotFound) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the lingering session was never forgotten")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// handedAndFinished runs a session that is handed to the host while it
// runs, and returns it once it has exited.
func handedAndFinished(t *testing.T, m *Manager) *Session {
	t.Helper()
	command, open := gated(t, "echo late")
	s := startT(t, m, spec(command))
	if r := answerWithin(t, s, AnswerOpts{Now: true}); r.Exit != nil {
		t.Fatalf("want alive: %+v", r)
	}
	open()
	if r := answerWithin(t, s, AnswerOpts{UntilExit: true}); r.Exit == nil {
		t.Fatalf("want finished: %+v", r)
	}
	return s
}

// Close stops the timers that would forget lingering sessions.
func TestCloseStopsLingerTimers(t *testing.T) {
	m, rec := newManager(t, Config{Linger: time.Hour})
	command, open := gated(t, "true")
	s := startT(t, m, spec(command))
	answerWithin(t, s, AnswerOpts{Now: true})
	open()
	answerWithin(t, s, AnswerOpts{UntilExit: true})
	waitEvents(t, rec, s.ID(), 1)
	timers := func() int {
		m.mu.Lock()
		defer m.mu.Unlock()
		return len(m.lingering)
	}
	deadline := time.Now().Add(30 * time.Second)
	for timers() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("%d linger timers, want 1", timers())
		}
		time.Sleep(5 * time.Millisecond)
	}
	m.Close()
	if n := timers(); n != 0 {
		t.Fatalf("%d linger timers left after Close", n)
	}
}

// A closed Done ends the wait with the answer as things stand; the
// session goes on.
func TestAnswerDoneEndsTheWaitNotTheSession(t *testing.T) {
	m, _ := newManager(t, Config{})
	s := startT(t, m, spec("sleep 30"))
	done := make(chan struct{})
	ch := make(chan Result, 1)
	go func() { ch <- s.Answer(AnswerOpts{UntilExit: true, Done: done}) }()
	close(done)
	r := within(t, ch)
	if r.Exit != nil || r.State != Running {
		t.Fatalf("want alive: %+v", r)
	}
	if st := stateOf(s); st != Running {
		t.Fatalf("the session ended with the wait: %s", st)
	}
	if !s.proc.Alive() {
		t.Fatal("the command was ended with the wait")
	}
}

func TestAnswerDoneOnAFinishedSessionIsFinished(t *testing.T) {
	m, _ := newManager(t, Config{})
	s := startT(t, m, spec("exit 4"))
	<-s.done
	done := make(chan struct{})
	close(done)
	if r := answerWithin(t, s, AnswerOpts{UntilExit: true, Done: done}); r.Exit == nil || r.Exit.Code != 4 {
		t.Fatalf("want finished: %+v", r)
	}
}

func TestInitialInputIsWritten(t *testing.T) {
	m, _ := newManager(t, Config{})
	for _, pty := range []bool{true, false} {
		sp := spec("read x; echo got-$x")
		sp.PTY = pty
		sp.Stdin = []byte("abc\n")
		s := startT(t, m, sp)
		if r := answerWithin(t, s, AnswerOpts{UntilExit: true}); r.Exit == nil || !strings.Contains(r.Output, "got-abc") {
			t.Fatalf("pty %v: %+v", pty, r)
		}
	}
}

// The writer of an input the command never reads is owned by the session:
// it has ended when Close returns, and its error is logged.
func TestInitialInputWriterIsOwned(t *testing.T) {
	var buf syncBuffer
	m, _ := newManager(t, Config{Log: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	sp := spec("exit 0")
	sp.PTY = false
	sp.Stdin = bytes.Repeat([]byte("x"), 1<<20) // more than a pipe holds
	s, err := m.Start(sp)
	if err != nil {
		t.Fatal(err)
	}
	answerWithin(t, s, AnswerOpts{UntilExit: true})
	m.Close()
	stacks := make([]byte, 1<<20)
	stacks = stacks[:runtime.Stack(stacks, true)]
	if bytes.Contains(stacks, []byte("WriteInitial")) {
		t.Fatalf("the input writer outlived Close:\n%s", stacks)
	}
	if !strings.Contains(buf.String(), "initial input not written") {
		t.Fatalf("the writer's error was not logged: %q", buf.String())
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func within[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatal("nothing within 30s")
	}
	var zero T
	return zero
}
