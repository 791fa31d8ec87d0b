package cleaner

import "slices"

// screen is one grid of a terminal: the main screen or the alternate one.
// Rows are made as the cursor first reaches them, so rows[0] is the top of
// the screen and rows not made yet are blank. On the main screen a row
// that scrolls off the top is handed to commit and never changes again,
// which keeps memory bounded; the alternate screen has no commit and its
// rows are simply gone.
type screen struct {
	rows     []*row
	cur, col int  // cursor; cur indexes rows
	reach    int  // the lowest row the cursor reached: text ends there
	wrapNext bool // the last column was written: the next character wraps
	saved    savedCursor
	// cleared: the whole screen was erased and nothing has scrolled off
	// it since; page: the cursor was then placed on a row by address, so
	// the screen holds a page drawn in place rather than lines of text.
	cleared, page bool

	cols   int // width: every row holds at most cols cells
	height int // rows on the screen

	m      *modes
	free   []*row
	commit func(*row) // nil for the alternate screen
}

// savedCursor is what DECSC keeps.
type savedCursor struct {
	row, col int
	wrapNext bool
	origin   bool
}

// modes are the settings both screens share.
type modes struct {
	autowrap bool   // DECAWM
	origin   bool   // DECOM: rows count from the top margin
	insert   bool   // IRM
	top, bot int    // scroll region, bot included
	tabs     []bool // tab stops by column; nil for one every 8 columns
	changed  bool   // something visible changed since Generation looked
}

func (s *screen) init(cols, height int, m *modes, commit func(*row)) {
	s.cols, s.height, s.m, s.commit = cols, height, m, commit
	for _, r := range s.rows {
		s.recycle(r)
	}
	s.rows = append(s.rows[:0], s.newRow())
	s.cur, s.col, s.reach, s.wrapNext, s.saved = 0, 0, 0, false, savedCursor{}
	s.cleared, s.page = false, false
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
	if len(s.free) < s.height {
		s.free = append(s.free, r)
	}
}

// touch records a change to r's text.
func (s *screen) touch(r *row) {
	r.dirty, r.hashed = true, false
	s.m.changed = true
}

// ensure makes the rows down to index n.
func (s *screen) ensure(n int) {
	for len(s.rows) <= n {
		s.rows = append(s.rows, s.newRow())
	}
}

// put prints one rune at the cursor, wrapping at the right margin.
func (s *screen) put(ch rune) {
	w := runeWidth(ch)
	if w == 0 {
		at := s.col
		if s.wrapNext {
			at++ // the cursor still stands on the last character
		}
		s.rows[s.cur].attach(at, ch)
		s.touch(s.rows[s.cur])
		return
	}
	if s.wrapNext {
		s.wrap()
	}
	if s.col+w > s.cols {
		if !s.m.autowrap || w > s.cols {
			s.col = s.cols - w
			if s.col < 0 {
				return
			}
		} else {
			s.wrap() // a wide character does not fit the last column
		}
	}
	r := s.rows[s.cur]
	if s.m.insert {
		r.insertCells(s.col, w, s.cols)
	}
	if !r.runes && ch < 0x80 {
		r.writeASCII(s.col, []byte{byte(ch)})
	} else {
		r.set(s.col, ch, w)
	}
	s.touch(r)
	s.advance(w)
}

// advance moves the cursor past n cells just written.
func (s *screen) advance(n int) {
	s.col += n
	if s.col >= s.cols {
		s.col = s.cols - 1
		s.wrapNext = s.m.autowrap
	}
}

// wrap ends a row by autowrap: the text goes on at the start of the next.
func (s *screen) wrap() {
	s.rows[s.cur].wrapped = true
	s.wrapNext = false
	s.index()
	s.col = 0
}

// writeASCII prints a run of printable ASCII. Writing within one row held
// as bytes, the common case, copies it in bulk.
func (s *screen) writeASCII(run []byte) {
	for len(run) > 0 {
		r := s.rows[s.cur]
		if s.wrapNext || s.m.insert || r.runes || !s.m.autowrap {
			s.put(rune(run[0]))
			run = run[1:]
			continue
		}
		n := min(len(run), s.cols-s.col)
		if r.writeASCII(s.col, run[:n]) {
			s.touch(r)
		}
		s.advance(n)
		run = run[n:]
	}
}

// lineFeed starts a new line. A line feed also returns the carriage, as
// the terminal's onlcr does: output read through pipes has no onlcr to add
// the CR, and programs on a terminal send CR LF.
func (s *screen) lineFeed() {
	s.col, s.wrapNext = 0, false
	s.index()
}

// index moves down a row, scrolling the region at its bottom margin.
func (s *screen) index() {
	switch {
	case s.cur == s.m.bot:
		s.scrollUp(1)
	case s.cur < s.height-1:
		s.toRow(s.cur + 1)
	}
}

// reverseIndex moves up a row, scrolling the region down at its top.
func (s *screen) reverseIndex() {
	s.wrapNext = false
	switch {
	case s.cur == s.m.top:
		s.scrollDown(1)
	case s.cur > 0:
		s.cur--
	}
}

// scrollUp moves the scroll region's rows up by n. The rows leaving a
// region that starts at the top of the main screen go to the scrollback;
// from any other region they are gone, as on a terminal.
func (s *screen) scrollUp(n int) {
	top, bot := s.m.top, s.m.bot
	s.ensure(bot)
	for range min(n, bot-top+1) {
		old := s.rows[top]
		if top == 0 && s.commit != nil {
			s.commit(old)
		}
		if top == 0 {
			s.reach = max(s.reach-1, s.cur)
			s.cleared, s.page = false, false // lines of text again
		}
		copy(s.rows[top:bot], s.rows[top+1:bot+1])
		s.rows[bot] = s.newRow()
		s.recycle(old)
	}
	s.m.changed = true
}

// scrollDown moves the scroll region's rows down by n; rows pushed past
// its bottom are gone.
func (s *screen) scrollDown(n int) {
	top, bot := s.m.top, s.m.bot
	s.ensure(bot)
	for range min(n, bot-top+1) {
		old := s.rows[bot]
		copy(s.rows[top+1:bot+1], s.rows[top:bot])
		s.rows[top] = s.newRow()
		s.recycle(old)
	}
	s.m.changed = true
}

// up moves the cursor up, stopping at the top margin from within the
// region (CUU).
func (s *screen) up(n int) {
	lo := 0
	if s.cur >= s.m.top {
		lo = s.m.top
	}
	s.cur, s.wrapNext = max(s.cur-n, lo), false
}

// down moves the cursor down, stopping at the bottom margin from within
// the region (CUD).
func (s *screen) down(n int) {
	hi := s.height - 1
	if s.cur <= s.m.bot {
		hi = s.m.bot
	}
	s.toRow(min(s.cur+n, hi))
}

// toRow moves to a row counted from the top of the screen.
func (s *screen) toRow(n int) {
	s.cur, s.wrapNext = min(max(n, 0), s.height-1), false
	s.ensure(s.cur)
	s.reach = max(s.reach, s.cur)
}

// moveTo places the cursor as CUP does: in origin mode rows count from
// the top margin and stay within the region.
func (s *screen) moveTo(row, col int) {
	if s.m.origin {
		row = min(max(row+s.m.top, s.m.top), s.m.bot)
	}
	s.toRow(row)
	s.toCol(col)
}

// address places the cursor by row and column (CUP, VPA): on a cleared
// screen, anywhere below the top row, that draws a page.
func (s *screen) address(row, col int) {
	s.moveTo(row, col)
	if s.cleared && s.cur > 0 {
		s.page = true
	}
}

func (s *screen) toCol(n int) { s.col, s.wrapNext = min(max(n, 0), s.cols-1), false }

func (s *screen) forward(n int) { s.toCol(s.col + n) }

func (s *screen) back(n int) { s.toCol(s.col - n) }

func (s *screen) carriageReturn() { s.col, s.wrapNext = 0, false }

func (s *screen) isStop(col int) bool {
	if s.m.tabs == nil {
		return col%8 == 0
	}
	return col < len(s.m.tabs) && s.m.tabs[col]
}

// tab moves to the next tab stop, or the last column. A pending wrap
// stays pending, as in tmux.
func (s *screen) tab() {
	if s.wrapNext {
		return
	}
	for s.col < s.cols-1 {
		s.col++
		if s.isStop(s.col) {
			return
		}
	}
}

// backTab moves to the previous tab stop, or the first column (CBT).
func (s *screen) backTab() {
	s.wrapNext = false
	for s.col > 0 {
		s.col--
		if s.isStop(s.col) {
			return
		}
	}
}

// setTab sets a tab stop at the cursor (HTS).
func (s *screen) setTab() {
	if s.m.tabs == nil {
		s.m.tabs = make([]bool, s.cols)
		for i := 0; i < s.cols; i += 8 {
			s.m.tabs[i] = true
		}
	}
	if s.col < len(s.m.tabs) {
		s.m.tabs[s.col] = true
	}
}

// clearTabs clears the stop at the cursor (TBC 0) or all of them (TBC 3).
func (s *screen) clearTabs(mode int) {
	switch mode {
	case 0:
		s.setTab()
		s.m.tabs[s.col] = false
	case 3:
		s.m.tabs = make([]bool, s.cols)
	}
}

func (s *screen) save() {
	s.saved = savedCursor{s.cur, s.col, s.wrapNext, s.m.origin}
}

func (s *screen) restore() {
	s.m.origin = s.saved.origin
	s.toRow(s.saved.row)
	s.toCol(s.saved.col)
	s.wrapNext = s.saved.wrapNext && s.col == s.cols-1
}

// eraseLine implements EL: 0 cursor to end, 1 start to cursor, 2 whole
// row. Erasing to the end also ends a wrapped line there. With a wrap
// pending the cursor is past the last column and EL 0 erases nothing, as
// in tmux.
func (s *screen) eraseLine(mode int) {
	r := s.rows[s.cur]
	switch mode {
	case 0:
		if s.wrapNext {
			return
		}
		r.truncate(s.col)
		r.wrapped = false
	case 1:
		r.blank(0, s.col+1)
	case 2:
		r.truncate(0)
		r.wrapped = false
	default:
		return
	}
	s.touch(r)
}

// eraseDisplay implements ED. ED 3 erases the scrollback, which holds
// lines already handed on: it changes nothing here.
func (s *screen) eraseDisplay(mode int) {
	from, to := 0, len(s.rows)
	switch mode {
	case 0:
		s.eraseLine(0)
		from, s.reach = s.cur+1, s.cur // nothing is left below the cursor
		s.cleared, s.page = s.cur == 0 && s.col == 0, false
	case 1:
		s.eraseLine(1)
		to = s.cur
	case 2:
		s.reach = s.cur
		s.cleared, s.page = true, false
	default:
		return
	}
	for _, r := range s.rows[from:to] {
		r.truncate(0)
		r.wrapped = false
		s.touch(r)
	}
}

func (s *screen) eraseChars(n int) {
	r := s.rows[s.cur]
	r.blank(s.col, s.col+min(n, s.cols-s.col))
	s.touch(r)
}

// deleteChars and insertChars end a pending wrap and act on the last
// column, as xterm does (tmux leaves them undone).
func (s *screen) deleteChars(n int) {
	s.wrapNext = false
	r := s.rows[s.cur]
	r.deleteCells(s.col, n)
	s.touch(r)
}

func (s *screen) insertChars(n int) {
	s.wrapNext = false
	r := s.rows[s.cur]
	r.insertCells(s.col, n, s.cols)
	s.touch(r)
}

func (s *screen) inRegion() bool { return s.cur >= s.m.top && s.cur <= s.m.bot }

// insertLines opens n blank rows at the cursor (IL); rows pushed past the
// bottom margin are gone.
func (s *screen) insertLines(n int) {
	if !s.inRegion() {
		return
	}
	s.ensure(s.m.bot)
	bot := s.m.bot
	for range min(n, bot-s.cur+1) {
		s.recycle(s.rows[bot])
		copy(s.rows[s.cur+1:bot+1], s.rows[s.cur:bot])
		s.rows[s.cur] = s.newRow()
	}
	s.col, s.wrapNext, s.m.changed = 0, false, true
}

// deleteLines removes n rows at the cursor (DL), adding blanks at the
// bottom margin.
func (s *screen) deleteLines(n int) {
	if !s.inRegion() {
		return
	}
	s.ensure(s.m.bot)
	bot := s.m.bot
	for range min(n, bot-s.cur+1) {
		s.recycle(s.rows[s.cur])
		copy(s.rows[s.cur:bot], s.rows[s.cur+1:bot+1])
		s.rows[bot] = s.newRow()
	}
	s.col, s.wrapNext, s.m.changed = 0, false, true
}

// clear blanks the whole screen, as the alternate screen is on entry.
func (s *screen) clear() {
	for _, r := range s.rows[1:] {
		s.recycle(r)
	}
	s.rows[0].reset()
	s.rows = s.rows[:1]
	s.ensure(s.cur)
	s.reach = s.cur
	s.m.changed = true
}

// resize changes the screen's size without reflowing its text: rows are
// cut at the new width; a shorter screen first loses the empty rows below
// the cursor, then sends rows off the top, as tmux does.
func (s *screen) resize(cols, height int) {
	if cols < s.cols {
		for _, r := range s.rows {
			r.truncate(cols)
			s.touch(r)
		}
	}
	s.cols, s.height = cols, height
	if len(s.free) > height { // the spare rows of a taller screen go
		clear(s.free[height:])
		s.free = s.free[:height]
	}
	for len(s.rows) > height && len(s.rows)-1 > s.cur && s.rows[len(s.rows)-1].empty() {
		s.recycle(s.rows[len(s.rows)-1])
		s.rows = s.rows[:len(s.rows)-1]
	}
	for len(s.rows) > height {
		old := s.rows[0]
		if s.commit != nil {
			s.commit(old)
		}
		s.rows = slices.Delete(s.rows, 0, 1)
		s.recycle(old)
		s.cur--
		s.reach--
		s.saved.row = max(s.saved.row-1, 0)
	}
	s.cur = max(s.cur, 0)
	s.reach = min(max(s.reach, s.cur), len(s.rows)-1)
	s.toCol(s.col)
	s.saved.row = min(s.saved.row, height-1)
	s.saved.col = min(s.saved.col, cols-1)
	s.m.changed = true
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

// lineEnd returns the last row of the line of text that starts at row i,
// which wrapping may have spread over several rows, up to row last.
func (s *screen) lineEnd(i, last int) int {
	for i < last && s.rows[i].wrapped {
		i++
	}
	return i
}

// lineStart returns the first row of the line of text row i belongs to.
func (s *screen) lineStart(i int) int {
	for i > 0 && s.rows[i-1].wrapped {
		i--
	}
	return i
}
