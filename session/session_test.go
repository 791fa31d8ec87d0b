//go:build unix

package session

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/termhelper/termhelper/platform"
)

// recorder is a Notifier that keeps what it is told, in order.
type recorder struct {
	mu     sync.Mutex
	exited []string
	events []string // "waiting 3", "exited 3"
	output map[string]*strings.Builder
	// waitingDelay slows the delivery of session/waiting, as a host
	// stream that is busy would.
	waitingDelay time.Duration
}

func (r *recorder) Exited(id string, _ Result) {
	r.mu.Lock()
	r.exited = append(r.exited, id)
	r.events = append(r.events, "exited "+id)
	r.mu.Unlock()
}

func (r *recorder) Waiting(id string, _ Prompt) {
	time.Sleep(r.waitingDelay)
	r.mu.Lock()
	r.events = append(r.events, "waiting "+id)
	r.mu.Unlock()
}

func (r *recorder) Output(id, _, data string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.output == nil {
		r.output = map[string]*strings.Builder{}
	}
	if r.output[id] == nil {
		r.output[id] = &strings.Builder{}
	}
	r.output[id].WriteString(data)
}

// eventsOf returns the notifications recorded for session id.
func (r *recorder) eventsOf(id string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if strings.HasSuffix(e, " "+id) {
			out = append(out, strings.TrimSuffix(e, " "+id))
		}
	}
	return out
}

// outputOf returns the session/output text recorded for session id.
func (r *recorder) outputOf(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if b := r.output[id]; b != nil {
		return b.String()
	}
	return ""
}

func spec(command string) Spec {
	return Spec{Command: command, Spec: platform.Spec{Argv: platform.ShellArgv("", command), Dir: os.TempDir(),
		Env: os.Environ(), PTY: true, Cols: 80, Rows: 24}}
}

// answerWithin guards every wait on a session.
func answerWithin(t *testing.T, s *Session, o AnswerOpts) Result {
	t.Helper()
	ch := make(chan Result, 1)
	go func() { ch <- s.Answer(o) }()
	select {
	case r := <-ch:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("no answer within 30s")
	}
	return Result{}
}

func TestManySessionsLeakNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	m, rec := newManager(t, Config{})
	var sessions []*Session
	// A line a second: 50 loops that each start a sleep every 20 ms
	// would take more than two cores where starting a process is slow.
	for i := range 50 {
		sp := spec(fmt.Sprintf("while :; do echo %d; sleep 1; done", i))
		sp.Background = true
		s, err := m.Start(sp)
		if err != nil {
			t.Fatal(err)
		}
		if r := answerWithin(t, s, AnswerOpts{Yield: 10 * time.Millisecond}); r.Exit != nil {
			t.Fatalf("session %d ended: %+v", i, r)
		}
		sessions = append(sessions, s)
	}
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := s.Kill(platform.SIGTERM, time.Second); r.Exit == nil {
				t.Errorf("kill answered alive: %+v", r)
			}
		}()
	}
	wg.Wait()
	m.Close()
	rec.mu.Lock()
	if len(rec.exited) != 50 {
		t.Errorf("%d exited notifications, want 50", len(rec.exited))
	}
	rec.mu.Unlock()
	deadline := time.Now().Add(30 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines left (was %d):\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

func TestLongRunningOutputStaysBounded(t *testing.T) {
	m, _ := newManager(t, Config{})
	sp := spec("seq 1 300000; sleep 30")
	sp.Background = true
	s, err := m.Start(sp)
	if err != nil {
		t.Fatal(err)
	}
	r := answerWithin(t, s, AnswerOpts{Yield: 10 * time.Millisecond})
	// Let it print everything while nobody reads.
	deadline := time.Now().Add(60 * time.Second)
	for {
		s.mu.Lock()
		last := s.out.clean.LastLine()
		s.mu.Unlock()
		if last == "300000" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the last line is still %q: 300,000 lines never came", last)
		}
		time.Sleep(20 * time.Millisecond)
	}
	r = answerWithin(t, s, AnswerOpts{Now: true})
	if len([]rune(r.Output)) > 16000 {
		t.Fatalf("a read after a long silence is %d characters", len([]rune(r.Output)))
	}
	if !r.Truncated || r.FullOutputPath == "" || !strings.Contains(r.Output, r.FullOutputPath) {
		t.Fatalf("the read must say what was skipped and where it is: truncated=%v path=%q", r.Truncated, r.FullOutputPath)
	}
	if !strings.HasSuffix(strings.TrimSpace(r.Output), "300000") {
		t.Fatalf("the newest text is kept: %q", r.Output[len(r.Output)-40:])
	}
	s.Kill(platform.SIGKILL, 0)
}

func TestLooksLikePrompt(t *testing.T) {
	for line, want := range map[string]bool{
		"Password: ": true, "Continue? [Y/n]": true, ">>> ": true, "$ ": true, "name:": true,
		"building...": false, "": false, "done": false, "Compiling foo v0.1": false,
	} {
		if got := LooksLikePrompt(line); got != want {
			t.Errorf("LooksLikePrompt(%q) = %v", line, got)
		}
	}
}

func TestSummary(t *testing.T) {
	ex := func(code int, sig string) *platform.Exit { return &platform.Exit{Code: code, Signal: sig} }
	for _, tc := range []struct {
		r    Result
		want string
	}{
		{Result{Exit: ex(0, ""), Duration: 412 * time.Millisecond}, "exit 0 · 412ms"},
		{Result{Exit: ex(2, ""), Duration: 1300 * time.Millisecond}, "exit 2 · 1.3s"},
		{Result{Exit: ex(143, "SIGTERM"), TimedOut: true, Timeout: time.Minute}, "timed out · 60000ms"},
		{Result{Exit: ex(143, "SIGTERM"), KilledBy: "SIGTERM", Duration: 5100 * time.Millisecond}, "killed (SIGTERM) · 5.1s"},
		{Result{Exit: ex(139, "SIGSEGV"), Duration: time.Millisecond}, "exit 139 (SIGSEGV) · 1ms"},
	} {
		if got := Summary(tc.r); got != tc.want {
			t.Errorf("Summary = %q, want %q", got, tc.want)
		}
	}
}
