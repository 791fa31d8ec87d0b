package session

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/termhelper/termhelper/cleaner"
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
// drops whole blocks of lines from the front; a cursor before what is
// kept reads from the oldest kept line and says how many bytes it
// skipped.
func TestHistoryIsBoundedAndSaysWhatItDropped(t *testing.T) {
	h := newHistory(10000)
	dropped := 0
	h.dropped = func() { dropped++ }
	for i := range 20000 {
		h.add(fmt.Sprintf("%04d", i%10000), false) // 5 bytes a line
	}
	if h.bytes < 10000 || h.bytes > 10000+blockSize {
		t.Fatalf("kept %d bytes, want the last 10000 at least and a block more at most", h.bytes)
	}
	if dropped != 1 {
		t.Fatalf("told of the first drop %d times", dropped)
	}
	if len(h.blocks) > 64+2*(10000+blockSize)/blockSize {
		t.Fatalf("%d blocks held for %d bytes kept", len(h.blocks), h.bytes)
	}
	sp := h.read(0, 1<<20)
	if sp.skipped != h.start || h.start != 100000-int64(h.bytes) || sp.more {
		t.Fatalf("skipped %d, start %d, more %v", sp.skipped, h.start, sp.more)
	}
	if !strings.HasPrefix(sp.output.String(), fmt.Sprintf("%04d\n", h.start/5%10000)) || !strings.HasSuffix(sp.output.String(), "9999\n") {
		t.Fatalf("read %.20q ... %q", sp.output.String(), sp.output.String()[sp.output.Len()-10:])
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

// BenchmarkHistory is the cost of the history on the output path: a log
// cleaned on a terminal, taken as answers every 32 KiB would, without and
// with every emitted line kept.
func BenchmarkHistory(b *testing.B) {
	var log strings.Builder
	for i := 0; log.Len() < 8<<20; i++ {
		fmt.Fprintf(&log, "2024-05-01T12:00:00Z INFO worker-%d processed request id=%d path=/api/v1/items/%d status=200\r\n", i%8, i, i*7)
	}
	data := []byte(log.String())
	run := func(b *testing.B, keep bool) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			opts := cleaner.Options{Cols: 160, Rows: 48, Spill: func() (io.Writer, string, error) { return io.Discard, "/dev/null", nil }}
			if keep {
				h := newHistory(historyKeep)
				opts.OnEmit = func(line string) { h.add(line, false) }
				opts.SpillLong = true
			}
			c := cleaner.New(opts)
			for p := data; len(p) > 0; p = p[min(32<<10, len(p)):] {
				c.Write(p[:min(32<<10, len(p))])
				c.Take(false)
			}
			c.Take(true)
		}
	}
	b.Run("without", func(b *testing.B) { run(b, false) })
	b.Run("with", func(b *testing.B) { run(b, true) })
}
