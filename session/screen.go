package session

import (
	"time"

	"github.com/termhelper/termhelper/cleaner"
)

// Screen is the terminal as a person would see it now: a full-screen
// program's alternate screen while it is active.
func (s *Session) Screen() (cleaner.Screen, error) {
	if !s.spec.PTY {
		return cleaner.Screen{}, ErrNoTerminal
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == Exited {
		return cleaner.Screen{}, ErrFinished
	}
	return s.out.clean.Screen(), nil
}

// observeLocked runs after each chunk of output has been cleaned: it
// notes when the rendered screen last changed, for answers that wait for
// it to settle, and looks for the ready line. The work is driven by the
// output itself: nothing runs while the command is silent.
func (s *Session) observeLocked(st *stream) {
	if st == s.out && s.spec.PTY {
		if g := s.out.clean.Generation(); g != s.screenGen {
			s.screenGen, s.screenChanged = g, time.Now()
		}
	}
	s.lookForReadyLocked(st)
}

// settledLocked reports whether the screen has not changed for d, and if
// not, how much longer it must stay still.
func (s *Session) settledLocked(d time.Duration) (bool, time.Duration) {
	quiet := time.Since(s.screenChanged)
	return quiet >= d, d - quiet
}

// showsPageLocked reports whether the terminal shows a page (a
// full-screen program, or a page drawn by cursor address) rather than
// lines of text.
func (s *Session) showsPageLocked() bool {
	return s.spec.PTY && s.out.clean.ShowsPage()
}

// takeOutputLocked takes the terminal's news for an answer. An alive
// answer about a command that shows a page carries the page as a person
// sees it, and says so: a model that never asks for session/screen still
// sees what less, vim or top show.
func (s *Session) takeOutputLocked(r *Result, final bool) cleaner.Chunk {
	if final || !s.showsPageLocked() {
		return s.out.take(final)
	}
	r.Screen = true
	c := s.out.clean.TakePage()
	if c.FullOutputPath != "" {
		s.out.path = c.FullOutputPath
	}
	return c
}
