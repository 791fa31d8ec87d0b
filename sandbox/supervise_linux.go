package sandbox

import (
	"errors"
	"log/slog"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// netSupervisor serves the connect notifications of one command's network
// filter: the command's tree asks, the helper connects for it or refuses.
//
// One goroutine waits on the listener through the runtime's poller (no
// thread is held per session) and hands each notification to a goroutine
// of its own, so a slow blocking connect holds no other.
type netSupervisor struct {
	f    *os.File // the listener, non-blocking, in the runtime's poller
	rc   syscall.RawConn
	pid  int
	log  *slog.Logger
	wg   sync.WaitGroup // one per notification being served
	done chan struct{}  // closed when the receiving loop has ended

	mu      sync.Mutex
	denied  []Denial
	seen    map[Denial]bool
	inside  map[int]bool // sockets the helper is connecting now
	closing bool
	once    sync.Once
}

// superviseNetwork serves listener until every process under the filter is
// gone or Close is called; pid is the command's pid. It takes listener
// over: the caller must not use it afterwards.
func superviseNetwork(listener *os.File, pid int, log *slog.Logger) *netSupervisor {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &netSupervisor{pid: pid, log: log, done: make(chan struct{}),
		seen: map[Denial]bool{}, inside: map[int]bool{}}
	f, err := pollable(listener)
	if err != nil {
		// Unserved, the listener is closed: every connect fails (ENOSYS).
		log.Error("sandbox: network supervisor cannot wait on its listener; connects fail", "pid", pid, "err", err)
		close(s.done)
		return s
	}
	s.f = f
	s.rc, _ = f.SyscallConn()
	go s.receive()
	return s
}

// pollable duplicates listener as a non-blocking file that the runtime's
// poller watches (a file made from a blocking descriptor is not polled),
// and closes listener.
func pollable(listener *os.File) (*os.File, error) {
	defer listener.Close()
	rc, err := listener.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	cerr := rc.Control(func(raw uintptr) {
		fd, err = unix.FcntlInt(raw, unix.F_DUPFD_CLOEXEC, 0)
	})
	if cerr != nil || err != nil {
		return nil, errors.Join(cerr, err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), "seccomp-listener"), nil
}

// receive takes notifications until the listener hangs up (no process
// under the filter is left) or is closed. Whatever ends it closes the
// listener: unserved, a connect must fail (ENOSYS), not wait.
func (s *netSupervisor) receive() {
	defer close(s.done)
	defer s.f.Close()
	for {
		n, err := s.next()
		if err != nil {
			if !s.isClosing() && !errors.Is(err, errHangup) {
				s.log.Error("sandbox: network supervisor stopped; connects fail", "pid", s.pid, "err", err)
			}
			return
		}
		if n == nil {
			continue
		}
		s.wg.Add(1)
		go s.serve(*n)
	}
}

var errHangup = errors.New("no process left under the filter")

// next waits for the listener and takes one notification; nil when the
// one announced vanished (its caller was killed) before it was taken.
func (s *netSupervisor) next() (*seccompNotif, error) {
	var n seccompNotif
	var err error
	rerr := s.rc.Read(func(fd uintptr) bool {
		ready, perr := pollIn(fd)
		switch {
		case perr != nil:
			err = perr
		case ready&unix.POLLIN != 0:
			n, err = notifRecv(fd)
		case ready&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0:
			err = errHangup
		default:
			return false // not ready: the poller waits
		}
		return true
	})
	if rerr != nil {
		return nil, rerr
	}
	if errors.Is(err, unix.ENOENT) {
		return nil, nil
	}
	return &n, err
}

// pollIn says what the listener has now, without waiting.
func pollIn(fd uintptr) (int16, error) {
	p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(p, 0)
		if err != unix.EINTR {
			return p[0].Revents, err
		}
	}
}

// serve answers one notification.
func (s *netSupervisor) serve(n seccompNotif) {
	defer s.wg.Done()
	e := s.decide(&n)
	err := s.rc.Control(func(fd uintptr) { _ = notifSend(fd, n.ID, e) })
	if err != nil && !s.isClosing() {
		s.log.Debug("sandbox: connect answer not sent", "pid", n.Pid, "err", err)
	}
}

// decide serves the call a notification stands for: a listen, or a
// connect (the filter notifies no other).
func (s *netSupervisor) decide(n *seccompNotif) unix.Errno {
	if n.Data.Nr == unix.SYS_LISTEN {
		return s.listen(n)
	}
	return s.connect(n)
}

// valid says whether notification id still waits (and so whatever was
// opened from its caller's pid is the caller's).
func (s *netSupervisor) valid(id uint64) bool {
	ok := false
	_ = s.rc.Control(func(fd uintptr) { ok = notifValid(fd, id) })
	return ok
}

// deny records a refusal, once per host and port (or unix path).
func (s *netSupervisor) deny(d Denial) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[d] {
		return
	}
	s.seen[d] = true
	s.denied = append(s.denied, d)
	s.log.Info("sandbox: connection refused", "pid", s.pid, "host", d.Host, "port", d.Port, "path", d.Path)
}

// Denied returns the connections refused so far, each host and port once,
// in the order they were first refused.
func (s *netSupervisor) Denied() []Denial {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Denial(nil), s.denied...)
}

// enter registers a socket the helper is about to connect, so that Close
// can cut a connect that would otherwise block it; false once closing.
func (s *netSupervisor) enter(fd int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.inside[fd] = true
	return true
}

// leave unregisters fd; it must be called before fd is closed, so that
// Close never shuts a reused descriptor.
func (s *netSupervisor) leave(fd int) {
	s.mu.Lock()
	delete(s.inside, fd)
	s.mu.Unlock()
}

// Close stops serving: connects waiting or to come fail (ENOSYS: the
// kernel answers for a listener that is gone), connects the helper is
// making are cut. It returns when every goroutine of s has ended, and may
// be called more than once.
func (s *netSupervisor) Close() {
	s.once.Do(func() {
		s.mu.Lock()
		s.closing = true
		for fd := range s.inside {
			_ = unix.Shutdown(fd, unix.SHUT_RDWR)
		}
		s.mu.Unlock()
		if s.f != nil {
			s.f.Close()
		}
		<-s.done
		s.wg.Wait()
	})
}

func (s *netSupervisor) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}
