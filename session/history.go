package session

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// historyKeep is how much of a session's history is kept in memory, at
// least: older lines are dropped whole (the spill file has every
// character of the output).
const historyKeep = 1 << 20

// history is a session's output as a sequence of lines, each ending with
// a newline, stdout's and stderr's in the order they were shown, as the
// cleaner emits them (see cleaner.Options.OnEmit): what a host reading
// after every write would have seen. A position in it, a cursor, counts
// the bytes of every line ever added before it, so a cursor stays valid
// however much is dropped. It bounds what it keeps to the last keep bytes
// or a little more (whole lines).
type history struct {
	keep    int
	dropped func()      // called before the first line is dropped
	lines   []histEntry // lines[first:] are kept
	first   int
	bytes   int   // bytes of the kept lines
	start   int64 // the cursor of lines[first]
	end     int64 // the cursor after the last line
}

type histEntry struct {
	at     int64 // its cursor
	text   string
	stderr bool
}

func newHistory(keep int) *history { return &history{keep: keep} }

// add appends one line (its newline is added here).
func (h *history) add(line string, stderr bool) {
	text := line + "\n"
	h.lines = append(h.lines, histEntry{at: h.end, text: text, stderr: stderr})
	h.end += int64(len(text))
	h.bytes += len(text)
	for h.first < len(h.lines)-1 && h.bytes-len(h.lines[h.first].text) >= h.keep {
		h.drop()
	}
	if h.first > 1024 && h.first > len(h.lines)/2 {
		h.lines = h.lines[:copy(h.lines, h.lines[h.first:])]
		h.first = 0
	}
}

// drop lets the oldest kept line go.
func (h *history) drop() {
	if h.start == 0 && h.dropped != nil {
		h.dropped()
	}
	e := h.lines[h.first]
	h.lines[h.first] = histEntry{}
	h.first++
	h.bytes -= len(e.text)
	h.start += int64(len(e.text))
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
	kept := h.lines[h.first:]
	i := sort.Search(len(kept), func(i int) bool { return kept[i].at > sp.next }) - 1
	used := 0
	for ; i < len(kept); i++ {
		e := kept[i]
		text := tailFrom(e.text, int(sp.next-e.at))
		n := utf8.RuneCountInString(text)
		if used > 0 && used+n > limit {
			sp.more = true
			break
		}
		used += n
		if e.stderr {
			sp.stderr.WriteString(text)
		} else {
			sp.output.WriteString(text)
		}
		sp.next = e.at + int64(len(e.text))
	}
	return sp
}

// tailFrom is text from byte off on, moved forward to a character's start
// when off falls inside one.
func tailFrom(text string, off int) string {
	for off < len(text) && !utf8.RuneStart(text[off]) {
		off++
	}
	return text[off:]
}
