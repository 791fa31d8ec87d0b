package session

import (
	"time"

	"github.com/termhelper/termhelper/platform"
)

// portPoll paces the check of a ready port while an answer waits for it.
const portPoll = 100 * time.Millisecond

// The slow calls the session makes outside its locks; tests hold them to
// show that nothing else waits meanwhile.
var (
	listeningPorts = (*platform.Process).ListeningPorts
	portAccepts    = platform.PortAccepts
	startProcess   = platform.Start
)

// wantsReady reports whether the command says when it is ready.
func (s *Session) wantsReady() bool {
	return s.spec.ReadyPattern != nil || s.spec.ReadyPort > 0
}

// committedLine is each line a stream's cleaner lets go of, as the
// terminal showed it: the ready pattern is matched on every one, so a
// line that scrolled away between two chunks is not missed. It is called
// from within the cleaner, under the session's lock.
func (s *Session) committedLine(line string) {
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

// checkPort looks at the ready port, at most once per portPoll, for an
// answer waiting for readiness. The dial takes up to its limit, so it is
// made outside the session's lock, and what it found is applied only if
// it is still news: the session has not ended meanwhile (the port may be
// another program's by then) nor been found ready by another look.
func (s *Session) checkPort() {
	s.mu.Lock()
	if s.ready || s.state == Exited || time.Since(s.portChecked) < portPoll {
		s.mu.Unlock()
		return
	}
	s.portChecked = time.Now()
	s.mu.Unlock()
	accepts := portAccepts(s.spec.ReadyPort, 50*time.Millisecond)
	s.mu.Lock()
	defer s.mu.Unlock()
	if accepts && !s.ready && s.state != Exited {
		s.markReadyLocked()
	}
}
