package cleaner

// noTermCols is the width of the rows holding a stream that has no
// terminal (Options.Cols 0). Such a stream never wraps as text: a longer
// line is only held in pieces of this many cells, so that it can be passed
// on without being held whole. A carriage return goes back to the start of
// the last piece, which matters only to progress bars over 4096 columns.
const noTermCols = 4096

// terminal is the terminal model: the main screen, the alternate screen
// full-screen programs draw on, and the modes they share.
type terminal struct {
	main, alt screen
	scr       *screen // the screen shown: main or alt
	m         modes
	cols      int  // 0 when the stream has no terminal
	last      rune // the last character printed, for REP
}

func (t *terminal) init(cols, height int, commit func(*row)) {
	t.cols = cols
	width := cols
	if cols == 0 {
		width = noTermCols
	}
	t.m = modes{autowrap: true, bot: height - 1}
	t.main.init(width, height, &t.m, commit)
	t.alt.init(width, height, &t.m, nil)
	t.scr = &t.main
	t.last = 0
}

func (t *terminal) width() int { return t.main.cols }

func (t *terminal) altActive() bool { return t.scr == &t.alt }

// setAlt switches to the alternate screen or back, as xterm's modes 47,
// 1047 and 1049 do. The cursor is shared; 1049 saves it on the main screen
// and clears the alternate screen on the way in, and restores it on the
// way out; 1047 clears the alternate screen on the way out.
func (t *terminal) setAlt(on bool, mode int) {
	if on == t.altActive() {
		if on && mode == 1049 {
			t.alt.clear()
		}
		return
	}
	from, to := t.scr, &t.main
	if on {
		to = &t.alt
		if mode == 1049 {
			t.main.save()
		}
	} else if mode == 1047 {
		t.alt.clear()
	}
	to.toRow(from.cur)
	to.col, to.wrapNext = from.col, from.wrapNext
	if on && mode == 1049 {
		t.alt.clear()
	}
	t.scr = to
	if !on && mode == 1049 {
		t.main.restore()
	}
	t.m.changed = true
}

// setMargins sets the scroll region (DECSTBM) and homes the cursor.
func (t *terminal) setMargins(top, bot int) {
	h := t.main.height
	if bot <= 0 || bot > h {
		bot = h
	}
	top = max(top, 1)
	if top >= bot {
		return
	}
	t.m.top, t.m.bot = top-1, bot-1
	t.scr.moveTo(0, 0)
}

// resize gives both screens a new size; the margins return to the whole
// screen and tab stops past the old width fall every 8 columns.
func (t *terminal) resize(cols, height int) {
	if t.cols == 0 {
		cols = noTermCols
	} else {
		t.cols = cols
	}
	if tabs := t.m.tabs; tabs != nil {
		t.m.tabs = make([]bool, cols)
		for i := range t.m.tabs {
			t.m.tabs[i] = i%8 == 0
			if i < len(tabs) {
				t.m.tabs[i] = tabs[i]
			}
		}
	}
	t.m.top, t.m.bot = 0, height-1
	t.main.resize(cols, height)
	t.alt.resize(cols, height)
}

// reset is RIS: back to the main screen, cleared, with default modes.
func (t *terminal) reset() {
	t.scr = &t.main
	t.m = modes{autowrap: true, bot: t.main.height - 1, changed: true}
	t.main.eraseDisplay(2)
	t.main.moveTo(0, 0)
	t.main.saved = savedCursor{}
	t.alt.clear()
}

// softReset is DECSTR: modes and margins back to their defaults.
func (t *terminal) softReset() {
	t.m.autowrap, t.m.origin, t.m.insert = true, false, false
	t.m.top, t.m.bot = 0, t.main.height-1
	t.scr.saved = savedCursor{}
}

// setMode sets or resets a DEC private mode.
func (t *terminal) setMode(mode int, on bool) {
	switch mode {
	case 6:
		t.m.origin = on
		t.scr.moveTo(0, 0)
	case 7:
		t.m.autowrap = on
		if !on {
			t.scr.wrapNext = false
		}
	case 47, 1047, 1049:
		t.setAlt(on, mode)
	case 1048:
		if on {
			t.scr.save()
		} else {
			t.scr.restore()
		}
	}
}
