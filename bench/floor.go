//go:build linux

package main

import (
	"os/exec"
	"time"

	"github.com/creack/pty"
)

// ptyRun is the floor: what any program must do to run a command on a
// terminal and see all its output, with no protocol, no cleaning and no
// bookkeeping. It allocates a pty, starts argv on it, reads the master
// into a discarding buffer until the terminal closes, and waits. It
// returns the bytes read and the moment the wait returned.
func ptyRun(argv ...string) (int64, time.Time, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	master, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 160, Rows: 48})
	if err != nil {
		return 0, time.Time{}, err
	}
	defer master.Close()
	buf := make([]byte, 32<<10) // the helper's read size
	var n int64
	for {
		k, err := master.Read(buf)
		n += int64(k)
		if err != nil {
			break // EIO: the last process holding the terminal is gone
		}
	}
	err = cmd.Wait()
	return n, time.Now(), err
}

// floorShell times ptyRun of a shell command line, as the helper runs it.
func floorShell(command string) (time.Duration, int64, error) {
	t0 := time.Now()
	n, end, err := ptyRun("/bin/sh", "-c", command)
	return end.Sub(t0), n, err
}

// alone times command with its output to /dev/null, no terminal at all:
// when the floor is far above it, the terminal is what limits the rate.
func alone(command string) (time.Duration, error) {
	t0 := time.Now()
	err := exec.Command("/bin/sh", "-c", "("+command+") > /dev/null").Run()
	return time.Since(t0), err
}
