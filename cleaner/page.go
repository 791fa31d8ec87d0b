package cleaner

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// ShowsPage reports whether a person sees a page drawn in place rather
// than lines of text: a full-screen program's alternate screen, or a main
// screen that was erased whole and then drawn on by cursor address, with
// nothing scrolled off it since. Text that only rewrites lines in place
// (progress bars, a line editor) is not a page.
func (c *Cleaner) ShowsPage() bool {
	return c.term.altActive() || c.term.main.page
}

// TakePage is Take(false) for an answer that shows the page: the text
// that scrolled off the main screen since the last Take, then the page
// as a person sees it. The main screen's live lines count as returned as
// they now read, since the page shows them. On the alternate screen the
// main screen is left alone: its news comes when it shows again.
func (c *Cleaner) TakePage() Chunk {
	if c.term.altActive() {
		text, cut := c.pageText(c.opts.MaxStreamChars)
		return Chunk{Text: text, Truncated: cut, FullOutputPath: c.sink.path}
	}
	c.markLive()
	ch := c.takeWindow(false)
	used := utf8.RuneCountInString(ch.Text)
	text, cut := c.pageText(max(c.opts.MaxStreamChars-used, c.opts.MaxStreamChars/4))
	ch.Text += text
	ch.Truncated = ch.Truncated || cut
	return ch
}

// markLive counts the main screen's live lines as returned, as they now
// read, without returning them.
func (c *Cleaner) markLive() {
	c.eachLine(func(i, j int, open bool) bool {
		if t, _, _, st, changed := c.liveChanged(i, j, open); changed {
			if c.opts.OnEmit != nil {
				c.opts.OnEmit(t)
			}
			st.sent, st.sentText = true, t
			c.clean(i, j)
		}
		return true
	})
}

// pageText renders the screen shown, row by row: each row trimmed of
// trailing blanks and capped like a line, blank rows at the bottom left
// out, within budget characters (a marker then says how many rows were
// left out). It reports whether anything was cut.
func (c *Cleaner) pageText(budget int) (string, bool) {
	lines := c.Screen().Lines
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var sb strings.Builder
	cut, used := false, 0
	for i, l := range lines {
		t, n, lineCut := capLine(l, utf8.RuneCountInString(l), 0, c.opts.MaxLineChars)
		if used+n+1 > budget {
			sb.WriteString("...[" + strconv.Itoa(len(lines)-i) + " more rows]\n")
			return sb.String(), true
		}
		cut = cut || lineCut
		used += n + 1
		sb.WriteString(t)
		sb.WriteByte('\n')
	}
	return sb.String(), cut
}
