package wire

import (
	"io"
	"net"
	"testing"
	"time"
)

// pipeEnds are the two ends of a net.Pipe, closed at the end of the test.
func pipeEnds(t *testing.T) (io.ReadWriteCloser, net.Conn) {
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// TestHeartbeatSilentPeerIsGone: a peer that sends nothing is gone after
// the heartbeats; Watch returns once it said so.
func TestHeartbeatSilentPeerIsGone(t *testing.T) {
	var h Heartbeat
	a, _ := pipeEnds(t)
	h.Reader(a)
	if !h.Claim() || h.Claim() {
		t.Fatal("only the first Claim is the heartbeat's")
	}
	gone := make(chan struct{})
	go h.Watch(MinHeartbeat, nil, func() { close(gone) })
	select {
	case <-gone:
	case <-time.After(time.Minute):
		t.Fatal("a silent peer was never gone")
	}
	if s := h.silence(); s < HeartbeatBeats*MinHeartbeat {
		t.Fatalf("gone after %v of silence", s)
	}
}

// TestHeartbeatBytesAreLife: every read that returns bytes counts; a
// stopped watch never calls gone.
func TestHeartbeatBytesAreLife(t *testing.T) {
	var h Heartbeat
	a, b := pipeEnds(t)
	r := h.Reader(a)
	h.last.Store(0) // long silent
	go b.Write([]byte("x"))
	buf := make([]byte, 1)
	if _, err := r.Read(buf); err != nil {
		t.Fatal(err)
	}
	if s := h.silence(); s > time.Minute {
		t.Fatalf("silent for %v after a byte", s)
	}
	stop := make(chan struct{})
	close(stop)
	h.Watch(time.Hour, stop, func() { t.Error("gone after stop") })
}
