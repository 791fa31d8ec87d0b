package session

import (
	"bytes"
	"sort"
	"strings"
	"unicode/utf8"
)

// historyKeep is how much of a session's history is kept in memory, at
// least: older blocks of lines are dropped whole (the spill file has
// every character of the output).
const historyKeep = 1 << 20

// blockSize is how many bytes of lines of one stream are held together:
// a line is not an allocation of its own, so a command printing short
// lines costs its text and little more.
const blockSize = 4 << 10

// history is a session's output as a sequence of lines, each ending with
// a newline, stdout's and stderr's in the order they were shown, as the
// cleaner emits them (see cleaner.Options.OnEmit): what a host reading
// after every write would have seen. A position in it, a cursor, counts
// the bytes of every line ever added before it, so a cursor stays valid
// however much is dropped. It keeps the last keep bytes at least, and at
// most a block more.
type history struct {
	keep    int
	dropped func()      // called before the first block is dropped
	blocks  []histBlock // blocks[first:] are kept
	first   int
	bytes   int   // bytes of the kept blocks
	start   int64 // the cursor of blocks[first]
	end     int64 // the cursor after the last line
}

// histBlock is consecutive lines of one stream, each with its newline.
type histBlock struct {
	at     int64 // its cursor
	text   []byte
	stderr bool
}

func newHistory(keep int) *history { return &history{keep: keep} }

// add appends one line and its newline.
func (h *history) add(line string, stderr bool) {
	n := len(h.blocks)
	if n == h.first || h.blocks[n-1].stderr != stderr || len(h.blocks[n-1].text)+len(line) >= blockSize {
		h.blocks = append(h.blocks, histBlock{at: h.end, stderr: stderr,
			text: make([]byte, 0, max(blockSize, len(line)+1))})
		n++
	}
	b := &h.blocks[n-1]
	b.text = append(append(b.text, line...), '\n')
	h.end += int64(len(line) + 1)
	h.bytes += len(line) + 1
	for h.first < n-1 && h.bytes-len(h.blocks[h.first].text) >= h.keep {
		h.drop()
	}
	if h.first > 64 && h.first > len(h.blocks)/2 {
		h.blocks = h.blocks[:copy(h.blocks, h.blocks[h.first:])]
		h.first = 0
	}
}

// drop lets the oldest kept block go.
func (h *history) drop() {
	if h.start == 0 && h.dropped != nil {
		h.dropped()
	}
	b := h.blocks[h.first]
	h.blocks[h.first] = histBlock{}
	h.first++
	h.bytes -= len(b.text)
	h.start += int64(len(b.text))
}

// span is a read of the history from a cursor.
type span struct {
	output, stderr strings.Builder
	next           int64 // the cursor after what was read
	skipped        int64 // bytes between the cursor asked and the oldest kept
	more           bool  // there is more after next
}

// read returns the lines from cursor on, at most limit characters in all
// (at least one line, or the rest of one a cursor falls inside), split by
// stream. A cursor before what is kept reads from the oldest line kept
// and says how much was skipped; one past the end reads nothing.
func (h *history) read(cursor int64, limit int) *span {
	sp := &span{next: max(cursor, h.start)}
	sp.skipped = sp.next - cursor
	if sp.next >= h.end {
		sp.next = max(sp.next, h.end)
		return sp
	}
	kept := h.blocks[h.first:]
	i := sort.Search(len(kept), func(i int) bool { return kept[i].at > sp.next }) - 1
	used := 0
	for ; i < len(kept) && !sp.more; i++ {
		used = sp.readBlock(&kept[i], used, limit)
	}
	return sp
}

// readBlock reads b's lines from sp.next on while they fit in limit
// characters with the used ones, and returns the characters used.
func (sp *span) readBlock(b *histBlock, used, limit int) int {
	out := &sp.output
	if b.stderr {
		out = &sp.stderr
	}
	off := startOfChar(b.text, int(sp.next-b.at))
	for off < len(b.text) {
		end := off + bytes.IndexByte(b.text[off:], '\n') + 1
		n := utf8.RuneCount(b.text[off:end])
		if used > 0 && used+n > limit {
			sp.more = true
			return used
		}
		used += n
		out.Write(b.text[off:end])
		off = end
		sp.next = b.at + int64(end)
	}
	return used
}

// startOfChar is off, moved forward to a character's start when it falls
// inside one.
func startOfChar(text []byte, off int) int {
	for off < len(text) && !utf8.RuneStart(text[off]) {
		off++
	}
	return off
}
