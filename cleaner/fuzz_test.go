package cleaner

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzOptions picks small caps so short inputs reach the cutting code,
// and small terminals so they wrap, scroll and fill the screen.
func fuzzOptions(sel byte, spill io.Writer) Options {
	open := func() (io.Writer, string, error) { return spill, "/spill/out.txt", nil }
	switch sel % 6 {
	case 0:
		return Options{Spill: open}
	case 1:
		return Options{MaxLineChars: 30, MaxStreamChars: 300, Rows: 4, Cols: 40, Spill: open}
	case 2:
		return Options{MaxLineChars: 60, MaxStreamChars: 1000, Rows: 2, Cols: 20, Encoding: "cp437", Spill: open}
	case 3:
		return Options{Cols: 10, Rows: 3, Spill: open}
	case 4:
		return Options{Cols: 2, Rows: 1, MaxStreamChars: 200, Spill: open}
	default:
		return Options{Cols: 160, Rows: 64, Spill: open}
	}
}

// terminalSeeds drive the terminal into its states: the alternate screen,
// scroll regions, origin mode, pending wraps, wide characters at the edge,
// tab stops, insert mode.
var terminalSeeds = []string{
	"a\x1b[?1049hb\x1b[5;1Hc\x1b[?1049ld\r\n",
	"\x1b[?47h\x1b[2;3r\x1b[3;1Hx\ny\nz\x1b[?47l",
	"\x1b[2;4r\x1b[?6h\x1b[9;9Hq\x1bM\x1bM\x1bM\x1b[2S\x1b[3T\x1b[L\x1b[M\x1b[r",
	"0123456789abcdefghij\bX\x1b[K\x1b[@\x1b[P\tT\r\n",
	"日本語日本語日本語\x1b[3GX\x1b[?7l日本語日本語\x1b[?7h",
	"\x1b[3g\x1b[5G\x1bH\x1b[1G\tx\x1b[2I\x1b[2Z\x1b[0g",
	"\x1b[4hins\x1b[1Gab\x1b[4l\x1bc\x1b[!p\x1b[5bz",
	"e\u0301\x1b[?1048hmove\x1b[?1048l\x1b[s\x1b[u\x1b7\x1b8",
}

func FuzzClean(f *testing.F) {
	for i, seed := range terminalSeeds {
		f.Add([]byte(seed), byte(i), uint16(i), uint16(3*i))
	}
	for _, tc := range vtCases {
		f.Add([]byte(tc.raw), byte(0), uint16(3), uint16(7))
		f.Add([]byte(tc.raw), byte(1), uint16(1), uint16(2))
	}
	for _, file := range goldenFiles(f) {
		raw := readGolden(f, file).data["raw"]
		f.Add(raw, byte(0), uint16(100), uint16(5))
		f.Add(raw, byte(1), uint16(17), uint16(300))
		f.Add(raw, byte(2), uint16(1), uint16(1))
	}
	f.Fuzz(func(t *testing.T, raw []byte, sel byte, a, b uint16) {
		var spill bytes.Buffer
		opts := fuzzOptions(sel, &spill)
		whole := Clean(raw, opts)
		checkChunk(t, whole, opts)
		if whole.Truncated != (whole.FullOutputPath != "") {
			t.Fatalf("Truncated=%v but FullOutputPath=%q", whole.Truncated, whole.FullOutputPath)
		}

		// Split at two fuzzed points and in small pieces: same text.
		i, j := int(a)%(len(raw)+1), int(b)%(len(raw)+1)
		i, j = min(i, j), max(i, j)
		c := New(fuzzOptions(sel, io.Discard))
		for _, p := range [][]byte{raw[:i], raw[i:j], raw[j:]} {
			c.Write(p)
		}
		if got := c.Take(true); got.Text != whole.Text {
			t.Fatalf("split at %d,%d:\n got %q\nwant %q", i, j, got.Text, whole.Text)
		}
		if s := cleanChunked(raw, fuzzOptions(sel, io.Discard), 1+int(a)%5); s != whole.Text {
			t.Fatalf("in chunks of %d:\n got %q\nwant %q", 1+int(a)%5, s, whole.Text)
		}
		if !whole.Truncated && whole.FullOutputPath == "" {
			// Cleaning clean text changes nothing.
			again := Clean([]byte(whole.Text), Options{})
			if again.Text != whole.Text {
				t.Fatalf("not idempotent:\n got %q\nwant %q", again.Text, whole.Text)
			}
		}
		if whole.Truncated && opts.Encoding == "" && !utf8.Valid(spill.Bytes()) {
			t.Fatalf("spill is not valid UTF-8")
		}
	})
}

// checkChunk asserts the properties every Chunk has.
func checkChunk(t *testing.T, ch Chunk, opts Options) {
	t.Helper()
	o := opts.withDefaults()
	if !utf8.ValidString(ch.Text) {
		t.Fatalf("invalid UTF-8: %q", ch.Text)
	}
	if n := utf8.RuneCountInString(ch.Text); n > o.MaxStreamChars {
		t.Fatalf("%d chars over the cap of %d", n, o.MaxStreamChars)
	}
	for _, r := range ch.Text {
		if r < 0x20 && r != '\n' || r >= 0x7f && r < 0xa0 {
			t.Fatalf("control %U left in %q", r, ch.Text)
		}
	}
	for _, line := range strings.Split(ch.Text, "\n") {
		if strings.HasPrefix(line, "[... ") || strings.HasPrefix(line, "[previous line repeated ") {
			continue // markers
		}
		if strings.HasPrefix(line, "[line ") {
			_, line, _ = strings.Cut(line, "] ")
		}
		if n := utf8.RuneCountInString(line); n > o.MaxLineChars {
			t.Fatalf("line of %d chars over the cap of %d: %q", n, o.MaxLineChars, line)
		}
		if strings.HasSuffix(line, " ") {
			t.Fatalf("trailing space in %q", line)
		}
	}
	// A window may follow one that spilled, so only one way holds.
	if ch.Truncated && ch.FullOutputPath == "" {
		t.Fatalf("Truncated but no FullOutputPath")
	}
}

// FuzzTakeWindows interleaves Take(false) with writes: every window keeps
// the caps and the Cleaner never panics.
func FuzzTakeWindows(f *testing.F) {
	for i, seed := range terminalSeeds {
		f.Add([]byte(seed), byte(i), uint16(i))
	}
	for _, tc := range vtCases {
		f.Add([]byte(tc.raw), byte(1), uint16(5))
	}
	for _, file := range goldenFiles(f) {
		f.Add(readGolden(f, file).data["raw"], byte(0), uint16(64))
	}
	f.Fuzz(func(t *testing.T, raw []byte, sel byte, step uint16) {
		opts := fuzzOptions(sel, io.Discard)
		c := New(opts)
		n := 1 + int(step)%97
		for p := raw; len(p) > 0; {
			k := min(n, len(p))
			c.Write(p[:k])
			p = p[k:]
			ch := c.Take(false)
			checkChunk(t, ch, opts)
			if c.Pending() {
				t.Fatal("Pending right after Take")
			}
			_ = c.LastLine()
			checkBounded(t, c)
		}
		checkChunk(t, c.Take(true), opts)
	})
}

// FuzzTerminal mixes writes with resizes and the calls a caller makes
// after every write: the screen stays within its size, Generation does
// not change without a write, and memory stays bounded.
func FuzzTerminal(f *testing.F) {
	for i, seed := range terminalSeeds {
		f.Add([]byte(seed), byte(i), uint16(7*i+1))
	}
	for _, file := range goldenFiles(f) {
		f.Add(readGolden(f, file).data["raw"], byte(3), uint16(40))
	}
	f.Fuzz(func(t *testing.T, raw []byte, sel byte, step uint16) {
		opts := fuzzOptions(sel, io.Discard)
		var committed int
		opts.OnCommit = func(l string) {
			if len(l) > commitPiece || !utf8.ValidString(l) || strings.ContainsRune(l, 0x1b) {
				t.Fatalf("OnCommit got %d bytes: %q", len(l), l)
			}
			committed++
		}
		c := New(opts)
		n := 1 + int(step)%61
		for k := 0; len(raw) > 0; k++ {
			m := min(n, len(raw))
			c.Write(raw[:m])
			raw = raw[m:]
			if k%5 == 4 {
				c.Resize(1+(k*int(step))%90, 1+(k+int(step>>8))%30)
			}
			checkScreen2(t, c)
			if g := c.Generation(); g != c.Generation() {
				t.Fatal("Generation changed without a write")
			}
			c.LiveLines(func(l string) bool {
				if !utf8.ValidString(l) || strings.ContainsRune(l, 0x1b) {
					t.Fatalf("live line %q", l)
				}
				return true
			})
			checkBounded(t, c)
		}
		checkChunk(t, c.Take(true), opts)
	})
}

// checkScreen2 asserts what every Screen holds.
func checkScreen2(t *testing.T, c *Cleaner) {
	t.Helper()
	sc := c.Screen()
	if len(sc.Lines) != sc.Rows || sc.CursorRow < 0 || sc.CursorRow >= sc.Rows || sc.CursorCol < 0 {
		t.Fatalf("screen %d rows, %d lines, cursor %d,%d", sc.Rows, len(sc.Lines), sc.CursorRow, sc.CursorCol)
	}
	width := sc.Cols
	if width == 0 {
		width = noTermCols
	}
	if sc.CursorCol >= width {
		t.Fatalf("cursor column %d on a screen of %d", sc.CursorCol, width)
	}
	for _, l := range sc.Lines {
		if !utf8.ValidString(l) || strings.ContainsRune(l, 0x1b) || utf8.RuneCountInString(l) > width*(1+maxMarkBytes) {
			t.Fatalf("screen line %q", l)
		}
	}
}

// checkBounded asserts the Cleaner holds no more than its screens, a
// capped line head and a bounded history.
func checkBounded(t *testing.T, c *Cleaner) {
	t.Helper()
	for _, s := range []*screen{&c.term.main, &c.term.alt} {
		if len(s.rows) > s.height || len(s.free) > s.height {
			t.Fatalf("%d rows and %d free on a screen of %d", len(s.rows), len(s.free), s.height)
		}
		for _, r := range s.rows {
			if len(r.ascii) > s.cols || len(r.cells) > s.cols {
				t.Fatalf("row of %d+%d cells on a screen of %d", len(r.ascii), len(r.cells), s.cols)
			}
		}
	}
	if p := &c.part; p.headChars > c.opts.MaxLineChars || len(p.piece) >= commitPiece || c.sink.histBytes > historyBytes {
		t.Fatalf("head %d chars, piece %d bytes, history %d bytes", p.headChars, len(p.piece), c.sink.histBytes)
	}
}

func FuzzUTF8Stream(f *testing.F) {
	f.Add([]byte("a€b\xffc日\xe2\x82"), uint16(3))
	f.Fuzz(func(t *testing.T, raw []byte, at uint16) {
		i := int(at) % (len(raw) + 1)
		var u UTF8Stream
		got := u.Decode(raw[:i]) + u.Decode(raw[i:]) + u.Flush()
		var w UTF8Stream
		want := w.Decode(raw) + w.Flush()
		if got != want || !utf8.ValidString(got) {
			t.Fatalf("split at %d: %q vs %q", i, got, want)
		}
	})
}
