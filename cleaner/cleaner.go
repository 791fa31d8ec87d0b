package cleaner

import (
	"io"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

const (
	defaultMaxLineChars   = 500
	defaultMaxStreamChars = 16000
	defaultCols           = 160
	defaultRows           = 64

	// spillLineChars caps a line in the full output, and so what a row
	// stores: a multi-megabyte minified line must not live in memory.
	spillLineChars = 16384
)

// Options configure a Cleaner. The zero value is ready to use.
type Options struct {
	MaxLineChars   int    // 0 means 500
	MaxStreamChars int    // 0 means 16000
	Encoding       string // "" means UTF-8 (with UTF-16LE BOM sniffing)
	Cols           int    // terminal width for cursor moves; 0 means 160
	// Rows is how many of the last lines cursor movement may still rewrite,
	// normally the terminal height; 0 means 64.
	Rows int
	// Spill is called at most once, the first time anything must be cut. It
	// returns where the full cleaned text goes and the path to report as
	// FullOutputPath. The full text is the whole stream as Take(true) would
	// give it uncut, except that lines are capped at 16384 characters rather
	// than MaxLineChars; if more than 1 MiB went by before the first cut,
	// its first line says how many lines were not kept.
	Spill func() (w io.Writer, path string, err error)
}

func (o Options) withDefaults() Options {
	def := func(v, d, lo int) int {
		if v <= 0 {
			return d
		}
		return max(v, lo)
	}
	o.MaxStreamChars = def(o.MaxStreamChars, defaultMaxStreamChars, 200)
	o.MaxLineChars = def(o.MaxLineChars, defaultMaxLineChars, 24)
	// A line must leave room for the head, the marker and the tail.
	o.MaxLineChars = min(o.MaxLineChars, max(o.MaxStreamChars/4, 24))
	o.Cols = def(o.Cols, defaultCols, 1)
	o.Rows = def(o.Rows, defaultRows, 1)
	return o
}

// Chunk is the cleaned text of one window of output.
type Chunk struct {
	Text           string // cleaned, capped
	Truncated      bool   // something in this window was cut (a line or lines)
	FullOutputPath string // set when anything (in this window or before) was spilled
	// OmittedLines and OmittedChars count what the stream cap left out of
	// this window; characters cut from long lines are not included.
	OmittedLines int
	OmittedChars int
	Err          error // spill failure, if any
}

// Cleaner cleans one output stream incrementally. Not safe for concurrent
// use (the caller locks).
type Cleaner struct {
	opts   Options
	parser *ansi.Parser
	scr    screen
	win    window
	sink   sink

	xf      *xform // legacy code page or UTF-16 decoding; nil for UTF-8
	pend    [utf8.UTFMax]byte
	npend   int  // bytes of pend holding a character cut by a chunk boundary
	started bool // the BOM check is done
	strLen  int  // bytes inside the current OSC, DCS, APC, PM or SOS string

	committed int    // rows committed so far, for line numbers
	lastText  string // the last committed row, for LastLine
	buf       []byte // scratch for rendering rows

	errPending error // spill failure not yet reported by Take
	errWrite   error // spill failure during the current Write
}

// New returns a Cleaner for one stream.
func New(opts Options) *Cleaner {
	o := opts.withDefaults()
	c := &Cleaner{opts: o, win: newWindow(o.MaxStreamChars)}
	c.parser = c.newParser()
	c.sink.open = o.Spill
	c.scr.init(o.Cols, o.Rows, max(spillLineChars, o.MaxLineChars), c.commitRow)
	if e, err := lookupEncoding(o.Encoding); err == nil && e != nil {
		c.xf = newXform(e.NewDecoder())
		c.started = true
	}
	return c
}

// Clean is the one-shot form: all of raw through one Cleaner, Take(true).
func Clean(raw []byte, opts Options) Chunk {
	c := New(opts)
	c.Write(raw) //nolint:errcheck // a spill error is reported in the Chunk
	return c.Take(true)
}

// Write feeds raw bytes. It consumes all of p; the only error is a spill
// failure, returned once by the Write during which it happened and once in
// the next Chunk, while cleaning goes on.
func (c *Cleaner) Write(p []byte) (int, error) {
	c.errWrite = nil
	if c.xf != nil {
		c.xf.run(p, false, c.feedValid)
	} else {
		c.feedUTF8(p, false)
	}
	err := c.errWrite
	c.errWrite = nil
	return len(p), err
}

func (c *Cleaner) feedValid(p []byte) { c.feed(p, false) }

func (c *Cleaner) feedUTF8(p []byte, eof bool) {
	if !c.started {
		var ok bool
		if p, ok = c.sniff(p, eof); !ok {
			return
		}
	}
	p = c.joinPending(p, eof)
	c.feed(p, eof)
}

// sniff looks for a UTF-16LE byte order mark at the start of the stream.
// It returns the bytes still to read as UTF-8, or false when it needs more
// input or UTF-16 decoding took them.
func (c *Cleaner) sniff(p []byte, eof bool) ([]byte, bool) {
	b := append(c.pend[:c.npend:c.npend], p[:min(len(p), 2)]...)
	switch {
	case len(b) == 0:
		return p, eof
	case b[0] != 0xff || eof && len(b) < 2:
		c.started = true
		return p, true
	case len(b) < 2:
		c.npend = copy(c.pend[:], b)
		return nil, false
	}
	c.started = true
	if b[1] != 0xfe {
		return p, true
	}
	rest := p[2-c.npend:]
	c.npend = 0
	c.xf = newXform(utf16LE())
	c.xf.run(rest, eof, c.feedValid)
	return nil, false
}

// joinPending completes a character split by the previous chunk and
// returns the rest of p. Decoding the joined bytes one character at a time
// keeps the result the same as if the chunks had come as one.
func (c *Cleaner) joinPending(p []byte, eof bool) []byte {
	for c.npend > 0 && (len(p) > 0 || eof) {
		var tmp [2 * utf8.UTFMax]byte
		n := copy(tmp[:], c.pend[:c.npend])
		k := copy(tmp[n:utf8.UTFMax], p)
		b := tmp[:n+k]
		if !eof && !utf8.FullRune(b) {
			c.npend = copy(c.pend[:], b)
			return nil
		}
		r, size := utf8.DecodeRune(b)
		c.rune(r)
		if size <= n {
			c.npend = copy(c.pend[:], c.pend[size:c.npend])
			continue
		}
		p = p[size-n:]
		c.npend = 0
	}
	return p
}

// render returns a row's text and its length in characters.
func (c *Cleaner) render(r *row) (string, int) {
	var chars int
	c.buf, chars = r.appendText(c.buf[:0])
	return string(c.buf), chars
}

// commitRow takes a row leaving the live window: it goes to the full
// output, and to the window unless a Take already returned it as it is.
func (c *Cleaner) commitRow(r *row) { c.commitText(r, true) }

func (c *Cleaner) commitText(r *row, terminated bool) bool {
	c.committed++
	text, chars := c.render(r)
	c.keep(text, r.over, terminated)
	c.lastText = text
	if r.sent && (!r.dirty || r.sentText == text) || !terminated && text == "" {
		return false
	}
	c.emit(text, chars, r.over, c.committed)
	return true
}

// emit adds a line to the window, capped in length.
func (c *Cleaner) emit(text string, chars, extra, num int) {
	t, n, cut := capLine(text, chars, extra, c.opts.MaxLineChars)
	c.win.add(t, n, num)
	if cut {
		c.win.truncated = true
	}
	if c.win.truncated && !c.sink.tried {
		c.openSpill()
	}
}

// Take returns the cleaned text produced since the previous Take (a
// window), capped. With final false it includes the live rows, the partial
// last line too; a row returned before and rewritten since is returned
// again as it now reads. With final true the stream has ended: everything
// is flushed and the Cleaner starts afresh.
func (c *Cleaner) Take(final bool) Chunk {
	openEnd := false
	if final {
		openEnd = c.finish()
	} else {
		openEnd = c.sendLive()
	}
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
	return ch
}

// sendLive adds the live rows a Take has not returned as they now read.
// It reports whether the window ends with an open line.
func (c *Cleaner) sendLive() bool {
	last, open := c.liveExtent()
	ends := false
	for i, r := range c.scr.rows[:last+1] {
		text, chars, changed := c.liveText(r, open && i == last)
		if !changed {
			continue
		}
		c.emit(text, chars, r.over, c.committed+i+1)
		r.sent, r.sentText, r.dirty = true, text, false
		ends = open && i == last
	}
	return ends
}

// liveExtent returns the last live row worth showing and whether it is
// open: the bottom row, which no newline has ended yet, or the cursor's
// empty row. Rows above it are each followed by a newline.
func (c *Cleaner) liveExtent() (int, bool) {
	last := c.scr.extent()
	return last, last == len(c.scr.rows)-1 || c.scr.rows[last].empty()
}

// liveText renders a live row and reports whether a Take should return it.
// An open row is left out while empty: it is only where the cursor waits.
func (c *Cleaner) liveText(r *row, open bool) (string, int, bool) {
	if r.sent && !r.dirty {
		return "", 0, false
	}
	text, chars := c.render(r)
	switch {
	case r.sent && r.sentText == text:
		r.dirty = false
		return "", 0, false
	case open && !r.sent && text == "":
		return "", 0, false
	}
	return text, chars, true
}

// finish ends the stream: pending bytes are decoded, an unfinished escape
// sequence is dropped, and the live rows are committed.
func (c *Cleaner) finish() bool {
	if c.xf != nil {
		c.xf.run(nil, true, c.feedValid)
	} else {
		c.feedUTF8(nil, true)
	}
	c.parser.Reset()
	last, open := c.liveExtent()
	ends := false
	for i, r := range c.scr.rows[:last+1] {
		emitted := c.commitText(r, !open || i < last)
		ends = emitted && open && i == last
	}
	for _, r := range c.scr.rows {
		c.scr.recycle(r)
	}
	c.scr.init(c.opts.Cols, c.opts.Rows, c.scr.maxCells, c.commitRow)
	return ends
}

// Pending reports whether Write has produced text that Take has not
// returned yet.
func (c *Cleaner) Pending() bool {
	if !c.win.empty() {
		return true
	}
	last, open := c.liveExtent()
	for i, r := range c.scr.rows[:last+1] {
		if _, _, changed := c.liveText(r, open && i == last); changed {
			return true
		}
	}
	return false
}

// LastLine returns the cursor's line, trailing spaces trimmed, or the line
// above when the cursor's line is empty: the prompt a program waits at.
func (c *Cleaner) LastLine() string {
	for i := c.scr.cur; i >= 0; i-- {
		text, chars := c.render(c.scr.rows[i])
		if text != "" {
			t, _, _ := capLine(text, chars, c.scr.rows[i].over, c.opts.MaxLineChars)
			return t
		}
		if i < c.scr.cur {
			return ""
		}
	}
	return c.lastText
}
