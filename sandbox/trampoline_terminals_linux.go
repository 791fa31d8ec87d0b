package sandbox

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// ownTerminals gives the command a terminal folder of its own: a new
// devpts instance over /dev/pts, and its ptmx over /dev/ptmx. The
// terminals of the other sessions (and of the user's own shells) are no
// longer there to open, so a command cannot type into them; the
// terminals it makes (script, expect, a test's pty) are its own. Its own
// terminal stays its standard files and /dev/tty; its name (tty, ttyname)
// no longer opens.
func ownTerminals() error {
	if fi, err := os.Stat("/dev/pts"); err != nil || !fi.IsDir() {
		return nil
	}
	const opts = "newinstance,ptmxmode=0666,mode=0620"
	if err := unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, opts); err != nil {
		return fmt.Errorf("a terminal folder of the command's own: %w", err)
	}
	if _, err := os.Stat("/dev/ptmx"); err != nil {
		return nil
	}
	if err := unix.Mount("/dev/pts/ptmx", "/dev/ptmx", "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("a ptmx of the command's own: %w", err)
	}
	return nil
}
