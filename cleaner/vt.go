package cleaner

import (
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// maxStringBytes bounds an OSC, DCS, APC, PM or SOS string. A terminal
// swallows everything until the terminator; past this much we assume the
// terminator was lost and show the output again.
const maxStringBytes = 1 << 20

// newParser returns an ansi.Parser that keeps little string data: the
// cleaner drops OSC, DCS and the like, so their payload is never read.
func (c *Cleaner) newParser() *ansi.Parser {
	p := new(ansi.Parser)
	p.SetParamsSize(parser.MaxParamsSize)
	p.SetDataSize(64)
	p.SetHandler(ansi.Handler{
		Print:     c.print,
		Execute:   c.execute,
		HandleCsi: c.csi,
		HandleEsc: c.esc,
	})
	return p
}

// feed runs valid or partial UTF-8 through the terminal. Runs of plain
// ASCII and string payloads bypass the parser, which is the hot path for
// ordinary logs; escape sequences go through it byte by byte. With eof
// false, a character cut at the end of p is kept for the next call.
func (c *Cleaner) feed(p []byte, eof bool) {
	for i := 0; i < len(p); {
		switch st := c.parser.State(); st {
		case parser.GroundState:
			i = c.ground(p, i, eof)
		case parser.OscStringState, parser.DcsStringState, parser.SosStringState,
			parser.PmStringState, parser.ApcStringState:
			i = c.skipString(p, i, eof)
		case parser.DcsEntryState, parser.DcsParamState, parser.DcsIntermediateState:
			// ESC ends a DCS header as it does any sequence; the parser
			// would take it as the start of tmux-style passthrough data.
			if p[i] == 0x1b {
				c.parser.Reset()
			}
			fallthrough
		default:
			if p[i] < utf8.RuneSelf {
				c.advance(p[i])
				i++
			} else {
				i = c.multi(p, i, eof)
			}
		}
	}
}

func (c *Cleaner) ground(p []byte, i int, eof bool) int {
	j := i
	for j < len(p) && p[j]-0x20 < 0x5f {
		j++
	}
	if j > i {
		c.term.scr.writeASCII(p[i:j])
		c.term.last = rune(p[j-1])
		return j
	}
	switch b := p[i]; {
	case b == 0x1b:
		if j := skipSGR(p, i); j > i {
			return j
		}
		c.advance(b)
	case b == '\n':
		c.term.scr.lineFeed()
	case b == '\r':
		c.term.scr.carriageReturn()
	case b < utf8.RuneSelf:
		c.advance(b)
	default:
		return c.multi(p, i, eof)
	}
	return i + 1
}

// advance feeds the parser one byte, starting the count of a string
// payload when the byte opens one.
func (c *Cleaner) advance(b byte) {
	was := inString(c.parser.State())
	c.parser.Advance(b)
	if !was && inString(c.parser.State()) {
		c.strLen = 0
	}
}

func inString(st parser.State) bool {
	switch st {
	case parser.OscStringState, parser.DcsStringState, parser.SosStringState,
		parser.PmStringState, parser.ApcStringState:
		return true
	}
	return false
}

// skipSGR returns the end of a complete SGR sequence at p[i], or i. SGR
// only styles text, and logs are full of it: skipping it whole spares the
// parser a call per byte. Anything else, or a sequence split across writes,
// goes through the parser.
func skipSGR(p []byte, i int) int {
	j := i + 2
	if j > len(p) || p[i+1] != '[' {
		return i
	}
	for j < len(p) && (p[j] >= '0' && p[j] <= '9' || p[j] == ';' || p[j] == ':') {
		j++
	}
	if j < len(p) && p[j] == 'm' {
		return j + 1
	}
	return i
}

// skipString skips a string payload up to a byte that may end it. The
// payload cap is checked at an exact byte count, so where writes split the
// input does not change where a runaway string is abandoned.
func (c *Cleaner) skipString(p []byte, i int, eof bool) int {
	j, end := i, min(len(p), i+maxStringBytes-c.strLen)
	for j < end {
		b := p[j]
		if b == 0x07 || b == 0x18 || b == 0x1a || b == 0x1b || b >= utf8.RuneSelf {
			break
		}
		j++
	}
	c.strLen += j - i
	switch {
	case c.strLen >= maxStringBytes:
		c.parser.Reset()
		return j
	case j == len(p):
		return j
	case p[j] < utf8.RuneSelf:
		c.advance(p[j])
		return j + 1
	}
	return c.multi(p, j, eof)
}

// multi handles a multi-byte character starting at p[i].
func (c *Cleaner) multi(p []byte, i int, eof bool) int {
	if !eof && !utf8.FullRune(p[i:]) {
		c.npend = copy(c.pend[:], p[i:])
		return len(p)
	}
	r, n := utf8.DecodeRune(p[i:])
	c.rune(r)
	return i + n
}

// rune handles a decoded non-ASCII character (U+FFFD for an invalid byte).
// C1 controls written as code points act as controls, as in xterm's UTF-8
// mode; anything else inside a sequence is dropped with it.
func (c *Cleaner) rune(r rune) {
	if r >= 0x80 && r < 0xa0 {
		c.advance(byte(r))
		return
	}
	switch st := c.parser.State(); {
	case st == parser.GroundState:
		c.print(r)
	case inString(st):
		if c.strLen += utf8.RuneLen(r); c.strLen >= maxStringBytes {
			c.parser.Reset()
		}
	}
}

// print puts a printable character and remembers it for REP.
func (c *Cleaner) print(r rune) {
	c.term.scr.put(r)
	c.term.last = r
}

func (c *Cleaner) execute(b byte) {
	s := c.term.scr
	switch b {
	case '\b':
		s.back(1)
	case '\t':
		s.tab()
	case '\n', '\v', '\f', 0x85: // 0x85 is NEL
		s.lineFeed()
	case '\r':
		s.carriageReturn()
	case 0x84: // IND
		s.wrapNext = false
		s.index()
	case 0x88: // HTS
		s.setTab()
	case 0x8d: // RI
		s.reverseIndex()
	}
}

func (c *Cleaner) esc(cmd ansi.Cmd) {
	if cmd.Intermediate() != 0 {
		return // charset designations and the like
	}
	s := c.term.scr
	switch cmd.Final() {
	case '7':
		s.save()
	case '8':
		s.restore()
	case 'D':
		s.wrapNext = false
		s.index()
	case 'E':
		s.lineFeed()
	case 'H':
		s.setTab()
	case 'M':
		s.reverseIndex()
	case 'c':
		c.term.reset()
	}
}

// count reads a repeat or position parameter: missing or 0 means 1, and
// absurd values are clamped so they cannot overflow cursor arithmetic.
func count(params ansi.Params, i int) int {
	v, _, _ := params.Param(i, 1)
	return min(max(v, 1), 1<<16)
}

func (c *Cleaner) csi(cmd ansi.Cmd, params ansi.Params) {
	switch {
	case cmd.Prefix() == '?' && cmd.Intermediate() == 0:
		c.privateMode(cmd.Final(), params)
	case cmd.Prefix() == 0 && cmd.Intermediate() == '!' && cmd.Final() == 'p':
		c.term.softReset()
	case cmd.Prefix() != 0 || cmd.Intermediate() != 0:
		// keyboard protocols, queries: nothing visible
	case c.csiMove(cmd.Final(), params):
	default:
		c.csiEdit(cmd.Final(), params)
	}
}

// privateMode applies DEC private modes (CSI ? Pm h / l).
func (c *Cleaner) privateMode(final byte, params ansi.Params) {
	if final != 'h' && final != 'l' {
		return
	}
	for i := range params {
		v, _, _ := params.Param(i, 0)
		c.term.setMode(v, final == 'h')
	}
}

// csiMove applies cursor movement and reports whether final was one.
func (c *Cleaner) csiMove(final byte, params ansi.Params) bool {
	s, n := c.term.scr, count(params, 0)
	switch final {
	case 'A':
		s.up(n)
	case 'B', 'e':
		s.down(n)
	case 'C', 'a':
		s.forward(n)
	case 'D':
		s.back(n)
	case 'E':
		s.down(n)
		s.carriageReturn()
	case 'F':
		s.up(n)
		s.carriageReturn()
	case 'G', '`':
		s.toCol(n - 1)
	case 'd':
		s.address(n-1, s.col)
	case 'H', 'f':
		s.address(n-1, count(params, 1)-1)
	case 'I':
		for range min(n, s.cols) {
			s.tab()
		}
	case 'Z':
		for range min(n, s.cols) {
			s.backTab()
		}
	default:
		return false
	}
	return true
}

// csiEdit applies erasing, insertion, scrolling, margins and cursor saving.
func (c *Cleaner) csiEdit(final byte, params ansi.Params) {
	s, n := c.term.scr, count(params, 0)
	mode, _, _ := params.Param(0, 0)
	switch final {
	case 'J':
		s.eraseDisplay(mode)
	case 'K':
		s.eraseLine(mode)
	case 'X':
		s.eraseChars(n)
	case 'P':
		s.deleteChars(n)
	case '@':
		s.insertChars(n)
	case 'L':
		s.insertLines(n)
	case 'M':
		s.deleteLines(n)
	case 'S':
		s.scrollUp(n)
	case 'T':
		if len(params) <= 1 {
			s.scrollDown(n)
		}
	case 'b':
		c.repeat(n)
	case 'g':
		s.clearTabs(mode)
	case 'r':
		bot, _, _ := params.Param(1, 0)
		c.term.setMargins(mode, bot)
	case 'h', 'l':
		if mode == 4 {
			c.term.m.insert = final == 'h'
		}
	case 's':
		if len(params) == 0 {
			s.save()
		}
	case 'u':
		if len(params) == 0 {
			s.restore()
		}
	}
}

// repeat prints the last character n more times (REP), which ncurses uses
// for runs of one character.
func (c *Cleaner) repeat(n int) {
	if c.term.last == 0 {
		return
	}
	for range min(n, c.term.width()*c.term.main.height) {
		c.term.scr.put(c.term.last)
	}
}
