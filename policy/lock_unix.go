//go:build unix

package policy

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockFile takes an exclusive flock on path. The kernel drops it if the
// process dies, so a crashed helper never leaves the store locked.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}, nil
}

// inUse is never true on Unix: a rename replaces a file held open.
func inUse(error) bool { return false }
