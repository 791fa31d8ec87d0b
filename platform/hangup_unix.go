//go:build unix

package platform

import (
	"context"
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// ErrHangup is the cause of a context ended by WatchHangup.
var ErrHangup = errors.New("the reader of the output is gone")

// WatchHangup returns a context that ends, with cause ErrHangup, when
// nobody reads f any more: the other end of the pipe or socket is closed,
// as when the host that spawned the helper dies. It costs one goroutine
// blocked in poll, woken only by the hang-up or by ctx ending.
func WatchHangup(ctx context.Context, f *os.File) context.Context {
	r, w, err := os.Pipe()
	if err != nil {
		return ctx
	}
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		<-ctx.Done()
		w.Close() // wakes the poll below
	}()
	go func() {
		defer r.Close()
		if waitHangup(int(f.Fd()), int(r.Fd())) {
			cancel(ErrHangup)
		}
	}()
	return ctx
}

// waitHangup blocks until fd reports an error or hang-up (true) or wake
// becomes readable (false). Events 0 on fd asks only for those.
func waitHangup(fd, wake int) bool {
	fds := []unix.PollFd{{Fd: int32(fd)}, {Fd: int32(wake), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, -1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || fds[1].Revents != 0 {
			return false
		}
		if fds[0].Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0 {
			return fds[0].Revents&unix.POLLNVAL == 0
		}
	}
}
