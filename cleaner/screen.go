package cleaner

import (
	"slices"
	"unicode/utf8"
)

// screen is the part of a terminal that cursor movement can still reach:
// the last height rows. A row scrolled out of it is handed to commit and
// never changes again, which is what keeps memory bounded.
type screen struct {
	rows     []*row
	cur, col int // cursor; cur indexes rows

	savedRow, savedCol int

	cols     int // width: bounds moves to the right, as a terminal's margin does
	height   int // rows kept live
	maxCells int // cells stored per row

	free   []*row
	commit func(*row)
}

func (s *screen) init(cols, height, maxCells int, commit func(*row)) {
	s.cols, s.height, s.maxCells, s.commit = cols, height, maxCells, commit
	s.rows = append(s.rows[:0], s.newRow())
	s.cur, s.col, s.savedRow, s.savedCol = 0, 0, 0, 0
}

func (s *screen) newRow() *row {
	if n := len(s.free); n > 0 {
		r := s.free[n-1]
		s.free = s.free[:n-1]
		return r
	}
	return new(row)
}

func (s *screen) recycle(r *row) {
	r.reset()
	if cap(r.cells) > 4*s.cols || cap(r.ascii) > 4*s.cols {
		r.cells, r.ascii = nil, nil // let an unusually long row's storage go
	}
	s.free = append(s.free, r)
}

// put prints one rune at the cursor. Autowrap is not modelled: a long line
// stays one line, which reads better than the terminal's wrapped rows.
func (s *screen) put(ch rune) {
	w := runeWidth(ch)
	r := s.rows[s.cur]
	r.dirty = true
	if w == 0 {
		r.attach(s.col, ch)
		return
	}
	if s.col+w > s.maxCells {
		s.col += w
		r.over = max(r.over, s.col-s.maxCells)
		return
	}
	if !r.runes && ch < utf8.RuneSelf {
		r.writeASCII(s.col, []byte{byte(ch)})
		s.col++
		return
	}
	r.set(s.col, ch, w)
	s.col += w
}

// writeASCII prints a run of printable ASCII. Appending at the end of a row
// is by far the common case and skips the per-cell checks.
func (s *screen) writeASCII(run []byte) {
	r := s.rows[s.cur]
	if !r.runes && s.col+len(run) <= s.maxCells {
		r.dirty = true
		r.writeASCII(s.col, run)
		s.col += len(run)
		return
	}
	if s.col < len(r.cells) || s.col+len(run) > s.maxCells {
		for _, b := range run {
			s.put(rune(b))
		}
		return
	}
	r.dirty = true
	for len(r.cells) < s.col {
		r.cells = append(r.cells, ' ')
	}
	for _, b := range run {
		r.cells = append(r.cells, rune(b))
	}
	s.col += len(run)
}

// lineFeed moves down a row, scrolling at the bottom. A bare LF also
// returns the carriage: output read through pipes has no onlcr to add the
// CR, and on a pty the CR is already there.
func (s *screen) lineFeed(keepCol bool) {
	if !keepCol {
		s.col = 0
	}
	if s.cur < len(s.rows)-1 {
		s.cur++
		return
	}
	s.rows = append(s.rows, s.newRow())
	s.cur++
	if len(s.rows) > s.height {
		s.scrollOff()
	}
}

// scrollOff commits the oldest live row.
func (s *screen) scrollOff() {
	old := s.rows[0]
	s.commit(old)
	copy(s.rows, s.rows[1:])
	s.rows = s.rows[:len(s.rows)-1]
	s.cur = max(s.cur-1, 0)
	s.savedRow = max(s.savedRow-1, 0)
	s.recycle(old)
}

func (s *screen) up(n int) { s.cur = max(s.cur-n, 0) }

// down stops at the bottom of the screen, height rows below the top of the
// live window; rows not yet written are blank, as on a fresh terminal.
func (s *screen) down(n int) { s.toRow(s.cur + n) }

// toRow moves to a row counted from the top of the live window, creating
// blank rows below for a program that draws a full screen.
func (s *screen) toRow(n int) {
	n = min(max(n, 0), s.height-1)
	for len(s.rows) <= n {
		s.rows = append(s.rows, s.newRow())
	}
	s.cur = n
}

func (s *screen) toCol(n int) { s.col = min(max(n, 0), s.cols-1) }

func (s *screen) forward(n int) { s.col = max(min(s.col+n, s.cols-1), s.col) }

func (s *screen) back(n int) { s.col = max(s.col-n, 0) }

func (s *screen) tab() { s.col = min((s.col/8+1)*8, max(s.maxCells, s.col)) }

func (s *screen) save() { s.savedRow, s.savedCol = s.cur, s.col }

func (s *screen) restore() {
	s.cur = min(s.savedRow, len(s.rows)-1)
	s.col = s.savedCol
}

// eraseLine implements EL: 0 cursor to end, 1 start to cursor, 2 whole row.
func (s *screen) eraseLine(mode int) {
	r := s.rows[s.cur]
	r.dirty = true
	switch mode {
	case 0:
		r.truncate(s.col, s.maxCells)
	case 1:
		r.blank(0, s.col+1)
	case 2:
		r.truncate(0, s.maxCells)
	}
}

// eraseDisplay implements ED within the live rows; committed rows are
// scrollback, which ED does not touch.
func (s *screen) eraseDisplay(mode int) {
	from, to := 0, len(s.rows)
	switch mode {
	case 0:
		s.eraseLine(0)
		from = s.cur + 1
	case 1:
		s.eraseLine(1)
		to = s.cur
	case 2:
	default:
		return
	}
	for _, r := range s.rows[from:to] {
		r.truncate(0, s.maxCells)
		r.dirty = true
	}
}

func (s *screen) eraseChars(n int) {
	r := s.rows[s.cur]
	r.dirty = true
	r.blank(s.col, s.col+n)
}

func (s *screen) deleteChars(n int) {
	r := s.rows[s.cur]
	r.dirty = true
	r.deleteCells(s.col, n)
}

func (s *screen) insertChars(n int) {
	r := s.rows[s.cur]
	r.dirty = true
	r.insertCells(s.col, n, s.maxCells)
}

// insertLines opens n blank rows at the cursor (IL); rows pushed past the
// bottom of the window are lost, as below a terminal's bottom margin.
func (s *screen) insertLines(n int) {
	n = min(n, len(s.rows)-s.cur)
	for range n {
		r := s.newRow()
		r.dirty = true
		s.rows = slices.Insert(s.rows, s.cur, r)
		last := s.rows[len(s.rows)-1]
		s.rows = s.rows[:len(s.rows)-1]
		s.recycle(last)
	}
	s.col = 0
}

// deleteLines removes n rows at the cursor (DL), adding blanks at the bottom.
func (s *screen) deleteLines(n int) {
	n = min(n, len(s.rows)-s.cur)
	for range n {
		gone := s.rows[s.cur]
		s.rows = slices.Delete(s.rows, s.cur, s.cur+1)
		s.recycle(gone)
		r := s.newRow()
		r.dirty = true
		s.rows = append(s.rows, r)
	}
	s.col = 0
}

// extent returns the last row worth showing: the cursor's, or a non-empty
// row below it left by a program that moved the cursor up.
func (s *screen) extent() int {
	for i := len(s.rows) - 1; i > s.cur; i-- {
		if !s.rows[i].empty() {
			return i
		}
	}
	return s.cur
}
