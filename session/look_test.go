//go:build unix

package session

import (
	"testing"

	"github.com/termhelper/termhelper/platform"
)

// A read seen at one look is taken for waiting only at the next that sees
// it still: what the command printed just before it may be on its way to
// the screen at the first (in the terminal's buffers, or read and not yet
// taken in), and the prompt would be missing from the answer.
func TestWaitingStartsAtTheSecondLook(t *testing.T) {
	m, _ := newManager(t, Config{})
	sp := spec("sleep 30")
	sp.PTY = false // the monitor takes no looks: the test takes them
	s := startT(t, m, sp)
	blocked := platform.InputState{Known: true, Waiting: true}
	busy := platform.InputState{Known: true}

	s.updateWaiting(blocked)
	if st := stateOf(s); st == Waiting {
		t.Fatal("waiting at the first look")
	}
	s.updateWaiting(busy) // it woke in between: the next read starts over
	s.updateWaiting(blocked)
	if st := stateOf(s); st == Waiting {
		t.Fatal("waiting at the first look after it woke")
	}

	s.mu.Lock()
	s.out.write([]byte("continue? "), false) // the prompt reaches the screen only now
	s.mu.Unlock()
	s.updateWaiting(blocked)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != Waiting || s.prompt == nil || s.prompt.Text != "continue?" {
		t.Fatalf("at the second look: state %s, prompt %+v", s.state, s.prompt)
	}
}
