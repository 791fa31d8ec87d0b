package cleaner

import (
	"strconv"
	"strings"
	"testing"
)

// A full-screen program's page is what an answer shows while it runs; the
// main screen's own text waits for the program to leave.
func TestTakePageOnTheAlternateScreen(t *testing.T) {
	c := New(Options{Cols: 40, Rows: 6})
	write(c, "before\r\n\x1b[?1049h\x1b[H\x1b[2Jline one   \x1b[3;1Hline three\x1b[6;1H:")
	if !c.ShowsPage() {
		t.Fatal("the alternate screen is a page")
	}
	if got, want := c.TakePage().Text, "line one\n\nline three\n\n\n:\n"; got != want {
		t.Errorf("page %q, want %q", got, want)
	}
	write(c, "\x1b[H\x1b[2Jpage two")
	if got := c.TakePage().Text; got != "page two\n" {
		t.Errorf("blank rows at the bottom are left out: %q", got)
	}
	write(c, "\x1b[?1049lafter\r\n")
	if c.ShowsPage() {
		t.Fatal("back on the main screen: lines of text")
	}
	if got := c.Take(false).Text; got != "before\nafter\n" {
		t.Errorf("the main screen's news after the program left: %q", got)
	}
}

// A page drawn by cursor address on the main screen (a program that does
// not use the alternate screen) is shown as a page, with the text that
// scrolled away before it; the page's lines are not sent again as news.
func TestTakePageOnTheMainScreen(t *testing.T) {
	c := New(Options{Cols: 40, Rows: 5})
	write(c, "1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n\x1b[H\x1b[2JMENU\x1b[3;5H1. Build\x1b[4;5H2. Deploy\x1b[3;5H")
	if !c.ShowsPage() {
		t.Fatal("a cleared screen drawn by address is a page")
	}
	// 1 and 2 scrolled away; 3 to 6 were erased on the screen.
	if got, want := c.TakePage().Text, "1\n2\nMENU\n\n    1. Build\n    2. Deploy\n"; got != want {
		t.Errorf("page %q, want %q", got, want)
	}
	if got := c.Take(false).Text; got != "" {
		t.Errorf("the page's lines came again as news: %q", got)
	}
	// Printing lines that scroll ends the page.
	write(c, "\x1b[5;1H\r\nbye\r\n")
	if c.ShowsPage() {
		t.Error("lines scrolled: text again")
	}
}

// Clearing the screen and printing lines (a watcher's rebuild), a progress
// bar, a line editor moving up and down: lines of text, not pages.
func TestTextIsNotAPage(t *testing.T) {
	for _, raw := range []string{
		"\x1b[H\x1b[2J\x1b[3Jcompiling...\r\nFound 0 errors. Watching for file changes.\r\n",
		"\x1b[2J\x1b[Hready\r\n",
		"[=====     ] 50%\r[==========] 100%\r\n",
		"one\r\ntwo\r\n\x1b[2A\x1b[2Kone again\r\n\x1b[1B",
		"\x1b[?1049h\x1b[2;2Hpage\x1b[?1049l",
	} {
		c := New(Options{Cols: 40, Rows: 10})
		write(c, raw)
		if c.ShowsPage() {
			t.Errorf("%q: a page", raw)
		}
	}
}

// Rows are capped like lines, and the page fits the stream's cap.
func TestTakePageIsCapped(t *testing.T) {
	c := New(Options{Cols: 200, Rows: 100, MaxLineChars: 30, MaxStreamChars: 400})
	var b strings.Builder
	b.WriteString("\x1b[?1049h")
	for i := 1; i <= 100; i++ {
		b.WriteString("\x1b[" + strconv.Itoa(i) + ";1H" + strings.Repeat("x", 100))
	}
	write(c, b.String())
	ch := c.TakePage()
	if !ch.Truncated || len(ch.Text) > 400 {
		t.Fatalf("page of %d characters, truncated %v", len(ch.Text), ch.Truncated)
	}
	first := strings.SplitN(ch.Text, "\n", 2)[0]
	if len(first) > 30 || !strings.HasSuffix(first, "chars]") {
		t.Errorf("a row is capped like a line: %q", first)
	}
	if !strings.Contains(ch.Text, "more rows]") {
		t.Errorf("the rows left out are counted: %q", ch.Text)
	}
}
