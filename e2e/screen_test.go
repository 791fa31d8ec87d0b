//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type screen struct {
	Cols, Rows int
	Lines      []string
	Cursor     struct{ Row, Col int }
	AltScreen  bool
}

func (c *client) screen(id string) screen {
	c.t.Helper()
	raw, rerr := c.call("session/screen", map[string]any{"sessionId": id})
	require.Nil(c.t, rerr, "%+v", rerr)
	var s screen
	require.NoError(c.t, json.Unmarshal(raw, &s))
	return s
}

// screenShows reads the session's screen until want holds: a program
// redraws when the scheduler runs it, which no quiet period can promise.
func (c *client) screenShows(id, what string, want func(screen) bool) screen {
	c.t.Helper()
	deadline := time.Now().Add(watchdog)
	for {
		s := c.screen(id)
		if want(s) {
			return s
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%s never showed; the screen: %+v", what, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// menuDrawn holds once the whole menu is drawn at cols x rows, cursor
// placed.
func menuDrawn(cols, rows int) func(screen) bool {
	return func(s screen) bool {
		return len(s.Lines) == rows && s.Lines[0] == fmt.Sprintf("MENU %dx%d", cols, rows) &&
			s.Lines[rows-1] == "q to quit" && s.Cursor.Row == 2 && s.Cursor.Col == 4
	}
}

// A curses program (Python's, from the standard library) on a real pty:
// its screen read at known rows and columns, resized, quit, and the
// finished answer without the alternate screen's content.
const cursesMenu = `
import curses
def main(w):
    curses.curs_set(1)
    def draw():
        w.erase()
        h, cols = w.getmaxyx()
        w.addstr(0, 0, "MENU %dx%d" % (cols, h))
        w.addstr(2, 4, "1. Build")
        w.addstr(3, 4, "2. Deploy")
        w.addstr(h - 1, 0, "q to quit")
        w.move(2, 4)
        w.refresh()
    draw()
    while True:
        k = w.getch()
        if k == curses.KEY_RESIZE:
            draw()
        elif k == ord("q"):
            return
curses.wrapper(main)
print("left the menu")
`

func TestCursesScreenResizeAndQuit(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "menu.py"), []byte(cursesMenu), 0o644))
	c := start(t, "ndjson", root, nil)
	// No lifetime cap: its 60 s are the watchdog's, and on a busy machine
	// the waits below can add up to more than that before the menu is
	// redrawn; the test, not the cap, must say what did not come.
	r := c.exec(map[string]any{"command": "echo before; python3 menu.py", "cols": 60, "rows": 20, "timeoutMs": 0})
	require.Equal(t, "waiting", r.State, "%+v", r)
	id := r.SessionID
	r = c.run("session/read", map[string]any{"sessionId": id, "until": "stable", "stableMs": 300, "yieldMs": 20000})
	s := c.screenShows(id, "the menu", menuDrawn(60, 20))
	assert.True(t, s.AltScreen)
	assert.Equal(t, 60, s.Cols)
	assert.Equal(t, 20, s.Rows)
	require.Len(t, s.Lines, 20)
	assert.Equal(t, "MENU 60x20", s.Lines[0])
	assert.Equal(t, "    1. Build", s.Lines[2])
	assert.Equal(t, "    2. Deploy", s.Lines[3])
	assert.Equal(t, "q to quit", s.Lines[19])
	assert.Equal(t, 2, s.Cursor.Row)
	assert.Equal(t, 4, s.Cursor.Col)

	_, rerr := c.call("session/resize", map[string]any{"sessionId": id, "cols": 80, "rows": 24})
	require.Nil(t, rerr)
	c.run("session/read", map[string]any{"sessionId": id, "until": "stable", "stableMs": 300, "yieldMs": 20000})
	s = c.screenShows(id, "the menu redrawn", menuDrawn(80, 24))
	assert.Equal(t, 80, s.Cols)
	require.Len(t, s.Lines, 24)
	assert.Equal(t, "MENU 80x24", s.Lines[0])
	assert.Equal(t, "q to quit", s.Lines[23])

	r = c.run("session/write", map[string]any{"sessionId": id, "input": "q", "yieldMs": 20000})
	if r.ExitCode == nil {
		r = c.run("session/read", map[string]any{"sessionId": id, "until": "exit", "yieldMs": 20000})
	}
	require.NotNil(t, r.ExitCode, "%+v", r)
	assert.Contains(t, r.Output, "left the menu")
	assert.NotContains(t, r.Output, "Deploy", "the alternate screen is gone from the text")
	assert.NotContains(t, r.Output, "MENU")
}

// An animation that settles: until "stable" answers after its last frame,
// not before, though the program stays alive and silent afterwards.
func TestUntilStableAnswersAfterTheAnimationSettles(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		// A frame that a busy machine draws more than stableMs after the one
		// before is rightly a stable screen: then the animation runs again,
		// with twice the quiet asked for.
		growing(t, 1000, 8000, func(stableMs int) bool {
			m := marker()
			cmd := `for i in 1 2 3 4 5 6 7 8; do printf '\rframe %s' $i; sleep 0.2; done; printf '\rsettled!'; sleep ` + m
			r := c.exec(map[string]any{"command": cmd, "background": true, "yieldMs": 0})
			id := r.SessionID
			if r.Output == "" { // the first frame, however long the shell takes to start
				c.run("session/read", map[string]any{"sessionId": id, "yieldMs": 30000})
			}
			r = c.run("session/read", map[string]any{"sessionId": id, "until": "stable", "stableMs": stableMs, "yieldMs": 30000})
			require.Nil(t, r.ExitCode)
			line := strings.TrimSpace(c.screen(id).Lines[0])
			c.run("session/kill", map[string]any{"sessionId": id})
			noneLeft(t, m)
			if strings.HasPrefix(line, "frame ") {
				return true
			}
			assert.Equal(t, "settled!", line, "answered after the last frame")
			return false
		})
	})
}

func TestScreenErrors(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		_, rerr := c.call("session/screen", map[string]any{"sessionId": "77"})
		require.NotNil(t, rerr)
		assert.Equal(t, -32001, rerr.Code)
		_, rerr = c.call("session/screen", map[string]any{})
		require.NotNil(t, rerr)
		assert.Equal(t, -32602, rerr.Code)
		_, rerr = c.call("session/read", map[string]any{"sessionId": "1", "until": "later"})
		require.NotNil(t, rerr)
		assert.Equal(t, -32602, rerr.Code)
	})
}
