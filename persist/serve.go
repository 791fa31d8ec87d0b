//go:build unix

package persist

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// server is the background helper's listener and its connections.
type server struct {
	o  ServeOptions
	ln *net.UnixListener

	mu    sync.Mutex
	conns int
	timer *time.Timer
	idle  chan struct{} // closed once the grace ran out with no connection
	wg    sync.WaitGroup
}

// Serve listens on the place's socket and serves every connection until
// the grace period after the last one ran out, or ctx ends. It returns
// once every connection's front end has; the caller then ends the trees.
func Serve(ctx context.Context, o ServeOptions) error {
	ln, err := listen(o.Place.Socket)
	if o.Ready != nil {
		tellReady(o.Ready, err)
	}
	if err != nil {
		return err
	}
	s := &server{o: o, ln: ln, idle: make(chan struct{})}
	s.mu.Lock()
	s.armLocked() // the relay that started it may never connect
	s.mu.Unlock()
	go s.acceptLoop(ctx)
	select {
	case <-s.idle:
		o.Log.Info("no connection for the persist grace: ending every session", "grace", o.Grace)
	case <-ctx.Done():
		o.Log.Info("stopping", "cause", context.Cause(ctx))
		s.close()
	}
	s.wg.Wait()
	return nil
}

func listen(path string) (*net.UnixListener, error) {
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listening at %s: %w", path, err)
	}
	ln.SetUnlinkOnClose(false) // close removes it under the lock, see expire
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

func tellReady(w io.WriteCloser, err error) {
	msg := "ready"
	if err != nil {
		msg = err.Error()
	}
	fmt.Fprintln(w, msg)
	w.Close()
}

func (s *server) acceptLoop(ctx context.Context) {
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				s.o.Log.Error("accept", "err", err)
			}
			return
		}
		s.wg.Add(1)
		go s.serveConn(ctx, c)
	}
}

// serveConn checks a connection (its peer's user, its hello) and hands it
// to a front end. Only an admitted connection holds the helper: a refused
// one, however often it comes, neither stops nor restarts the grace.
func (s *server) serveConn(ctx context.Context, c *net.UnixConn) {
	defer s.wg.Done()
	defer c.Close()
	r := bufio.NewReader(c)
	h, err := s.admit(c, r)
	if err != nil {
		s.o.Log.Warn("connection refused", "err", err)
		c.SetWriteDeadline(time.Now().Add(helloWait))
		writeLine(c, Welcome{Error: err.Error(), Setting: settingOf(err)})
		return
	}
	if !s.hold() {
		return // the grace ran out meanwhile: the relay meets a new helper
	}
	defer s.gone()
	c.SetDeadline(time.Time{})
	if err := writeLine(c, Welcome{}); err != nil {
		return
	}
	s.o.Log.Info("connection", "mcp", h.MCP)
	s.o.Front(ctx, bufConn{c, r}, h)
}

// admit reads the hello of a connection from this user with the same
// settings.
func (s *server) admit(c *net.UnixConn, r *bufio.Reader) (Hello, error) {
	uid, err := peerUID(c)
	if err != nil {
		return Hello{}, fmt.Errorf("the peer's user cannot be read: %w", err)
	}
	if uid != os.Getuid() {
		return Hello{}, fmt.Errorf("a connection from uid %d refused: this helper serves uid %d only", uid, os.Getuid())
	}
	own, err := fromOwnTree(c)
	if err != nil {
		return Hello{}, fmt.Errorf("the peer's process cannot be read: %w", err)
	}
	if own {
		return Hello{}, errors.New("a connection from a command of this helper's own sessions refused: a command is never a host of the helper that runs it")
	}
	var h Hello
	c.SetReadDeadline(time.Now().Add(helloWait))
	if err := readLine(r, &h); err != nil {
		return Hello{}, fmt.Errorf("no hello: %w", err)
	}
	if w := agree(s.o.Hello, h); w != nil {
		return Hello{}, &Refused{*w}
	}
	return h, nil
}

func settingOf(err error) string {
	var r *Refused
	if errors.As(err, &r) {
		return r.Setting
	}
	return ""
}

// hold counts an admitted connection in, unless the helper is ending.
func (s *server) hold() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.idle:
		return false
	default:
	}
	s.conns++
	s.timer.Stop()
	return true
}

// gone counts a connection out; the last one arms the grace.
func (s *server) gone() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conns--
	if s.conns == 0 {
		s.armLocked()
	}
}

func (s *server) armLocked() {
	if s.timer != nil {
		s.timer.Stop()
	}
	s.timer = time.AfterFunc(s.o.Grace, s.expire)
}

// expire ends the helper if still no connection came: under the lock
// relays take to start one, so that none meets a socket about to go.
func (s *server) expire() {
	unlock, err := lock(s.o.Place.Lock)
	if err != nil {
		// The folder was removed or emptied: nobody can meet this helper
		// any more, and it must not stay for good.
		s.o.Log.Warn("ending without the rendezvous lock", "err", err)
		unlock = func() {}
	}
	defer unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conns > 0 {
		return
	}
	s.closeLocked()
	close(s.idle)
}

func (s *server) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeLocked()
}

func (s *server) closeLocked() {
	s.timer.Stop()
	s.ln.Close()
	os.Remove(s.o.Place.Socket)
}

// bufConn reads through the reader that read the hello.
type bufConn struct {
	*net.UnixConn
	r *bufio.Reader
}

func (b bufConn) Read(p []byte) (int, error) { return b.r.Read(p) }
