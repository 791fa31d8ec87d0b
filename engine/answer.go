package engine

// Screen is a live session's terminal as a person would see it now: rows
// and columns count from 0.
type Screen struct {
	Cols, Rows int
	Lines      []string // Rows entries, row 0 at the top, each without trailing blanks
	Cursor     Cursor
	AltScreen  bool
}

// Cursor is where the cursor stands on a Screen.
type Cursor struct {
	Row, Col int
}
