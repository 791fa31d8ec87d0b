package session

import (
	"fmt"
	"strings"
	"testing"
)

// TestHistoryCursorsCountEveryByte: the cursor after a read is where the
// next read begins, and reads from successive cursors give every line
// once, in order, whatever the cap cuts.
func TestHistoryCursorsCountEveryByte(t *testing.T) {
	h := newHistory(1 << 20)
	var want strings.Builder
	for i := range 1000 {
		l := fmt.Sprintf("line %d", i)
		h.add(l, false)
		want.WriteString(l + "\n")
	}
	var got strings.Builder
	var cursor int64
	for reads := 0; ; reads++ {
		sp := h.read(cursor, 200)
		if sp.skipped != 0 {
			t.Fatalf("skipped %d of a history that keeps everything", sp.skipped)
		}
		got.WriteString(sp.output.String())
		if n := len([]rune(sp.output.String())); n > 200 {
			t.Fatalf("a read of %d characters past a cap of 200", n)
		}
		cursor = sp.next
		if !sp.more {
			break
		}
	}
	if got.String() != want.String() {
		t.Fatalf("reads from cursors gave %d bytes, want %d", got.Len(), want.Len())
	}
	if cursor != h.end || cursor != int64(want.Len()) {
		t.Fatalf("last cursor %d, end %d, bytes %d", cursor, h.end, want.Len())
	}
	again := h.read(0, 40)
	if first := h.read(0, 40); first.output.String() != again.output.String() || first.next != again.next {
		t.Fatalf("the same cursor read twice differs: %q then %q", first.output.String(), again.output.String())
	}
}

// TestHistoryIsBoundedAndSaysWhatItDropped: past its bound the history
// drops whole lines from the front; a cursor before what is kept reads
// from the oldest kept line and says how many bytes it skipped.
func TestHistoryIsBoundedAndSaysWhatItDropped(t *testing.T) {
	h := newHistory(100)
	for i := range 100 {
		h.add(fmt.Sprintf("%04d", i), false) // 5 bytes a line
	}
	if h.bytes < 100 || h.bytes > 105 {
		t.Fatalf("kept %d bytes, want the last 100 at least and one line more at most", h.bytes)
	}
	if len(h.lines)-h.first != h.bytes/5 {
		t.Fatalf("%d lines kept for %d bytes", len(h.lines)-h.first, h.bytes)
	}
	sp := h.read(0, 16000)
	if sp.skipped != h.start || h.start != 500-int64(h.bytes) {
		t.Fatalf("skipped %d, start %d", sp.skipped, h.start)
	}
	if !strings.HasPrefix(sp.output.String(), fmt.Sprintf("%04d\n", h.start/5)) || !strings.HasSuffix(sp.output.String(), "0099\n") {
		t.Fatalf("read %q", sp.output.String())
	}
	if end := h.read(h.end, 100); end.output.Len() != 0 || end.more || end.next != h.end {
		t.Fatalf("a read at the end: %+v", end)
	}
}

// TestHistoryOneCursorCoversBothStreams: stdout's and stderr's lines share
// one sequence; a read splits them again.
func TestHistoryOneCursorCoversBothStreams(t *testing.T) {
	h := newHistory(1 << 20)
	h.add("out 1", false)
	h.add("err 1", true)
	h.add("out 2", false)
	mid := h.read(0, 16000)
	if mid.output.String() != "out 1\nout 2\n" || mid.stderr.String() != "err 1\n" || mid.next != 18 {
		t.Fatalf("read %q and %q to %d", mid.output.String(), mid.stderr.String(), mid.next)
	}
	sp := h.read(6, 16000)
	if sp.output.String() != "out 2\n" || sp.stderr.String() != "err 1\n" {
		t.Fatalf("from the second line: %q and %q", sp.output.String(), sp.stderr.String())
	}
}

// TestHistoryCursorInsideALine reads from where a cursor points, at the
// next whole character.
func TestHistoryCursorInsideALine(t *testing.T) {
	h := newHistory(1 << 20)
	h.add("héllo", false)
	if got := h.read(2, 100).output.String(); got != "llo\n" {
		t.Fatalf("from inside é: %q", got)
	}
}
