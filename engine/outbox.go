package engine

import (
	"sync"

	"github.com/termhelper/termhelper/session"
)

// outboxOutputCap bounds the output an attachment's outbox holds for a
// host that takes none: past it, its output events are dropped (the
// history keeps the lines, which session/read with a cursor reads).
const outboxOutputCap = 1 << 20

// An outbox hands one attachment's events to its sink in order, on a
// goroutine of its own: a host that takes nothing (its connection stuck,
// its relay stopped) stalls neither the sessions nor the other hosts.
type outbox struct {
	sink Sink

	mu     sync.Mutex
	queue  []event
	output int // bytes of output data queued
	closed bool
	wake   chan struct{}
}

func newOutbox(s Sink) *outbox {
	o := &outbox{sink: s, wake: make(chan struct{}, 1)}
	go o.pump()
	return o
}

// put queues ev; output of size n is dropped while the cap is reached.
func (o *outbox) put(ev func(Sink), n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed || (n > 0 && o.output+n > outboxOutputCap) {
		return
	}
	o.queue = append(o.queue, event{ev, n})
	o.output += n
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// close drops what is queued and ends the pump once its current event
// is delivered.
func (o *outbox) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed, o.queue = true, nil
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

func (o *outbox) pump() {
	for range o.wake {
		for {
			ev, ok := o.next()
			if !ok {
				break
			}
			ev(o.sink)
		}
		if o.isClosed() {
			return
		}
	}
}

// next takes the oldest event, with its output released from the cap.
func (o *outbox) next() (func(Sink), bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.queue) == 0 || o.closed {
		return nil, false
	}
	ev := o.queue[0]
	o.queue[0] = event{}
	o.queue = o.queue[1:]
	o.output -= ev.n
	return ev.deliver, true
}

// event is one queued delivery and the output bytes it holds.
type event struct {
	deliver func(Sink)
	n       int
}

func (o *outbox) isClosed() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.closed
}

func (o *outbox) exited(id string, r session.Result) {
	o.put(func(s Sink) { s.Exited(id, r) }, 0)
}

func (o *outbox) waiting(id string, p session.Prompt) {
	o.put(func(s Sink) { s.Waiting(id, p) }, 0)
}

func (o *outbox) outputOf(id, stream, data string) {
	o.put(func(s Sink) { s.Output(id, stream, data) }, len(data))
}
