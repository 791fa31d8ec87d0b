package cleaner

// Take returns the cleaned text produced since the previous Take (a
// window), capped. With final false it includes the live lines, the
// partial last line too; a line returned before and rewritten since is
// returned again as it now reads. With final true the stream has ended:
// everything is flushed and the Cleaner starts afresh, with the size of
// its last Resize.
func (c *Cleaner) Take(final bool) Chunk {
	switch {
	case final && c.ended:
		c.ended = false
	case final:
		c.finish()
	default:
		c.sendLive()
	}
	return c.takeWindow(c.winOpen)
}

// Publish adds the live lines that have changed since a Take or Publish
// returned them to the window, as Take(false) does, without taking the
// window: the next Take returns them with what comes after, and OnEmit
// sees them now. The spill is brought up to date.
func (c *Cleaner) Publish() {
	c.sendLive()
	c.flushSpill()
}

// End ends the stream as Take(true) does, keeping the window for the
// next Take(true): OnEmit sees the last lines now. Calling it again, or
// writing after it, is not allowed before that Take.
func (c *Cleaner) End() {
	if !c.ended {
		c.finish()
		c.flushSpill()
		c.ended = true
	}
}

// takeWindow returns the window's text and starts a new window.
func (c *Cleaner) takeWindow(openEnd bool) Chunk {
	text := c.win.render(c.sink.path, openEnd)
	ch := Chunk{
		Text:         text,
		Truncated:    c.win.truncated,
		OmittedLines: c.win.omitLines,
		OmittedChars: c.win.omitChars,
	}
	c.flushSpill()
	ch.FullOutputPath = c.sink.path
	ch.Err, c.errPending = c.errPending, nil
	c.win.reset()
	c.winOpen = false
	return ch
}

// eachLine calls fn with the first and last row of each line of text of
// the main screen's live window, and whether it is the open last line.
func (c *Cleaner) eachLine(fn func(i, j int, open bool) bool) {
	s := &c.term.main
	last, open := c.liveExtent()
	for i := 0; i <= last; {
		j := s.lineEnd(i, last)
		if !fn(i, j, open && j == last) {
			return
		}
		i = j + 1
	}
}

// sendLive adds the live lines a Take has not returned as they now read.
func (c *Cleaner) sendLive() {
	num := c.committed
	c.eachLine(func(i, j int, open bool) bool {
		num++
		t, n, cut, st, changed := c.liveChanged(i, j, open)
		if changed {
			c.emit(t, n, cut, num)
			st.sent, st.sentText = true, t
			c.clean(i, j)
			c.winOpen = open
		}
		return true
	})
}

// liveExtent returns the last live row worth showing and whether it is
// open: the lowest row the cursor reached, which no newline has ended yet,
// or the cursor's empty row. Lines above it are each followed by a
// newline.
func (c *Cleaner) liveExtent() (int, bool) {
	s := &c.term.main
	last := s.extent()
	return last, last >= s.reach || s.rows[last].empty()
}

// liveChanged renders a live line, capped, and reports whether a Take
// should return it. An open line is left out while empty: it is only where
// the cursor waits.
func (c *Cleaner) liveChanged(i, j int, open bool) (string, int, bool, *sentState, bool) {
	s := &c.term.main
	st := &s.rows[i].sentState
	if i == 0 && c.part.active {
		st = &c.part.sentState
	}
	if st.sent && !c.dirty(i, j) {
		return "", 0, false, st, false
	}
	l := c.lineText(s, i, j, false)
	t, n, cut := capLine(string(l.buf), l.chars, l.total-l.chars, c.opts.MaxLineChars)
	switch {
	case st.sent && st.sentText == t:
		c.clean(i, j)
		return "", 0, false, st, false
	case open && !st.sent && t == "":
		return "", 0, false, st, false
	}
	return t, n, cut, st, true
}

// finish ends the stream: pending bytes are decoded, an unfinished escape
// sequence is dropped, and the live lines are committed.
func (c *Cleaner) finish() {
	if c.xf != nil {
		c.xf.run(nil, true, c.feedValid)
	} else {
		c.feedUTF8(nil, true)
	}
	c.parser.Reset()
	rows := c.term.main.rows
	c.eachLine(func(i, j int, open bool) bool {
		for _, r := range rows[i:j] {
			c.commitFragment(r, false, true)
		}
		if c.commitFragment(rows[j], true, !open) {
			c.winOpen = open
		}
		return true
	})
	c.term.init(c.term.cols, c.term.main.height, c.commitRow)
	c.term.m.changed = true // the screen is blank now
}

// Pending reports whether Write has produced text that Take has not
// returned yet.
func (c *Cleaner) Pending() bool {
	return !c.win.empty() || c.LivePending()
}

// LivePending reports whether a live line has changed since a Take or
// Publish returned it: whether Publish would add anything.
func (c *Cleaner) LivePending() bool {
	pending := false
	c.eachLine(func(i, j int, open bool) bool {
		_, _, _, _, pending = c.liveChanged(i, j, open)
		return !pending
	})
	return pending
}

// LastLine returns the cursor's line, trailing spaces trimmed, or the line
// above when the cursor's line is empty: the prompt a program waits at. On
// the alternate screen it reads that screen, and where the cursor stands
// in blank space there (an editor's empty first line), it returns the
// lowest line with text: the program's status line.
func (c *Cleaner) LastLine() string {
	s := c.term.scr
	i := s.lineStart(s.cur)
	if t := c.cappedLine(s, i); t != "" {
		return t
	}
	t := ""
	switch {
	case i > 0:
		t = c.cappedLine(s, s.lineStart(i-1))
	case s == &c.term.main:
		return c.lastText
	}
	for k := len(s.rows) - 1; t == "" && k >= 0 && s == &c.term.alt; k-- {
		t = c.cappedLine(s, s.lineStart(k))
	}
	return t
}

func (c *Cleaner) cappedLine(s *screen, i int) string {
	l := c.lineText(s, i, s.lineEnd(i, len(s.rows)-1), false)
	t, _, _ := capLine(string(l.buf), l.chars, l.total-l.chars, c.opts.MaxLineChars)
	return t
}

// LiveLines calls fn for each line of text of the main screen that is
// still live (not yet given to OnCommit), top to bottom, rendered, until
// fn returns false. Rows joined by wrapping are one line, and a line whose
// start already left the live window starts with what OnCommit has not
// been given of it yet (with OnCommit unset, its first MaxLineChars
// characters). An empty line where the cursor waits is left out.
func (c *Cleaner) LiveLines(fn func(line string) bool) {
	c.eachLine(func(i, j int, open bool) bool {
		l := c.lineText(&c.term.main, i, j, true)
		if open && l.total == 0 && !(i == 0 && c.part.active) {
			return true
		}
		return fn(string(l.buf))
	})
}
