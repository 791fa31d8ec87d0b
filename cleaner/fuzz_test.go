package cleaner

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzOptions picks small caps so short inputs reach the cutting code.
func fuzzOptions(sel byte, spill io.Writer) Options {
	open := func() (io.Writer, string, error) { return spill, "/spill/out.txt", nil }
	switch sel % 3 {
	case 0:
		return Options{Spill: open}
	case 1:
		return Options{MaxLineChars: 30, MaxStreamChars: 300, Rows: 4, Cols: 40, Spill: open}
	default:
		return Options{MaxLineChars: 60, MaxStreamChars: 1000, Rows: 2, Cols: 20, Encoding: "cp437", Spill: open}
	}
}

func FuzzClean(f *testing.F) {
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
		}
		checkChunk(t, c.Take(true), opts)
	})
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
