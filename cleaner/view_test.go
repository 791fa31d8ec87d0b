package cleaner

import (
	"bytes"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// screenLines returns the non-empty prefix of a screen's lines.
func screenLines(sc Screen) []string {
	l := slices.Clone(sc.Lines)
	for len(l) > 0 && l[len(l)-1] == "" {
		l = l[:len(l)-1]
	}
	return l
}

func TestScreen(t *testing.T) {
	c := New(Options{Cols: 10, Rows: 4})
	write(c, "hello\r\n0123456789ab\r\n")
	sc := c.Screen()
	if sc.Cols != 10 || sc.Rows != 4 || len(sc.Lines) != 4 || sc.AltScreen {
		t.Fatalf("screen %+v", sc)
	}
	if got := screenLines(sc); !slices.Equal(got, []string{"hello", "0123456789", "ab"}) {
		t.Errorf("lines %q", got)
	}
	if sc.CursorRow != 3 || sc.CursorCol != 0 {
		t.Errorf("cursor %d,%d", sc.CursorRow, sc.CursorCol)
	}
	// The alternate screen shows while active, and the main one after.
	write(c, "\x1b[?1049h\x1b[2;3Hmenu")
	sc = c.Screen()
	if !sc.AltScreen || !slices.Equal(screenLines(sc), []string{"", "  menu"}) || sc.CursorRow != 1 || sc.CursorCol != 6 {
		t.Errorf("alternate screen %+v", sc)
	}
	write(c, "\x1b[?1049l")
	sc = c.Screen()
	if sc.AltScreen || sc.CursorRow != 3 || sc.CursorCol != 0 || screenLines(sc)[0] != "hello" {
		t.Errorf("back on the main screen %+v", sc)
	}
	// A character in the last column leaves the cursor on it.
	write(c, "0123456789")
	if sc = c.Screen(); sc.CursorRow != 3 || sc.CursorCol != 9 {
		t.Errorf("cursor after the last column %d,%d", sc.CursorRow, sc.CursorCol)
	}
	// A stream without a terminal says so.
	if sc := New(Options{}).Screen(); sc.Cols != 0 || sc.Rows != 64 {
		t.Errorf("no terminal: %d x %d", sc.Cols, sc.Rows)
	}
}

func TestResize(t *testing.T) {
	c := New(Options{Cols: 10, Rows: 5})
	write(c, "one\r\ntwo\r\nthree\r\nfour\r\nfive")
	c.Resize(10, 3)
	sc := c.Screen()
	if got := screenLines(sc); !slices.Equal(got, []string{"three", "four", "five"}) || sc.CursorRow != 2 || sc.Rows != 3 {
		t.Errorf("shorter: %q, cursor row %d", got, sc.CursorRow)
	}
	// The rows sent off the top are committed, not lost.
	if got := c.Take(false).Text; got != "one\ntwo\nthree\nfour\nfive" {
		t.Errorf("after a shorter resize the text is %q", got)
	}
	// Empty rows under the cursor go first.
	c = New(Options{Cols: 10, Rows: 5})
	write(c, "top\x1b[2;1H")
	write(c, "\x1b[5;1H\x1b[2;1H")
	c.Resize(10, 2)
	if got := screenLines(c.Screen()); !slices.Equal(got, []string{"top"}) {
		t.Errorf("shorter with blank rows below: %q", got)
	}
	// Narrower cuts rows; the cursor stays within.
	c = New(Options{Cols: 10, Rows: 3})
	write(c, "0123456789")
	c.Resize(4, 3)
	sc = c.Screen()
	if sc.Lines[0] != "0123" || sc.CursorCol != 3 || sc.Cols != 4 {
		t.Errorf("narrower: %q, cursor col %d", sc.Lines[0], sc.CursorCol)
	}
	write(c, "\r\nabcdefg\r\n")
	if got := c.Take(true).Text; got != "0123\nabcdefg\n" {
		t.Errorf("narrower then wrapped: %q", got)
	}
	// The size holds after the stream ends and starts afresh.
	if sc := c.Screen(); sc.Cols != 4 || sc.Rows != 3 {
		t.Errorf("after Take(true): %d x %d", sc.Cols, sc.Rows)
	}
	// The scroll region becomes the whole screen.
	c = New(Options{Cols: 10, Rows: 4})
	write(c, "\x1b[2;3r")
	c.Resize(10, 6)
	write(c, "\x1b[6;1Ha\r\nb\r\nc")
	if got := screenLines(c.Screen()); got[len(got)-1] != "c" || got[len(got)-2] != "b" {
		t.Errorf("taller: %q", got)
	}
}

func TestGeneration(t *testing.T) {
	c := New(Options{Cols: 20, Rows: 5})
	g := c.Generation()
	if c.Generation() != g {
		t.Fatal("changed with nothing written")
	}
	step := func(in string, changes bool) {
		t.Helper()
		write(c, in)
		next := c.Generation()
		if (next != g) != changes {
			t.Errorf("after %q: generation %d -> %d, want a change: %v", in, g, next, changes)
		}
		g = next
	}
	step("hello", true)
	step("\x1b[1;1H\x1b[3C", false)    // a cursor move alone
	step("\rhello", false)             // the same text again
	step("\x1b[31m\x1b[0m", false)     // style only
	step("\r\x1b[Kjello\x1b[0m", true) // erased and rewritten: one letter differs
	step("\r\x1b[K", true)             // erased
	step("hello", true)
	step("\x1b[2J\x1b[Hhello", false)  // cleared and drawn again as it was
	step("\x1b[?1049h", true)          // to the alternate screen
	step("\x1b[?1049l", true)          // and back
	step("\r\n\r\n\r\n\r\n\r\n", true) // scrolled
	c.Resize(30, 5)
	if c.Generation() == g {
		t.Error("no change after a resize")
	}
	write(c, "text")
	g = c.Generation()
	c.Take(true)
	if c.Generation() == g {
		t.Error("no change after the stream ended and the screen started blank")
	}
}

func TestOnCommitAndLiveLines(t *testing.T) {
	var committed []string
	c := New(Options{Cols: 10, Rows: 3, OnCommit: func(l string) { committed = append(committed, l) }})
	write(c, "first\r\na line that wraps over rows\r\nNEE")
	write(c, "DLE split\r\nlast")
	if !slices.Equal(committed, []string{"first", "a line that wraps over rows"}) {
		t.Errorf("committed %q", committed)
	}
	var live []string
	c.LiveLines(func(l string) bool { live = append(live, l); return true })
	if !slices.Equal(live, []string{"NEEDLE split", "last"}) {
		t.Errorf("live %q", live)
	}
	live = nil
	c.LiveLines(func(l string) bool { live = append(live, l); return false })
	if len(live) != 1 {
		t.Errorf("LiveLines went on after false: %q", live)
	}
	// A line whose start left the live window: LiveLines gives what
	// OnCommit has not been given yet, so the two see every character.
	committed = nil
	write(c, "\r\n"+strings.Repeat("x", 35)+"END")
	live = nil
	c.LiveLines(func(l string) bool { live = append(live, l); return true })
	if n := len(live); n == 0 || live[n-1] != strings.Repeat("x", 35)+"END" {
		t.Errorf("live %q", live)
	}
	c.Take(true)
	if n := len(committed); n == 0 || committed[n-1] != strings.Repeat("x", 35)+"END" {
		t.Errorf("committed %q", committed)
	}
	// The alternate screen's lines never leave for good.
	committed = nil
	c = New(Options{Cols: 10, Rows: 3, OnCommit: func(l string) { committed = append(committed, l) }})
	write(c, "\x1b[?1049h1\r\n2\r\n3\r\n4\r\n5\x1b[?1049lshell\r\n")
	c.Take(true)
	if !slices.Equal(committed, []string{"shell"}) {
		t.Errorf("committed %q", committed)
	}
}

// TestOnCommitPieces checks a line longer than a piece reaches OnCommit
// whole, in order, in pieces of at most commitPiece bytes.
func TestOnCommitPieces(t *testing.T) {
	var got strings.Builder
	pieces := 0
	c := New(Options{Cols: 80, Rows: 4, OnCommit: func(l string) {
		if len(l) > commitPiece {
			t.Fatalf("piece of %d bytes", len(l))
		}
		got.WriteString(l)
		pieces++
	}})
	line := strings.Repeat("日本", 50000)
	write(c, line+"\r\n")
	c.Take(true)
	if got.String() != line || pieces < 2 {
		t.Errorf("got %d bytes in %d pieces, want %d", got.Len(), pieces, len(line))
	}
}

// TestOnCommitPieceOfExactlyTheBound is a line of ASCII whose pending text
// reaches the piece bound exactly, in pipes mode and on a terminal.
func TestOnCommitPieceOfExactlyTheBound(t *testing.T) {
	for _, cols := range []int{0, 80, 160} {
		var got strings.Builder
		c := New(Options{Cols: cols, Rows: 4, OnCommit: func(l string) { got.WriteString(l) }})
		line := strings.Repeat("x", 1000000)
		for p := line; len(p) > 0; p = p[min(32768, len(p)):] {
			write(c, p[:min(32768, len(p))])
		}
		write(c, "\n")
		c.Take(true)
		if got.String() != line {
			t.Errorf("cols %d: got %d bytes, want %d", cols, got.Len(), len(line))
		}
	}
}

// TestSpillLongLine feeds a 1 MB line in pieces: the spill writer gets it
// byte for byte, on a terminal and through pipes, while the answer keeps
// its line cap.
func TestSpillLongLine(t *testing.T) {
	var line strings.Builder
	for i := 0; line.Len() < 1<<20; i++ {
		line.WriteString("{\"k\":" + strings.Repeat("v", i%50) + "} ")
	}
	raw := line.String() + "x\n"
	for _, cols := range []int{0, 80, 160} {
		sp := &memSpill{}
		c := New(Options{Cols: cols, Spill: sp.open})
		for p := raw; len(p) > 0; {
			n := min(4093, len(p))
			write(c, p[:n])
			p = p[n:]
		}
		ch := c.Take(true)
		if sp.buf.String() != raw {
			i := 0
			for i < min(sp.buf.Len(), len(raw)) && sp.buf.Bytes()[i] == raw[i] {
				i++
			}
			t.Errorf("cols %d: spill has %d bytes, want %d; first difference at %d", cols, sp.buf.Len(), len(raw), i)
		}
		if !strings.HasSuffix(ch.Text, " chars]\n") || len(ch.Text) > 501 || !ch.Truncated {
			t.Errorf("cols %d: answer %q", cols, ch.Text)
		}
	}
}

// TestLongLineMemory checks memory does not grow with a line's length.
func TestLongLineMemory(t *testing.T) {
	for _, cols := range []int{0, 160} {
		c := New(Options{Cols: cols, Spill: func() (io.Writer, string, error) { return io.Discard, "/dev/null", nil }})
		chunk := bytes.Repeat([]byte("0123456789abcdef"), 4096)
		write(c, "start ")
		base := heapInUse()
		for range 512 { // 32 MiB on one line
			c.Write(chunk)
		}
		if grown := heapInUse() - base; grown > 8<<20 {
			t.Errorf("cols %d: heap grew by %d bytes over a 32 MiB line", cols, grown)
		}
		runtime.KeepAlive(c)
	}
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}
