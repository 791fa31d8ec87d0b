//go:build !unix && !windows

package policy

import (
	"errors"
	"os"
	"time"
)

// staleLock is how old a lock file may get before it is taken to belong to
// a helper that died while holding it; a holder keeps it for milliseconds.
const staleLock = 10 * time.Second

// lockFile creates path exclusively, retrying while another helper holds
// it; O_EXCL creation is atomic where there is no flock.
func lockFile(path string) (func(), error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if fi, serr := os.Stat(path); serr == nil && time.Since(fi.ModTime()) > staleLock {
			os.Remove(path)
			continue
		}
		if time.Now().After(deadline) {
			return nil, errors.New("timed out waiting for " + path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// inUse is never true here: a file held open does not stop a rename.
func inUse(error) bool { return false }
