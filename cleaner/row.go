package cleaner

import (
	"hash/maphash"
	"slices"
	"unicode/utf8"
)

// wideTail fills the right cell of a two-cell rune. NUL never reaches a cell
// as text because control characters are executed, not printed.
const wideTail rune = 0

// maxMarkBytes bounds the zero-width runes kept on one cell, so text stacked
// with combining marks cannot grow a row without limit.
const maxMarkBytes = 32

// row is one terminal row: a cell per column, at most the screen's width.
// Rows in the live window may still be rewritten by cursor movement.
//
// A row starts out holding its cells as bytes, which lets the common case,
// ASCII text written left to right or over itself, be copied in bulk. The
// first wide, combining or non-ASCII character moves it to runes.
type row struct {
	ascii []byte // the cells while runes is false
	runes bool
	cells []rune // the cells once runes is true
	// marks holds zero-width runes (combining marks, joiners) by the column
	// they attach to; nil for almost every row.
	marks map[int]string
	// wrapped is set when autowrap carried the text on to the next row:
	// the two rows are one line of text.
	wrapped bool
	sentState
	// hash caches the row's text for Generation while hashed is set.
	hash   uint64
	hashed bool
}

// sentState records what a Take already returned for the line a row
// starts, so an unchanged line is not returned twice. dirty is set on
// every change.
type sentState struct {
	dirty    bool
	sent     bool
	sentText string // as returned, capped
}

func (r *row) reset() {
	r.ascii = r.ascii[:0]
	r.runes = false
	r.cells = r.cells[:0]
	r.marks = nil
	r.wrapped = false
	r.sentState = sentState{}
	r.hashed = false
}

// promote moves the row's cells from bytes to runes.
func (r *row) promote() {
	if r.runes {
		return
	}
	r.cells = r.cells[:0]
	for _, b := range r.ascii {
		r.cells = append(r.cells, rune(b))
	}
	r.ascii = r.ascii[:0]
	r.runes = true
}

// writeASCII writes printable ASCII at col of a row still held as bytes
// and reports whether that changed the row.
func (r *row) writeASCII(col int, run []byte) bool {
	if col+len(run) <= len(r.ascii) {
		if string(r.ascii[col:col+len(run)]) == string(run) {
			return false
		}
		copy(r.ascii[col:], run)
		return true
	}
	for len(r.ascii) < col {
		r.ascii = append(r.ascii, ' ')
	}
	n := copy(r.ascii[col:], run)
	r.ascii = append(r.ascii, run[n:]...)
	return true
}

// set writes ch of width w (1 or 2) at col, padding with blanks, and blanks
// the other half of any wide rune it overwrites, as a terminal does.
func (r *row) set(col int, ch rune, w int) {
	r.promote()
	for len(r.cells) < col+w {
		r.cells = append(r.cells, ' ')
	}
	r.unsplit(col)
	if w == 2 {
		r.unsplit(col + 1)
	}
	r.cells[col] = ch
	if w == 2 {
		r.cells[col+1] = wideTail
	}
	if r.marks != nil {
		delete(r.marks, col)
		delete(r.marks, col+1)
	}
}

func (r *row) unsplit(col int) {
	if r.cells[col] == wideTail && col > 0 {
		r.cells[col-1] = ' '
	}
	if col+1 < len(r.cells) && r.cells[col+1] == wideTail {
		r.cells[col+1] = ' '
	}
}

// attach adds a zero-width rune to the cell left of col.
func (r *row) attach(col int, ch rune) {
	r.promote()
	col--
	if col > 0 && col < len(r.cells) && r.cells[col] == wideTail {
		col--
	}
	if col < 0 || col >= len(r.cells) {
		return
	}
	if r.marks == nil {
		r.marks = make(map[int]string)
	}
	if len(r.marks[col])+utf8.RuneLen(ch) <= maxMarkBytes {
		r.marks[col] += string(ch)
	}
}

// blank replaces cells [from, to) with spaces.
func (r *row) blank(from, to int) {
	if !r.runes {
		for i := max(from, 0); i < min(to, len(r.ascii)); i++ {
			r.ascii[i] = ' '
		}
		return
	}
	to = min(to, len(r.cells))
	for i := max(from, 0); i < to; i++ {
		r.cells[i] = ' '
		if r.marks != nil {
			delete(r.marks, i)
		}
	}
	if from > 0 && from < len(r.cells) {
		r.unsplit(from)
	}
}

// truncate erases from col to the end of the row.
func (r *row) truncate(col int) {
	if !r.runes {
		r.ascii = r.ascii[:min(col, len(r.ascii))]
		return
	}
	if col < len(r.cells) {
		if col > 0 && r.cells[col] == wideTail {
			r.cells[col-1] = ' '
		}
		r.cells = r.cells[:col]
		for k := range r.marks {
			if k >= col {
				delete(r.marks, k)
			}
		}
	}
}

// deleteCells removes n cells at col, shifting the rest left (DCH).
func (r *row) deleteCells(col, n int) {
	r.promote()
	if col >= len(r.cells) {
		return
	}
	r.blank(col, col+1)
	end := min(col+n, len(r.cells))
	r.cells = slices.Delete(r.cells, col, end)
	r.marks = nil
}

// insertCells inserts n blanks at col, shifting the rest right (ICH);
// cells pushed past cols are lost.
func (r *row) insertCells(col, n, cols int) {
	r.promote()
	if col >= len(r.cells) {
		return
	}
	r.unsplit(col)
	n = min(n, cols-col)
	r.cells = slices.Insert(r.cells, col, slices.Repeat([]rune{' '}, n)...)
	if len(r.cells) > cols {
		if r.cells[cols] == wideTail {
			r.cells[cols-1] = ' '
		}
		r.cells = r.cells[:cols]
	}
	r.marks = nil
}

// empty reports whether the row shows nothing.
func (r *row) empty() bool {
	if len(r.marks) > 0 {
		return false
	}
	for _, c := range r.ascii {
		if c != ' ' {
			return false
		}
	}
	for _, c := range r.cells {
		if c != ' ' {
			return false
		}
	}
	return true
}

// appendText appends the row's visible text, trailing spaces trimmed
// unless keep is set, and returns it with its length in characters. A
// wrapped row keeps its trailing spaces: the line goes on after them.
func (r *row) appendText(buf []byte, keep bool) ([]byte, int) {
	if !r.runes {
		end := len(r.ascii)
		for !keep && end > 0 && r.ascii[end-1] == ' ' {
			end--
		}
		return append(buf, r.ascii[:end]...), end
	}
	if r.marks != nil {
		return r.appendMarked(buf, keep)
	}
	end := len(r.cells)
	for !keep && end > 0 && r.cells[end-1] == ' ' {
		end--
	}
	chars := 0
	for _, c := range r.cells[:end] {
		switch {
		case c == wideTail:
		case c < utf8.RuneSelf:
			buf = append(buf, byte(c))
			chars++
		default:
			buf = utf8.AppendRune(buf, c)
			chars++
		}
	}
	return buf, chars
}

// appendMarked is appendText for a row with zero-width runes attached.
func (r *row) appendMarked(buf []byte, keep bool) ([]byte, int) {
	end := len(r.cells)
	for !keep && end > 0 && r.cells[end-1] == ' ' && r.marks[end-1] == "" {
		end--
	}
	chars := 0
	for i, c := range r.cells[:end] {
		if c != wideTail {
			buf = utf8.AppendRune(buf, c)
			chars++
		}
		if m := r.marks[i]; m != "" {
			buf = append(buf, m...)
			chars += utf8.RuneCountInString(m)
		}
	}
	return buf, chars
}

// emptySum is the sum of a blank row.
const emptySum uint64 = 14695981039346656037

// sum returns a hash of the row's visible text, cached until it changes.
func (r *row) sum(seed maphash.Seed) uint64 {
	if r.hashed {
		return r.hash
	}
	h := emptySum
	if !r.runes {
		end := len(r.ascii)
		for end > 0 && r.ascii[end-1] == ' ' {
			end--
		}
		if end > 0 {
			h = maphash.Bytes(seed, r.ascii[:end])
		}
	} else {
		end := len(r.cells)
		for end > 0 && r.cells[end-1] == ' ' {
			end--
		}
		for _, c := range r.cells[:end] {
			h = (h ^ uint64(c)) * 1099511628211
		}
		if len(r.marks) > 0 {
			h = (h ^ uint64(len(r.marks))) * 1099511628211
		}
	}
	r.hash, r.hashed = h, true
	return h
}
