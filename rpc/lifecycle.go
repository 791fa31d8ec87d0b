package rpc

import "sync"

// phase is where the helper stands in its life with one host. It only
// moves forward.
type phase int

const (
	serving    phase = iota
	inputEnded       // stdin reached EOF: the requests in hand are finished, no answer can come back
	shutDown         // a shutdown request: every tree ended, new commands refused
	exiting          // exit, a signal, or the host gone: ending now
)

// lifecycle is the helper's shutdown state machine. Each channel is closed
// once the phase reaches it, so waits can select on them.
type lifecycle struct {
	mu        sync.Mutex
	phase     phase
	noAnswers chan struct{} // closed at inputEnded: nothing more will be read
	exitNow   chan struct{} // closed at exiting
}

func newLifecycle() *lifecycle {
	return &lifecycle{noAnswers: make(chan struct{}), exitNow: make(chan struct{})}
}

// advance moves to p if it is later than the current phase, and reports
// whether it did.
func (l *lifecycle) advance(p phase) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p <= l.phase {
		return false
	}
	if l.phase < inputEnded {
		close(l.noAnswers)
	}
	if p == exiting {
		close(l.exitNow)
	}
	l.phase = p
	return true
}

func (l *lifecycle) at() phase {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.phase
}
