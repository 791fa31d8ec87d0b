package cleaner

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// memSpill records what the cleaner spills.
type memSpill struct {
	buf   bytes.Buffer
	calls int
	err   error // returned by the opener
}

func (m *memSpill) open() (io.Writer, string, error) {
	m.calls++
	if m.err != nil {
		return nil, "", m.err
	}
	return &m.buf, "/tmp/spill/full.txt", nil
}

func write(c *Cleaner, s string) {
	if _, err := c.Write([]byte(s)); err != nil {
		panic(err)
	}
}

func TestTakeWindows(t *testing.T) {
	c := New(Options{})
	steps := []struct{ in, want string }{
		{"line1\nPassword: ", "line1\nPassword:"},
		{"", ""},
		{"secret\n", "Password: secret\n"},
		{"done\n", "done\n"},
		{"10%", "10%"},
		{"\r50%", "50%"},
		{"\r100%\n", "100%\n"},
	}
	for i, s := range steps {
		write(c, s.in)
		if got := c.Take(false).Text; got != s.want {
			t.Errorf("step %d: got %q, want %q", i, got, s.want)
		}
	}
	if got := c.Take(true).Text; got != "" {
		t.Errorf("final: got %q, want empty", got)
	}
}

func TestTakeRewrittenRowsReturnAgain(t *testing.T) {
	c := New(Options{})
	write(c, "a: 0%\nb: 0%\n")
	if got := c.Take(false).Text; got != "a: 0%\nb: 0%\n" {
		t.Fatalf("first window %q", got)
	}
	write(c, "\x1b[2A\x1b[2Ka: 50%\n\x1b[1B")
	if got := c.Take(false).Text; got != "a: 50%\n" {
		t.Fatalf("second window %q", got)
	}
	write(c, "after\n")
	if got := c.Take(true).Text; got != "after\n" {
		t.Fatalf("final window %q", got)
	}
}

// TestPromptAfterClear checks a prompt drawn after the screen was cleared
// is the open end of the text, as a prompt drawn after output is.
func TestPromptAfterClear(t *testing.T) {
	c := New(Options{Cols: 80, Rows: 24})
	write(c, "1\r\n2\r\n3\r\n\x1b[H\x1b[2J$ ")
	if got := c.Take(false).Text; got != "$" {
		t.Errorf("got %q", got)
	}
}

func TestPending(t *testing.T) {
	c := New(Options{})
	if c.Pending() {
		t.Fatal("pending before any write")
	}
	write(c, "\x1b[31m")
	if c.Pending() {
		t.Fatal("pending after an escape alone")
	}
	write(c, "hi")
	if !c.Pending() {
		t.Fatal("not pending after text")
	}
	c.Take(false)
	if c.Pending() {
		t.Fatal("pending after Take")
	}
	write(c, "\rhi")
	if c.Pending() {
		t.Fatal("pending after rewriting the same text")
	}
	write(c, "\n")
	if c.Pending() {
		t.Fatal("pending after ending a returned line")
	}
	write(c, "x")
	if !c.Pending() {
		t.Fatal("not pending after new text")
	}
}

func TestLastLine(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"Password: ", "Password:"},
		{"out\n$ ", "$"},
		{"question?\n", "question?"},
		{"\x1b[1mName\x1b[0m [y/N] ", "Name [y/N]"},
	}
	for _, tc := range cases {
		c := New(Options{})
		write(c, tc.in)
		if got := c.LastLine(); got != tc.want {
			t.Errorf("LastLine after %q = %q, want %q", tc.in, got, tc.want)
		}
	}
	// An editor's cursor in blank space: its status line.
	c := New(Options{Cols: 40, Rows: 5})
	write(c, "\x1b[?1049h\x1b[H\x1b[2J\x1b[5;1H\"notes\" 3L, 12B\x1b[1;1H")
	if got := c.LastLine(); got != `"notes" 3L, 12B` {
		t.Errorf("LastLine in an editor = %q, want its status line", got)
	}
	// The previous line survives its row being committed.
	c = New(Options{Rows: 1})
	write(c, "a\nb\n")
	if got := c.LastLine(); got != "b" {
		t.Errorf("LastLine with one live row = %q, want b", got)
	}
}

func TestLineCap(t *testing.T) {
	long := strings.Repeat("x", 1200)
	sp := &memSpill{}
	got := Clean([]byte("short\n"+long+"\nend\n"), Options{Spill: sp.open})
	lines := strings.Split(got.Text, "\n")
	if n := utf8.RuneCountInString(lines[1]); n > 500 {
		t.Errorf("capped line has %d chars", n)
	}
	if lines[1] != strings.Repeat("x", 486)+"...[714 chars]" {
		t.Errorf("capped line = %q", lines[1])
	}
	if !got.Truncated || got.FullOutputPath == "" {
		t.Errorf("Truncated=%v FullOutputPath=%q", got.Truncated, got.FullOutputPath)
	}
	if sp.buf.String() != "short\n"+long+"\nend\n" {
		t.Errorf("spill has %q", sp.buf.String())
	}
}

func TestLineCapWide(t *testing.T) {
	long := strings.Repeat("日", 600)
	got := Clean([]byte(long), Options{MaxLineChars: 100})
	if !utf8.ValidString(got.Text) || utf8.RuneCountInString(got.Text) > 100 {
		t.Errorf("got %d chars: %q", utf8.RuneCountInString(got.Text), got.Text)
	}
	if !strings.HasSuffix(got.Text, "...[514 chars]") {
		t.Errorf("got %q", got.Text)
	}
}

func TestStreamCap(t *testing.T) {
	var in strings.Builder
	for i := 1; i <= 5000; i++ {
		switch i {
		case 1200:
			in.WriteString("main.go:12: error: undefined: x\n")
		case 2500:
			in.WriteString("--- FAIL: TestSomething (0.00s)\n")
		default:
			fmt.Fprintf(&in, "line %d of the build log\n", i)
		}
	}
	sp := &memSpill{}
	got := Clean([]byte(in.String()), Options{Spill: sp.open})
	if n := utf8.RuneCountInString(got.Text); n > 16000 {
		t.Fatalf("text has %d chars", n)
	}
	for _, want := range []string{
		"line 1 of the build log\n",
		"[line 1200] main.go:12: error: undefined: x\n",
		"[line 2500] --- FAIL: TestSomething (0.00s)\n",
		"full output: /tmp/spill/full.txt]",
		"line 5000 of the build log\n",
	} {
		if !strings.Contains(got.Text, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	if !got.Truncated || got.OmittedLines == 0 || got.OmittedChars == 0 {
		t.Errorf("Truncated=%v OmittedLines=%d OmittedChars=%d", got.Truncated, got.OmittedLines, got.OmittedChars)
	}
	marker := fmt.Sprintf("[... %d lines (%d chars) omitted", got.OmittedLines, got.OmittedChars)
	if !strings.Contains(got.Text, marker) {
		t.Errorf("marker %q not in text", marker)
	}
	kept := strings.Count(got.Text, "\n") + 1 - 3 // marker, separator, no final newline
	if kept+got.OmittedLines != 5000+1 {          // +1: the empty open line is not counted
		t.Logf("kept %d omitted %d", kept, got.OmittedLines)
	}
	if sp.calls != 1 || sp.buf.String() != in.String() {
		t.Errorf("spill calls %d, spill equal %v", sp.calls, sp.buf.String() == in.String())
	}
}

func TestStreamCapSmall(t *testing.T) {
	for _, budget := range []int{200, 333, 1000, 4096} {
		var in strings.Builder
		for i := range 3000 {
			fmt.Fprintf(&in, "%d %s\n", i, strings.Repeat("y", i%700))
		}
		got := Clean([]byte(in.String()), Options{MaxStreamChars: budget, Spill: (&memSpill{}).open})
		if n := utf8.RuneCountInString(got.Text); n > budget {
			t.Errorf("budget %d: text has %d chars", budget, n)
		}
	}
}

func TestRepeatsFolded(t *testing.T) {
	in := "start\n" + strings.Repeat("same line\n", 3000) + "end\n"
	sp := &memSpill{}
	got := Clean([]byte(in), Options{Spill: sp.open})
	want := "start\nsame line\n[previous line repeated 2999 more times]\nend\n"
	if got.Text != want {
		t.Errorf("got %q", got.Text)
	}
	if got.Truncated || sp.calls != 0 {
		t.Errorf("folding alone cut something: Truncated=%v spill calls=%d", got.Truncated, sp.calls)
	}
	// Under the budget nothing is folded.
	small := "a\na\na\na\n"
	if got := Clean([]byte(small), Options{}).Text; got != small {
		t.Errorf("small repeat changed: %q", got)
	}
}

func TestSpillOpenFails(t *testing.T) {
	sp := &memSpill{err: errors.New("disk full")}
	c := New(Options{Spill: sp.open, Rows: 1})
	_, err := c.Write([]byte(strings.Repeat("z", 600) + "\n"))
	if err == nil {
		t.Fatal("Write did not report the spill failure")
	}
	ch := c.Take(true)
	if ch.Err == nil || ch.FullOutputPath != "" || !ch.Truncated {
		t.Errorf("Err=%v FullOutputPath=%q Truncated=%v", ch.Err, ch.FullOutputPath, ch.Truncated)
	}
	if sp.calls != 1 {
		t.Errorf("opener called %d times", sp.calls)
	}
	if c.Take(true).Err != nil {
		t.Error("error reported twice")
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n -= len(p); f.n < 0 {
		return 0, errors.New("write failed")
	}
	return len(p), nil
}

func TestSpillWriteFails(t *testing.T) {
	fw := &failWriter{n: 100}
	c := New(Options{MaxStreamChars: 1000, Spill: func() (io.Writer, string, error) {
		return fw, "/x", nil
	}})
	for range 200 {
		write2 := strings.Repeat("q", 300) + "\n"
		c.Write([]byte(write2))
	}
	ch := c.Take(true)
	if ch.Err == nil {
		t.Error("write failure not reported")
	}
	if utf8.RuneCountInString(ch.Text) > 1000 {
		t.Error("cap not held after spill failure")
	}
}

// TestSpillHistory checks that the spill holds all windows, including those
// returned before the first cut.
func TestSpillHistory(t *testing.T) {
	sp := &memSpill{}
	c := New(Options{MaxStreamChars: 500, Spill: sp.open, Rows: 4})
	var all strings.Builder
	for i := range 40 {
		s := fmt.Sprintf("window line %d\n", i)
		if i >= 20 {
			s = fmt.Sprintf("a longer line in the last window, number %d\n", i)
		}
		all.WriteString(s)
		write(c, s)
		if i < 20 {
			c.Take(false)
		}
	}
	c.Take(true)
	if sp.buf.String() != all.String() {
		t.Errorf("spill:\n%s\nwant:\n%s", sp.buf.String(), all.String())
	}
}

func TestEncodings(t *testing.T) {
	cases := []struct {
		enc  string
		raw  []byte
		want string
	}{
		{"windows-1252", []byte("caf\xe9 \x80\n"), "café €\n"},
		{"cp437", []byte("\xc9\xcd\xbb \x1b[1mbox\x1b[0m\n"), "╔═╗ box\n"},
		{"shift_jis", []byte("\x93\xfa\x96\x7b\n"), "日本\n"},
		{"utf-16le", []byte("h\x00i\x00\n\x00"), "hi\n"},
		{"UTF-8", []byte("ok\xff\n"), "ok\ufffd\n"},
		{"no-such-encoding", []byte("ok\n"), "ok\n"},
	}
	for _, tc := range cases {
		if got := Clean(tc.raw, Options{Encoding: tc.enc}).Text; got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.enc, got, tc.want)
		}
		c := New(Options{Encoding: tc.enc})
		for _, b := range tc.raw {
			c.Write([]byte{b})
		}
		if got := c.Take(true).Text; got != tc.want {
			t.Errorf("%s byte by byte: got %q, want %q", tc.enc, got, tc.want)
		}
	}
	if CheckEncoding("cp437") != nil || CheckEncoding("") != nil || CheckEncoding("klingon") == nil {
		t.Error("CheckEncoding")
	}
}

func TestUTF8Stream(t *testing.T) {
	in := []byte("a€b\xffc日\xe2\x82")
	want := "a€b\ufffdc日\ufffd\ufffd"
	for split := range len(in) + 1 {
		var u UTF8Stream
		got := u.Decode(in[:split]) + u.Decode(in[split:]) + u.Flush()
		if got != want {
			t.Errorf("split %d: got %q", split, got)
		}
	}
	var u UTF8Stream
	var got strings.Builder
	for _, b := range in {
		got.WriteString(u.Decode([]byte{b}))
	}
	got.WriteString(u.Flush())
	if got.String() != want {
		t.Errorf("byte by byte: got %q", got.String())
	}
}

func TestLooksLikeError(t *testing.T) {
	yes := []string{
		"error: x", "ERROR x", "--- FAIL: T", "panic: boom", "Traceback (most recent call last):",
		"java.lang.RuntimeException", "main.go:3:4: warning: unused", "warning: x --> src/lib.rs:10:5",
	}
	no := []string{"all good", "warning: deprecated flag", "ok  pkg 0.1s", "time 12:30 warning"}
	for _, s := range yes {
		if !looksLikeError(s) {
			t.Errorf("%q not taken for an error", s)
		}
	}
	for _, s := range no {
		if looksLikeError(s) {
			t.Errorf("%q taken for an error", s)
		}
	}
}

// TestMemoryBounded writes a large stream and checks the cleaner holds
// neither it nor its history.
func TestMemoryBounded(t *testing.T) {
	c := New(Options{Spill: func() (io.Writer, string, error) { return io.Discard, "/dev/null", nil }})
	for i := range 200000 {
		fmt.Fprintf(c, "%08d %s\n", i, strings.Repeat("0123456789", 9))
	}
	if n := len(c.win.held) + len(c.win.tail) + len(c.sink.history); n > 2000 {
		t.Errorf("cleaner holds %d+%d+%d lines", len(c.win.held), len(c.win.tail), len(c.sink.history))
	}
	if got := c.Take(true); utf8.RuneCountInString(got.Text) > 16000 {
		t.Error("cap not held")
	}
	// Identical lines fold; the history kept for a later spill is bounded.
	c = New(Options{Spill: func() (io.Writer, string, error) { return io.Discard, "/dev/null", nil }})
	for range 200000 {
		io.WriteString(c, "same\n")
	}
	if c.sink.histBytes > historyBytes || len(c.win.held) != 1 {
		t.Errorf("history %d bytes, %d runs held", c.sink.histBytes, len(c.win.held))
	}
}

// TestRunawayString checks that an OSC whose terminator never comes stops
// hiding output after maxStringBytes, at the same byte however the input
// is split.
func TestRunawayString(t *testing.T) {
	raw := []byte("before\n\x1b]0;" + strings.Repeat("t", maxStringBytes+10) + "\nafter\n")
	want := "before\n" + strings.Repeat("t", 12) + "\nafter\n" // "0;" counts
	if got := Clean(raw, Options{}).Text; got != want {
		t.Errorf("got %q", got)
	}
	for _, size := range []int{1000, 4093} {
		if got := cleanChunked(raw, Options{}, size); got != want {
			t.Errorf("chunks of %d: got %q", size, got)
		}
	}
	// A string of non-ASCII runes counts its bytes too.
	raw = []byte("\x1b]0;" + strings.Repeat("é", maxStringBytes/2+4) + "\x07x")
	if got := Clean(raw, Options{}).Text; got != "éééééx" {
		t.Errorf("got %q", got)
	}
}

// TestHugeLine checks a line longer than the live window holds: the
// window gets the usual cap, the spill every character.
func TestHugeLine(t *testing.T) {
	for _, cols := range []int{0, 160} {
		sp := &memSpill{}
		raw := strings.Repeat("abcd", 10000) + "\nnext\n"
		got := Clean([]byte(raw), Options{Spill: sp.open, Cols: cols})
		want := strings.Repeat("abcd", 1000)[:484] + "...[39516 chars]\nnext\n"
		if got.Text != want {
			t.Errorf("cols %d: got %q", cols, got.Text)
		}
		if sp.buf.String() != raw {
			t.Errorf("cols %d: spill has %d bytes, want %d", cols, sp.buf.Len(), len(raw))
		}
	}
	// A carriage return goes back to the start of the last row, as on a
	// terminal; without one, to the start of the last 4096 columns.
	got := Clean([]byte(strings.Repeat("x", 20000)+"\r\x1b[Kshort\n"), Options{Cols: 160, MaxLineChars: 100000, MaxStreamChars: 1 << 20})
	if want := strings.Repeat("x", 19840) + "short\n"; got.Text != want {
		t.Errorf("after erase: %d chars", len(got.Text))
	}
	got = Clean([]byte(strings.Repeat("x", 20000)+"\r\x1b[Kshort\n"), Options{MaxLineChars: 100000, MaxStreamChars: 1 << 20})
	if want := strings.Repeat("x", 4*4096) + "short\n"; got.Text != want {
		t.Errorf("after erase, no terminal: %d chars", len(got.Text))
	}
}
