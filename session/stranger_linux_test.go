package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/termhelper/termhelper/platform"
	"golang.org/x/sys/unix"
)

// A stranger that holds the command's terminal (here the test itself)
// keeps it open past the command's end: the session still ends, with
// every line the command wrote, the last one too, once.
func TestAStrangerHoldingTheTerminalLosesNoOutput(t *testing.T) {
	m, _ := newManager(t, Config{})
	command, open := gated(t, `seq -f 'n-%g' 2000; echo last-line`)
	s, err := m.Start(spec("tty; " + command))
	if err != nil {
		t.Fatal(err)
	}
	out := answerWithin(t, s, AnswerOpts{OnOutput: true}).Output
	name, _, _ := strings.Cut(out, "\n")
	if !strings.HasPrefix(name, "/dev/") {
		t.Fatalf("the command's terminal: %q", out)
	}
	tty, err := os.OpenFile(name, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	open()
	var whole strings.Builder
	for deadline := time.Now().Add(30 * time.Second); ; {
		r := answerWithin(t, s, AnswerOpts{UntilExit: true})
		whole.WriteString(r.Output)
		if r.Exit != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command did not end with its terminal held")
		}
	}
	text := whole.String()
	if !strings.HasSuffix(text, "n-2000\nlast-line\n") || strings.Count(text, "last-line") != 1 {
		t.Fatalf("the output ends %q", text[max(0, len(text)-200):])
	}
}

// Output the command wrote before the reaper stopped the reads is taken
// in, even when the reader was late: held here in takeIn by the
// session's lock while the rest of the output waits in the terminal.
func TestOutputWaitingAtTheStopIsTakenIn(t *testing.T) {
	m, _ := newManager(t, Config{})
	rest, open2 := gated(t, `for i in $(seq 50); do echo n-$i; done; touch written; exec sleep 30`)
	command, open := gated(t, "echo first-line; "+rest)
	sp := spec(command)
	sp.Dir = t.TempDir()
	sp.Background = true
	s, err := m.Start(sp)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Kill(platform.SIGKILL, 0) })
	s.mu.Lock()
	locked := true
	defer func() {
		if locked {
			s.mu.Unlock()
		}
	}()
	// The reader takes the first line, then waits for the lock.
	open()
	waitFor(t, "reader waiting for the lock", func() bool { return s.inflight.Load() > 0 })
	open2()
	waitFor(t, "end of the command's lines", func() bool {
		_, err := os.Stat(filepath.Join(sp.Dir, "written"))
		return err == nil
	})
	lines := 0
	for i := 1; i <= 50; i++ {
		lines += len(fmt.Sprintf("n-%d\r\n", i))
	}
	waitFor(t, "lines waiting in the terminal", func() bool { return unread(s.proc.Output.(*os.File)) >= lines })
	s.proc.StopReading() // as the reaper does when a stranger keeps the terminal
	s.mu.Unlock()
	locked = false
	r := s.Kill(platform.SIGKILL, 0)
	if r.Exit == nil || !strings.HasPrefix(r.Output, "first-line\nn-1\n") || !strings.HasSuffix(r.Output, "n-49\nn-50\n") {
		t.Fatalf("the answer at the end: %+v", r)
	}
}

// unread is how many bytes the terminal holds for its reader.
func unread(f *os.File) int {
	rc, err := f.SyscallConn()
	if err != nil {
		return -1
	}
	n := -1
	rc.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), unix.TIOCINQ) })
	return n
}
