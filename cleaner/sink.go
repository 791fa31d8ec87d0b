package cleaner

import (
	"bufio"
	"io"
	"strconv"
)

// historyBytes bounds the committed text kept in memory before anything
// was cut, to be written to the spill if a cut comes later.
const historyBytes = 1 << 20

// sink is the full cleaned output: held in memory (bounded) until the
// first cut, then written through to the caller's spill writer. Lines in
// it are whole, however long: a long line comes in pieces as its rows are
// committed, and is written through as it comes.
type sink struct {
	open  func() (io.Writer, string, error)
	tried bool
	w     *bufio.Writer
	path  string

	history   []histLine
	histStart int
	histBytes int
	dropped   int // lines that fell out of history
}

// histLine is committed text waiting in memory for a possible spill: a
// line, or a piece of one when terminated is false.
type histLine struct {
	text       string
	terminated bool
}

// keep adds committed text to the full output.
func (c *Cleaner) keep(text string, terminated bool) {
	s := &c.sink
	switch {
	case s.w != nil:
		c.spillLine(histLine{text, terminated})
		return
	case s.tried:
		return // no spill will ever take it
	}
	s.history = append(s.history, histLine{text, terminated})
	s.histBytes += len(text) + 32
	if s.histBytes > historyBytes && c.opts.SpillLong {
		c.openSpill() // which writes the history, this text included
		return
	}
	for s.histBytes > historyBytes && s.histStart < len(s.history) {
		c.dropLine()
	}
	if s.histStart > 1024 && s.histStart > len(s.history)/2 {
		s.history = s.history[:copy(s.history, s.history[s.histStart:])]
		s.histStart = 0
	}
}

// dropLine lets the oldest line of the history go, all its pieces.
func (c *Cleaner) dropLine() {
	s := &c.sink
	for s.histStart < len(s.history) {
		l := s.history[s.histStart]
		s.histBytes -= len(l.text) + 32
		s.history[s.histStart] = histLine{}
		s.histStart++
		if l.terminated {
			break
		}
	}
	s.dropped++
}

func (c *Cleaner) spillLine(l histLine) {
	c.spillWrite(l.text)
	if l.terminated {
		c.spillWrite("\n")
	}
}

// openSpill asks the caller for the spill writer, once, and writes the
// history into it.
func (c *Cleaner) openSpill() {
	s := &c.sink
	s.tried = true
	history := s.history[s.histStart:]
	s.history, s.histStart, s.histBytes = nil, 0, 0
	if s.open == nil {
		return
	}
	w, path, err := s.open()
	if err != nil {
		c.spillFailed(err)
		return
	}
	s.w, s.path = bufio.NewWriterSize(w, 32<<10), path
	if s.dropped > 0 {
		c.spillWrite("[... the first " + strconv.Itoa(s.dropped) + " lines were not kept]\n")
	}
	for _, l := range history {
		c.spillLine(l)
	}
}

// Spill opens the spill now, if nothing has opened it yet, as a cut
// would: from now on the full text is on disk. It may be called from
// OnEmit.
func (c *Cleaner) Spill() {
	if !c.sink.tried {
		c.openSpill()
	}
}

// SpillPath is where the full text goes, once it is spilled ("" before).
func (c *Cleaner) SpillPath() string { return c.sink.path }

func (c *Cleaner) spillWrite(t string) {
	if c.sink.w == nil {
		return // failed earlier
	}
	if _, err := c.sink.w.WriteString(t); err != nil {
		c.spillFailed(err)
	}
}

func (c *Cleaner) flushSpill() {
	if c.sink.w == nil {
		return
	}
	if err := c.sink.w.Flush(); err != nil {
		c.spillFailed(err)
	}
}

// spillFailed stops spilling and queues the error to be reported once.
func (c *Cleaner) spillFailed(err error) {
	c.sink.w = nil
	c.errPending = err
	c.errWrite = err
}
