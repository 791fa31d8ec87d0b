package cleaner

import (
	"hash/maphash"
	"io"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

const (
	defaultMaxLineChars   = 500
	defaultMaxStreamChars = 16000
	defaultRows           = 64
)

// Options configure a Cleaner. The zero value is ready to use, for a
// stream with no terminal.
type Options struct {
	MaxLineChars   int    // 0 means 500
	MaxStreamChars int    // 0 means 16000
	Encoding       string // "" means UTF-8 (with UTF-16LE BOM sniffing)
	// Cols is the width of the terminal the stream is written to; text
	// wraps at it as on that terminal, and rows joined by wrapping still
	// come out as one line. 0 means the stream has no terminal (pipes):
	// nothing wraps, and cursor movement has no right margin to stop at
	// short of 4096 columns. Any other value is at least 2.
	Cols int
	// Rows is the terminal's height: how many of the last lines cursor
	// movement may still rewrite. 0 means 64.
	Rows int
	// Spill is called at most once, the first time anything must be cut. It
	// returns where the full cleaned text goes and the path to report as
	// FullOutputPath. The full text is the whole stream as Take(true) would
	// give it uncut, every character of every line however long; if more
	// than 1 MiB went by before the first cut, its first line says how many
	// lines were not kept.
	Spill func() (w io.Writer, path string, err error)
	// SpillLong opens the spill, as a cut does, once more than 1 MiB of
	// text has been committed, rather than let the oldest go: for a
	// caller that keeps text of its own (see OnEmit) and names the spill
	// for what it no longer keeps.
	SpillLong bool
	// OnCommit, if set, is called with each line as it leaves the live
	// window for good, the text as the spill gets it (without the newline),
	// so a caller can match a pattern on every line across writes. A line
	// longer than 64 KiB comes in pieces of at most that many bytes, cut
	// between characters, so that no line is held whole. Lines of the
	// alternate screen, and lines scrolled out of a region that does not
	// start at the top of the screen, never leave for good: they are gone.
	// It is called from within Write, Take and Resize, and must not call
	// the Cleaner.
	OnCommit func(line string)
	// OnEmit, if set, is called with each line as it enters a window of
	// Take, capped like a line and in the order of the windows: a line
	// rewritten after a Take or Publish returned it comes again as it now
	// reads. Joined, these lines are the text an answer after every write
	// would have shown, uncut by the stream cap. The main screen's live
	// lines that TakePage counts as shown under a page come too. It is
	// called from within Write, Take, Publish, End and TakePage, and must
	// not call the Cleaner.
	OnEmit func(line string)
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
	o.Cols = def(o.Cols, 0, 2)
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
	term   terminal
	win    window
	sink   sink
	part   partial // a line whose first rows were committed

	xf      *xform // legacy code page or UTF-16 decoding; nil for UTF-8
	pend    [utf8.UTFMax]byte
	npend   int  // bytes of pend holding a character cut by a chunk boundary
	started bool // the BOM check is done
	strLen  int  // bytes inside the current OSC, DCS, APC, PM or SOS string

	committed int    // lines committed so far, for line numbers
	lastText  string // the last committed line, capped, for LastLine
	buf       []byte // scratch for rendering rows
	lbuf      []byte // scratch for rendering lines of text

	seed     maphash.Seed
	gen      uint64 // what Generation returns
	lastHash uint64 // the screen's hash when gen last changed

	// winOpen: the window ends with an open line (see window.render).
	winOpen bool
	// ended: End has flushed the stream, and the next Take(true) only
	// returns the window.
	ended bool

	errPending error // spill failure not yet reported by Take
	errWrite   error // spill failure during the current Write
}

// New returns a Cleaner for one stream.
func New(opts Options) *Cleaner {
	o := opts.withDefaults()
	c := &Cleaner{opts: o, win: newWindow(o.MaxStreamChars)}
	c.parser = c.newParser()
	c.sink.open = o.Spill
	c.term.init(o.Cols, o.Rows, c.commitRow)
	c.seed = maphash.MakeSeed()
	c.lastHash = c.screenHash()
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
