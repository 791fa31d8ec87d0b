//go:build unix

package session

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/termhelper/termhelper/platform"
)

// hold replaces one of the session's slow calls with one that blocks until
// released, so a test can act while it is under way; entered receives once
// per call. Made after the manager and sessions of a test, it is released
// before they are cleaned up.
type hold struct {
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func newHold(t *testing.T) *hold {
	h := &hold{entered: make(chan struct{}, 64), release: make(chan struct{})}
	t.Cleanup(h.open)
	return h
}

func (h *hold) wait() {
	h.entered <- struct{}{}
	<-h.release
}

func (h *hold) open() { h.once.Do(func() { close(h.release) }) }

// swap sets *v to x for the test.
func swap[T any](t *testing.T, v *T, x T) {
	old := *v
	*v = x
	t.Cleanup(func() { *v = old })
}

// echoes answers its input on the terminal, then stays.
const echoes = "read x; echo got-$x; sleep 30"

// takesInput writes a line and waits for the command's reply: the output
// reader has to take the session's lock for it.
func takesInput(t *testing.T, s *Session) {
	t.Helper()
	done := make(chan string, 1)
	go func() {
		if err := s.Write("abc\n", false); err != nil {
			done <- err.Error()
			return
		}
		var out strings.Builder
		for !strings.Contains(out.String(), "got-abc") {
			out.WriteString(s.Answer(AnswerOpts{OnOutput: true, UntilExit: true}).Output)
		}
		done <- out.String()
	}()
	if out := within(t, done); !strings.Contains(out, "got-abc") {
		t.Fatalf("output %q", out)
	}
}

func TestOutputFlowsWhileInfoListsPorts(t *testing.T) {
	m, _ := newManager(t, Config{})
	s := startT(t, m, spec(echoes))
	h := newHold(t)
	swap(t, &listeningPorts, func(p *platform.Process) []int { h.wait(); return nil })
	waitState(t, s, Waiting)
	listed := make(chan Info, 1)
	go func() { listed <- s.Info() }()
	within(t, h.entered)
	takesInput(t, s)
	h.open()
	if in := within(t, listed); in.ID != s.ID() {
		t.Fatalf("info %+v", in)
	}
}

func TestOutputFlowsWhileTheReadyPortIsChecked(t *testing.T) {
	m, _ := newManager(t, Config{})
	sp := spec(echoes)
	sp.Background, sp.ReadyPort = true, 1
	s := startT(t, m, sp)
	h := newHold(t)
	swap(t, &portAccepts, func(int, time.Duration) bool { h.wait(); return false })
	answered := make(chan Result, 1)
	go func() { answered <- s.Answer(AnswerOpts{UntilReady: true, UntilExit: true, Yield: time.Minute}) }()
	within(t, h.entered)
	takesInput(t, s)
	s.Kill(platform.SIGKILL, 0)
	h.open()
	if r := within(t, answered); r.Exit == nil {
		t.Fatalf("the answer after the kill: %+v", r)
	}
}

// A port found open after its session ended is not a ready server: the
// look began before the end and its result is no longer news.
func TestPortCheckAfterTheEndIsDropped(t *testing.T) {
	m, _ := newManager(t, Config{})
	sp := spec("read x")
	sp.Background, sp.ReadyPort = true, 1
	s := startT(t, m, sp)
	h := newHold(t)
	swap(t, &portAccepts, func(int, time.Duration) bool { h.wait(); return true })
	answered := make(chan Result, 1)
	go func() { answered <- s.Answer(AnswerOpts{UntilReady: true, UntilExit: true, Yield: time.Minute}) }()
	within(t, h.entered)
	s.Kill(platform.SIGKILL, 0)
	h.open()
	if r := within(t, answered); r.Exit == nil || r.Ready != nil {
		t.Fatalf("the answer after the end: %+v", r)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ready {
		t.Fatal("ready after the end")
	}
}

func holdStarts(t *testing.T) *hold {
	h := newHold(t)
	swap(t, &startProcess, func(sp platform.Spec) (*platform.Process, error) {
		if strings.Contains(strings.Join(sp.Argv, " "), "slow-start") {
			h.wait()
		}
		return platform.Start(sp)
	})
	return h
}

func TestStartDoesNotHoldTheManager(t *testing.T) {
	m, _ := newManager(t, Config{})
	h := holdStarts(t)
	slow := make(chan *Session, 1)
	go func() { s, _ := m.Start(spec("echo slow-start; sleep 30")); slow <- s }()
	within(t, h.entered)
	// Meanwhile another command starts and ends, and the list is read.
	fast := make(chan Result, 1)
	go func() {
		m.List()
		s, err := m.Start(spec("echo fast"))
		if err != nil {
			fast <- Result{Output: err.Error()}
			return
		}
		fast <- s.Answer(AnswerOpts{})
	}()
	if r := within(t, fast); r.Exit == nil || !strings.Contains(r.Output, "fast") {
		t.Fatalf("fast: %+v", r)
	}
	h.open()
	s := within(t, slow)
	if s == nil {
		t.Fatal("the slow start failed")
	}
	s.Kill(platform.SIGKILL, 0)
}

// Starts under way hold their slots: of six at once under a limit of
// three, three start and three are refused.
func TestSessionLimitHoldsUnderConcurrentStarts(t *testing.T) {
	m, _ := newManager(t, Config{MaxSessions: 3})
	h := holdStarts(t)
	type started struct {
		s   *Session
		err error
	}
	results := make(chan started, 6)
	for range 6 {
		go func() {
			s, err := m.Start(spec("slow-start=1; sleep 30"))
			results <- started{s, err}
		}()
	}
	for range 3 {
		within(t, h.entered)
	}
	for range 3 {
		if r := within(t, results); !errors.Is(r.err, ErrTooMany) {
			t.Fatalf("a start beyond the limit: %+v", r)
		}
	}
	h.open()
	for range 3 {
		r := within(t, results)
		if r.err != nil {
			t.Fatalf("a start within the limit: %v", r.err)
		}
		r.s.Kill(platform.SIGKILL, 0)
	}
}

// Close during a start waits for it, and the process it started is ended.
func TestCloseDuringAStartEndsItsProcess(t *testing.T) {
	m, _ := newManager(t, Config{})
	h := holdStarts(t)
	type started struct {
		s   *Session
		err error
	}
	result := make(chan started, 1)
	go func() {
		s, err := m.Start(spec("slow-start=1; sleep 3017"))
		result <- started{s, err}
	}()
	within(t, h.entered)
	closed := make(chan struct{})
	go func() { m.Close(); close(closed) }()
	waitClosed(t, m)
	h.open()
	r := within(t, result)
	if !errors.Is(r.err, ErrClosed) {
		t.Fatalf("a start that outlived Close: %+v", r)
	}
	within(t, closed)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.starting != 0 || len(m.sessions) != 0 {
		t.Fatalf("%d starts, %d sessions left", m.starting, len(m.sessions))
	}
	if pids := running("sleep 3017"); len(pids) > 0 {
		t.Fatalf("processes left: %v", pids)
	}
}

// running lists the live processes whose command line holds s.
func running(s string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if strings.Contains(strings.ReplaceAll(string(cmd), "\x00", " "), s) && !strings.Contains(string(stat), ") Z") {
			out = append(out, pid)
		}
	}
	return out
}

func waitClosed(t *testing.T, m *Manager) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		m.mu.Lock()
		closed := m.closed
		m.mu.Unlock()
		if closed {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("Close never began")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
