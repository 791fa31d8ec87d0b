package wire

import (
	"io"
	"sync/atomic"
	"time"
)

// HeartbeatBeats is how many periods a peer may stay silent before it
// counts as gone.
const HeartbeatBeats = 3

// The bounds of a heartbeat's period.
const (
	MinHeartbeat = 100 * time.Millisecond
	MaxHeartbeat = 24 * time.Hour
)

// Heartbeat tells a peer that went silent from one that is there: a
// stream that drops without ever ending (as a Kubernetes exec stream can)
// looks like a quiet host forever. Any byte read from the peer counts as
// a sign of life, whatever the message, so a host keeps the connection by
// sending anything at all: a request, a notification, an answer, a ping.
type Heartbeat struct {
	last    atomic.Int64 // when bytes last came, in UnixNano
	started atomic.Bool
}

// Reader wraps the peer's input so that every read that returns bytes
// counts as a sign of life.
func (h *Heartbeat) Reader(rwc io.ReadWriteCloser) io.ReadWriteCloser {
	h.last.Store(time.Now().UnixNano())
	return heardReader{rwc, h}
}

type heardReader struct {
	io.ReadWriteCloser
	h *Heartbeat
}

func (r heardReader) Read(p []byte) (int, error) {
	n, err := r.ReadWriteCloser.Read(p)
	if n > 0 {
		r.h.last.Store(time.Now().UnixNano())
	}
	return n, err
}

// Claim reports whether this is the first call: the one heartbeat a
// connection may ask for.
func (h *Heartbeat) Claim() bool { return h.started.CompareAndSwap(false, true) }

// Watch waits for HeartbeatBeats periods without a byte from the peer,
// counted from the last byte read or from the call, then calls gone and
// returns. It returns without calling gone when stop closes.
func (h *Heartbeat) Watch(period time.Duration, stop <-chan struct{}, gone func()) {
	h.last.Store(max(h.last.Load(), time.Now().UnixNano()))
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if h.silence() >= HeartbeatBeats*period {
				gone()
				return
			}
		}
	}
}

// silence is how long ago the peer last sent anything.
func (h *Heartbeat) silence() time.Duration {
	return time.Since(time.Unix(0, h.last.Load()))
}
