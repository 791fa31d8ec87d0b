//go:build unix

package persist

import (
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// lock takes the exclusive lock on path, waiting for it, and returns its
// release.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("the rendezvous lock: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("the rendezvous lock: %w", err)
	}
	return func() { f.Close() }, nil
}

// control runs fn on c's descriptor.
func control(c *net.UnixConn, fn func(fd int) error) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := raw.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}
