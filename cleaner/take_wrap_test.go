package cleaner

import (
	"strings"
	"testing"
)

// TestTakeWrappedLine follows a line longer than the screen across Takes:
// each window returns it as it now reads, whole, and once it is finished
// and unchanged it is not returned again.
func TestTakeWrappedLine(t *testing.T) {
	c := New(Options{Cols: 10, Rows: 2})
	alphabet := "abcdefghijklmnopqrstuvwxyz"
	var want string
	for i := 0; i < len(alphabet); i += 7 {
		part := alphabet[i:min(i+7, len(alphabet))]
		want += part
		write(c, part)
		if got := c.Take(false).Text; got != want {
			t.Fatalf("after %q: got %q, want %q", want, got, want)
		}
	}
	write(c, "\r\nnext\r\n")
	if got := c.Take(false).Text; got != "next\n" {
		t.Errorf("after the line ended: %q", got)
	}
	if got := c.Take(true).Text; got != "" {
		t.Errorf("final: %q", got)
	}
	// The same line in one window comes out once.
	c = New(Options{Cols: 10, Rows: 2})
	write(c, strings.Repeat(alphabet, 3)+"\r\nend\r\n")
	if got := c.Take(true).Text; got != strings.Repeat(alphabet, 3)+"\nend\n" {
		t.Errorf("one window: %q", got)
	}
}
