package session

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Input written to a command waiting on a read that has not run since
// (a slow machine: the reader is not yet scheduled; here it is stopped)
// does not make it waiting again: the read seen is the one the input has
// not yet woken, not a second prompt.
func TestInputNotYetTakenIsNoSecondPrompt(t *testing.T) {
	m, rec := newManager(t, Config{})
	command, open := gated(t, "read x; echo got $x")
	s, err := m.Start(spec(command))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(s.proc.Pid, syscall.SIGCONT) })
	if r := answerWithin(t, s, AnswerOpts{Now: true}); r.Exit != nil {
		t.Fatalf("ended before it waited: %+v", r)
	}
	open()
	if r := answerWithin(t, s, AnswerOpts{}); r.State != Waiting {
		t.Fatalf("not waiting: %+v", r)
	}
	if err := syscall.Kill(s.proc.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped(t, s.proc.Pid)
	if err := s.Write("x\n", false); err != nil {
		t.Fatal(err)
	}
	time.Sleep(8 * pollInterval) // the monitor looks again and again, well within untakenWait
	if st := stateOf(s); st == Waiting {
		t.Errorf("waiting again on input it has not yet taken")
	}
	if err := syscall.Kill(s.proc.Pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if r := answerWithin(t, s, AnswerOpts{UntilExit: true}); r.Exit == nil || r.Output == "" {
		t.Fatalf("no exit: %+v", r)
	}
	waitEvents(t, rec, s.ID(), 2)
	if got := rec.eventsOf(s.ID()); !slices.Equal(got, []string{"waiting", "exited"}) {
		t.Errorf("notifications %v, want [waiting exited]", got)
	}
}

// stopped waits until pid has stopped: a stop signal is taken by its
// process when next it runs, which on a busy machine is later.
func stopped(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			t.Fatal(err)
		}
		if i := strings.LastIndex(string(b), ") "); i >= 0 && strings.HasPrefix(string(b[i+2:]), "T") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d did not stop within 30s: %s", pid, b)
		}
		time.Sleep(time.Millisecond)
	}
}
