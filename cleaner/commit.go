package cleaner

import (
	"bytes"
	"unicode/utf8"
)

// commitPiece bounds the text OnCommit gets at once.
const commitPiece = 64 << 10

// partial is a line of text whose first rows left the live window while
// its end is still live: a line longer than the screen holds. Only its
// head, enough for the answer's line cap, and counts are kept; the rest
// went to the spill as it came.
type partial struct {
	active bool
	sentState
	head      []byte // the first MaxLineChars characters at most
	headChars int
	chars     int    // characters so far, held-back spaces not included
	spaces    int    // trailing spaces held back: they count if text follows
	piece     []byte // text for OnCommit not given yet
}

func (p *partial) reset() {
	p.active, p.sentState = false, sentState{}
	p.head, p.headChars, p.chars, p.spaces = p.head[:0], 0, 0, 0
	p.piece = p.piece[:0]
}

// render returns a row's text, trailing spaces trimmed, and its length in
// characters.
func (c *Cleaner) render(r *row) (string, int) {
	var chars int
	c.buf, chars = r.appendText(c.buf[:0], false)
	return string(c.buf), chars
}

// commitRow takes a row leaving the live window for good.
func (c *Cleaner) commitRow(r *row) { c.commitFragment(r, !r.wrapped, true) }

// commitFragment commits a row; ends says whether its line of text ends
// there and terminated whether a newline follows. It reports whether the
// line went to the window.
func (c *Cleaner) commitFragment(r *row, ends, terminated bool) bool {
	if !c.part.active && ends {
		return c.commitWhole(r, terminated)
	}
	p := &c.part
	if !p.active {
		p.active, p.sentState = true, r.sentState
	}
	p.dirty = p.dirty || r.dirty
	c.buf, _ = r.appendText(c.buf[:0], !ends)
	c.addText(c.buf)
	if !ends {
		if p.chars > c.opts.MaxLineChars && !c.sink.tried {
			c.openSpill() // the line will be cut: stream it from now on
		}
		return false
	}
	return c.endPartial(terminated)
}

// commitWhole commits a line of text held in one row, the common case.
func (c *Cleaner) commitWhole(r *row, terminated bool) bool {
	c.committed++
	text, chars := c.render(r)
	if !terminated && text == "" {
		return false // only where the cursor waited
	}
	c.keep(text, terminated)
	if c.opts.OnCommit != nil {
		c.opts.OnCommit(text)
	}
	t, n, cut := capLine(text, chars, 0, c.opts.MaxLineChars)
	c.lastText = t
	if r.sent && (!r.dirty || r.sentText == t) {
		return false
	}
	c.emit(t, n, cut, c.committed)
	return true
}

// addText adds a committed row's text to the partial line. Trailing
// spaces are held back until text follows them, so that a line ends
// trimmed even when its last rows are blank.
func (c *Cleaner) addText(b []byte) {
	p := &c.part
	t := bytes.TrimRight(b, " ")
	if len(t) > 0 {
		for p.spaces > 0 {
			n := min(p.spaces, len(spaces))
			c.addRaw([]byte(spaces[:n]))
			p.spaces -= n
		}
		c.addRaw(t)
	}
	p.spaces += len(b) - len(t)
}

const spaces = "                                                                "

// addRaw passes committed text of the partial line on to the spill,
// OnCommit and the head.
func (c *Cleaner) addRaw(b []byte) {
	p := &c.part
	c.keep(string(b), false)
	n := utf8.RuneCount(b)
	p.chars += n
	if room := c.opts.MaxLineChars - p.headChars; room > 0 {
		k := len(b)
		if n > room {
			k = len(prefixChars(string(b), room))
			n = room
		}
		p.head = append(p.head, b[:k]...)
		p.headChars += n
	}
	if c.opts.OnCommit == nil {
		return
	}
	p.piece = append(p.piece, b...)
	for len(p.piece) >= commitPiece {
		k := commitPiece
		for k > 0 && k < len(p.piece) && !utf8.RuneStart(p.piece[k]) {
			k--
		}
		c.opts.OnCommit(string(p.piece[:k]))
		p.piece = p.piece[:copy(p.piece, p.piece[k:])]
	}
}

// endPartial ends the partial line.
func (c *Cleaner) endPartial(terminated bool) bool {
	p := &c.part
	c.committed++
	if terminated {
		c.keep("", true)
	}
	if c.opts.OnCommit != nil && (terminated || p.chars > 0) {
		c.opts.OnCommit(string(p.piece))
	}
	t, n, cut := capLine(string(p.head), p.headChars, p.chars-p.headChars, c.opts.MaxLineChars)
	c.lastText = t
	st := p.sentState
	p.reset()
	if st.sent && (!st.dirty || st.sentText == t) || !terminated && t == "" {
		return false
	}
	c.emit(t, n, cut, c.committed)
	return true
}

// emit adds a line, already capped, to the window.
func (c *Cleaner) emit(text string, chars int, cut bool, num int) {
	c.win.add(text, chars, num)
	c.winOpen = false
	if c.opts.OnEmit != nil {
		c.opts.OnEmit(text)
	}
	if cut {
		c.win.truncated = true
	}
	if c.win.truncated && !c.sink.tried {
		c.openSpill()
	}
}

// line is a line of text of the live window as it reads now.
type line struct {
	buf   []byte // its text, or its head when total > chars
	chars int    // characters in buf
	total int    // characters in the line
	st    *sentState
}

// lineText renders the line of text on rows i..j of s. On the main
// screen a line at the top may have begun in rows already committed: it
// starts with the partial line's head, or with full its text not yet given
// to OnCommit when full is set.
func (c *Cleaner) lineText(s *screen, i, j int, full bool) line {
	l := line{buf: c.lbuf[:0], st: &s.rows[i].sentState}
	held := 0
	if i == 0 && s == &c.term.main && c.part.active {
		p := &c.part
		l.st, held = &p.sentState, p.spaces
		if full && c.opts.OnCommit != nil {
			l.buf = append(l.buf, p.piece...)
			l.chars = utf8.RuneCount(p.piece)
		} else {
			l.buf = append(l.buf, p.head...)
			l.chars = p.headChars
		}
		l.total = p.chars
		if full {
			l.total = l.chars
		}
	}
	for k := i; k <= j; k++ {
		var n int
		c.buf, n = s.rows[k].appendText(c.buf[:0], k < j)
		t := bytes.TrimRight(c.buf, " ")
		trail := len(c.buf) - len(t)
		if len(t) > 0 {
			if l.chars == l.total {
				for range held {
					l.buf = append(l.buf, ' ')
				}
				l.buf = append(l.buf, t...)
				l.chars += held + n - trail
			}
			l.total += held + n - trail
			held = 0
		}
		held += trail
	}
	c.lbuf = l.buf
	return l
}

// dirty reports whether rows i..j, or the partial line they end, changed
// since a Take returned them.
func (c *Cleaner) dirty(i, j int) bool {
	s := &c.term.main
	d := i == 0 && c.part.active && c.part.dirty
	for _, r := range s.rows[i : j+1] {
		d = d || r.dirty
	}
	return d
}

func (c *Cleaner) clean(i, j int) {
	if i == 0 {
		c.part.dirty = false
	}
	for _, r := range c.term.main.rows[i : j+1] {
		r.dirty = false
	}
}
