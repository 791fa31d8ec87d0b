package persist

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerUID is the user of the process at the other end of c, as the
// kernel recorded it when that process connected (LOCAL_PEERCRED, what
// getpeereid reads).
func peerUID(c *net.UnixConn) (int, error) {
	var uid int
	err := control(c, func(fd int) error {
		cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		if err == nil {
			uid = int(cred.Uid)
		}
		return err
	})
	return uid, err
}

// fromOwnTree does not read the peer's process here: a descendant is not
// told apart (see the Linux file).
func fromOwnTree(*net.UnixConn) (bool, error) { return false, nil }
