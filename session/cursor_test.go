//go:build unix

package session

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/termhelper/termhelper/platform"
)

// readAll reads a session from cursor until it has ended and nothing is
// left after the cursor, and returns what it read.
func readAll(t *testing.T, s *Session, cursor int64) (string, Result) {
	t.Helper()
	var got strings.Builder
	for range 10000 {
		c := cursor
		r := answerWithin(t, s, AnswerOpts{Cursor: &c, OnOutput: true, Yield: 5 * time.Second})
		got.WriteString(r.Output)
		if r.Cursor < cursor {
			t.Fatalf("the cursor went back from %d to %d", cursor, r.Cursor)
		}
		cursor = r.Cursor
		if r.Exit != nil && !r.More {
			return got.String(), r
		}
	}
	t.Fatal("no end after 10000 reads")
	return "", Result{}
}

// TestCursorReadsGiveEveryLineOnce: reads from successive cursors of a
// command printing numbered lines give each line once, and reading a
// cursor again gives the same text; a consuming read in between takes
// nothing from them.
func TestCursorReadsGiveEveryLineOnce(t *testing.T) {
	m, _ := newManager(t, Config{})
	sp := spec("i=1; while [ $i -le 200 ]; do echo line $i; i=$((i+1)); sleep 0.005; done")
	sp.Background = true
	s, err := m.Start(sp)
	if err != nil {
		t.Fatal(err)
	}
	first := answerWithin(t, s, AnswerOpts{Yield: 50 * time.Millisecond})
	if first.Exit == nil && first.Cursor != s.Cursor() {
		t.Fatalf("an answer's cursor %d, the session's %d", first.Cursor, s.Cursor())
	}
	zero := int64(0)
	again := answerWithin(t, s, AnswerOpts{Cursor: &zero, Now: true})
	answerWithin(t, s, AnswerOpts{Now: true}) // a consuming read between
	got, end := readAll(t, s, 0)
	var want strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&want, "line %d\n", i)
	}
	if got != want.String() {
		t.Fatalf("read from cursors:\n%s\nwant lines 1 to 200 once each", got)
	}
	if !strings.HasPrefix(got, again.Output) {
		t.Fatalf("cursor 0 read early gave %q, not a start of %q", again.Output, got[:min(len(got), 200)])
	}
	twice := answerWithin(t, s, AnswerOpts{Cursor: &zero, Now: true})
	if twice.Output != strings.Join(strings.SplitAfter(got, "\n")[:len(strings.SplitAfter(twice.Output, "\n"))-1], "") {
		t.Fatalf("cursor 0 read again after the end: %q", twice.Output)
	}
	if end.Cursor != int64(len(got)) {
		t.Fatalf("the last cursor is %d, the output %d bytes", end.Cursor, len(got))
	}
}

// seqFromZero runs seq 1 n through pipes with a history that keeps at
// least keep bytes, and reads the finished session from cursor 0.
func seqFromZero(t *testing.T, keep, n int) Result {
	t.Helper()
	m, _ := newManager(t, Config{History: keep})
	sp := spec(fmt.Sprintf("seq 1 %d", n))
	sp.PTY = false
	s, err := m.Start(sp)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		t.Fatal("seq did not end within 30s")
	}
	zero := int64(0)
	return answerWithin(t, s, AnswerOpts{Cursor: &zero, Now: true})
}

// holdsSeq checks that the spill file holds seq 1 n whole.
func holdsSeq(t *testing.T, path string, n int) {
	t.Helper()
	full, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(full), "1\n2\n3\n") || !strings.HasSuffix(string(full), fmt.Sprintf("\n%d\n", n)) {
		t.Fatalf("the spill file %q (%v) does not hold the whole output (%d bytes)", path, err, len(full))
	}
}

// TestCursorBeforeKeptHistory: a cursor older than what is kept reads
// from the oldest line kept, says how much it skipped, and names the
// spill file that holds it all.
func TestCursorBeforeKeptHistory(t *testing.T) {
	r := seqFromZero(t, 4096, 30000)
	if r.Skipped == 0 || !r.Truncated || r.Cursor <= r.Skipped {
		t.Fatalf("skipped %d, truncated %v, cursor %d", r.Skipped, r.Truncated, r.Cursor)
	}
	if !strings.HasSuffix(r.Output, "\n30000\n") || len(r.Output) > 4096+blockSize {
		t.Fatalf("read %d bytes ending %q", len(r.Output), r.Output[max(0, len(r.Output)-20):])
	}
	holdsSeq(t, r.FullOutputPath, 30000)
}

// TestCursorStaysWithAKill: the finished answer of a kill carries the
// cursor at the end of the output.
func TestCursorStaysWithAKill(t *testing.T) {
	m, _ := newManager(t, Config{})
	sp := spec("echo started; sleep 30")
	sp.Background = true
	s, err := m.Start(sp)
	if err != nil {
		t.Fatal(err)
	}
	zero := int64(0)
	r := answerWithin(t, s, AnswerOpts{Cursor: &zero, OnOutput: true, Yield: 10 * time.Second})
	if r.Output != "started\n" {
		t.Fatalf("read %q", r.Output)
	}
	k := s.Kill(platform.SIGKILL, 0)
	if k.Cursor != r.Cursor || s.Info().Cursor != r.Cursor {
		t.Fatalf("kill's cursor %d, list's %d, read's %d", k.Cursor, s.Info().Cursor, r.Cursor)
	}
}

// TestHistoryDropOpensTheSpill: output that was never cut (a short
// stream, each window under the cap) still goes to the spill file once
// the history lets its first line go.
func TestHistoryDropOpensTheSpill(t *testing.T) {
	r := seqFromZero(t, 1024, 2500)
	if r.Skipped == 0 || r.FullOutputPath == "" {
		t.Fatalf("skipped %d, spill file %q", r.Skipped, r.FullOutputPath)
	}
	holdsSeq(t, r.FullOutputPath, 2500)
}
