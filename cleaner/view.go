package cleaner

// Screen is the terminal as a person would see it now.
type Screen struct {
	// Cols and Rows are the terminal's size; Cols is 0 for a stream with
	// no terminal, whose lines are then as long as the text (up to 4096).
	Cols, Rows int
	Lines      []string // Rows entries, row 0 at the top, trailing blanks trimmed
	// CursorRow and CursorCol count from 0. After a character in the last
	// column the cursor stays on it until the next one wraps.
	CursorRow, CursorCol int
	AltScreen            bool // a full-screen program's alternate screen is shown
}

// Screen returns the visible screen now: the alternate one while a
// full-screen program shows it.
func (c *Cleaner) Screen() Screen {
	s := c.term.scr
	sc := Screen{Cols: c.term.cols, Rows: s.height, Lines: make([]string, s.height),
		CursorRow: s.cur, CursorCol: s.col, AltScreen: c.term.altActive()}
	for i, r := range s.rows[:min(len(s.rows), s.height)] {
		c.buf, _ = r.appendText(c.buf[:0], false)
		sc.Lines[i] = string(c.buf)
	}
	return sc
}

// Size is the terminal's size: Cols is 0 for a stream with no terminal.
func (c *Cleaner) Size() (cols, rows int) { return c.term.cols, c.term.scr.height }

// Resize tells the Cleaner the terminal was resized. Text is not reflowed:
// rows are cut at a smaller width, and a lower screen first drops empty
// rows below the cursor, then sends rows off the top (to the scrollback on
// the main screen). The scroll region becomes the whole screen. On a
// Cleaner without a terminal (Cols 0) only the number of rows changes.
func (c *Cleaner) Resize(cols, rows int) {
	c.term.resize(max(cols, 2), max(rows, 1))
}

// Generation returns a number that changes whenever what Screen would show
// changes: text, scrolling, erasing, a switch to or from the alternate
// screen, a resize. A cursor move alone does not change it, nor does a
// rewrite that leaves the screen as it was. It is cheap enough to call
// after every Write.
func (c *Cleaner) Generation() uint64 {
	if !c.term.m.changed {
		return c.gen
	}
	c.term.m.changed = false
	if h := c.screenHash(); h != c.lastHash {
		c.gen++
		c.lastHash = h
	}
	return c.gen
}

// screenHash hashes what Screen would show but the cursor.
func (c *Cleaner) screenHash() uint64 {
	s := c.term.scr
	h := uint64(14695981039346656037)
	mix := func(v uint64) { h = (h ^ v) * 1099511628211 }
	mix(uint64(c.term.cols))
	mix(uint64(s.height))
	if c.term.altActive() {
		mix(1)
	}
	n := len(s.rows)
	for n > 0 && s.rows[n-1].sum(c.seed) == emptySum {
		n--
	}
	for _, r := range s.rows[:n] {
		mix(r.sum(c.seed))
	}
	return h
}
