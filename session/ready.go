package session

import (
	"time"

	"github.com/termhelper/termhelper/platform"
)

// portPoll paces the check of a ready port while an answer waits for it.
const portPoll = 100 * time.Millisecond

// wantsReady reports whether the command says when it is ready.
func (s *Session) wantsReady() bool {
	return s.spec.ReadyPattern != nil || s.spec.ReadyPort > 0
}

// committedLine is each line a stream's cleaner lets go of, as the
// terminal showed it: the watcher sees every one, and the ready pattern
// is matched on every one, so a
// line that scrolled away between two chunks is not missed. It is called
// from within the cleaner, under the session's lock.
func (s *Session) committedLine(line string) {
	if s.watcher != nil {
		s.watcher.Line(line)
	}
	if !s.ready && s.spec.ReadyPattern != nil && s.spec.ReadyPattern.MatchString(line) {
		s.markReadyLocked()
	}
}

// lookForReadyLocked matches the lines still on screen, where a server's
// ready line stays while it waits for requests.
func (s *Session) lookForReadyLocked(st *stream) {
	if s.ready || s.spec.ReadyPattern == nil {
		return
	}
	st.clean.LiveLines(func(line string) bool {
		if s.spec.ReadyPattern.MatchString(line) {
			s.markReadyLocked()
		}
		return !s.ready
	})
}

func (s *Session) markReadyLocked() {
	s.ready = true
	s.broadcast()
}

// checkPortLocked looks at the ready port, at most once per portPoll; it
// is called only by an answer waiting for readiness.
func (s *Session) checkPortLocked() {
	if s.ready || s.spec.ReadyPort <= 0 || time.Since(s.portChecked) < portPoll {
		return
	}
	s.portChecked = time.Now()
	if platform.PortAccepts(s.spec.ReadyPort, 50*time.Millisecond) {
		s.markReadyLocked()
	}
}
