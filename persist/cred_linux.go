package persist

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerUID is the user of the process at the other end of c, as the
// kernel recorded it when that process connected.
func peerUID(c *net.UnixConn) (int, error) {
	var uid int
	err := control(c, func(fd int) error {
		cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
		if err == nil {
			uid = int(cred.Uid)
		}
		return err
	})
	return uid, err
}
