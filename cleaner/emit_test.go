package cleaner

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// emitted is a Cleaner on a terminal whose OnEmit lines are gathered.
func emitted(opts Options) (*Cleaner, *[]string) {
	var lines []string
	opts.OnEmit = func(l string) { lines = append(lines, l) }
	return New(opts), &lines
}

// TestPublishLeavesTheWindow: Publish hands the live lines to OnEmit at
// once and leaves them to the next Take, which returns what Take alone
// would have; a line rewritten after it was published is emitted again.
func TestPublishLeavesTheWindow(t *testing.T) {
	c, lines := emitted(Options{Cols: 80, Rows: 24})
	io.WriteString(c, "one\r\nPass")
	c.Publish()
	if got := strings.Join(*lines, "|"); got != "one|Pass" {
		t.Fatalf("published %q", got)
	}
	if c.LivePending() {
		t.Fatal("nothing is pending after a publish")
	}
	io.WriteString(c, "word: ")
	if !c.LivePending() {
		t.Fatal("the rewritten line is pending")
	}
	if got := c.Take(false).Text; got != "one\nPass\nPassword:" {
		t.Fatalf("the take after a publish: %q", got)
	}
	if got := strings.Join(*lines, "|"); got != "one|Pass|Password:" {
		t.Fatalf("emitted %q", got)
	}
}

// TestEndKeepsTheFinalWindow: End emits the last lines at once, and the
// Take(true) after it returns what a Take(true) without it would.
func TestEndKeepsTheFinalWindow(t *testing.T) {
	for _, input := range []string{"a\r\nb\r\nprompt> ", "a\r\nb\r\n", ""} {
		plain := New(Options{Cols: 80, Rows: 24})
		io.WriteString(plain, input)
		want := plain.Take(true).Text
		c, lines := emitted(Options{Cols: 80, Rows: 24})
		io.WriteString(c, input)
		c.End()
		n := len(*lines)
		c.End()
		if got := c.Take(true).Text; got != want {
			t.Errorf("%q: the take after End is %q, want %q", input, got, want)
		}
		if len(*lines) != n || strings.Join(*lines, "\n") != strings.TrimSuffix(want, "\n") {
			t.Errorf("%q: emitted %q at End, then %d more", input, *lines, len(*lines)-n)
		}
	}
}

// TestSpillLongOpensTheSpill: with SpillLong, a stream never cut goes to
// the spill once more than the history's MiB is committed, from its
// first line; Spill opens it at once.
func TestSpillLongOpensTheSpill(t *testing.T) {
	for _, long := range []bool{false, true} {
		var spilled strings.Builder
		c := New(Options{SpillLong: long, Spill: func() (io.Writer, string, error) { return &spilled, "/spill", nil }})
		for i := range 40000 { // about 1.6 MiB with the history's count of 32 a line
			fmt.Fprintf(c, "%d\n", i)
			if i%100 == 0 {
				c.Take(false) // windows under the cap: nothing is cut
			}
		}
		c.Take(true)
		if got := strings.HasPrefix(spilled.String(), "0\n1\n"); got != long {
			t.Errorf("SpillLong %v: spilled from the first line %v (%d bytes)", long, got, spilled.Len())
		}
	}
	var spilled strings.Builder
	c := New(Options{Spill: func() (io.Writer, string, error) { return &spilled, "/spill", nil }})
	io.WriteString(c, "x\ny\n")
	c.Spill()
	c.Take(true)
	if spilled.String() != "x\ny\n" || c.SpillPath() != "/spill" {
		t.Fatalf("Spill: %q at %q", spilled.String(), c.SpillPath())
	}
}
