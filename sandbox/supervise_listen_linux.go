package sandbox

import (
	"errors"

	"golang.org/x/sys/unix"
)

// Listening. A confined command may serve loopback (a dev server, a test
// database), but a socket listening on every address would also let a
// peer elsewhere connect in and take whatever the command hands it: a
// way out that needs no connect. So listen(2) comes to the helper too,
// which binds the very socket to the loopback device before it listens
// on it: the command's bind address stays as it asked (0.0.0.0, ::, the
// machine's own address), connections from this machine arrive as before
// (they travel over loopback), and those from elsewhere find nothing.
// Rebinding to another device needs CAP_NET_RAW in the network's own
// user namespace, which no confined command has.

// loopbackDevice is the loopback interface's name, the same in every
// network namespace.
const loopbackDevice = "lo"

// listen serves a listen(2): the helper listens on its duplicate of the
// caller's socket, so the socket checked is the socket that listens,
// whatever another thread does to the descriptor meanwhile.
func (s *netSupervisor) listen(n *seccompNotif) unix.Errno {
	c, err := openCaller(int(n.Pid))
	if err != nil {
		s.log.Debug("sandbox: listen caller not opened", "pid", n.Pid, "err", err)
		return unix.EACCES
	}
	defer c.close()
	if !s.valid(n.ID) {
		return unix.EACCES
	}
	sock, e := c.socket(n.Data.Args[0])
	if e != 0 {
		return e
	}
	defer unix.Close(sock)
	if e := loopbackOnly(sock); e != 0 {
		return e
	}
	return errnoOf(unix.Listen(sock, int(int32(n.Data.Args[1]))))
}

// loopbackOnly binds an IP socket to the loopback device; other families
// (unix sockets) are left as they are.
func loopbackOnly(sock int) unix.Errno {
	domain, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_DOMAIN)
	if err != nil {
		return errnoOf(err) // ENOTSOCK, as listen would say
	}
	if domain != unix.AF_INET && domain != unix.AF_INET6 {
		return 0
	}
	if dev, err := unix.GetsockoptString(sock, unix.SOL_SOCKET, unix.SO_BINDTODEVICE); err == nil && dev == loopbackDevice {
		return 0
	}
	if err := unix.SetsockoptString(sock, unix.SOL_SOCKET, unix.SO_BINDTODEVICE, loopbackDevice); err != nil {
		return unix.EACCES // bound to another device already: it would listen there
	}
	return 0
}

// errnoOf is err's errno, 0 for nil.
func errnoOf(err error) unix.Errno {
	var e unix.Errno
	switch {
	case err == nil:
		return 0
	case errors.As(err, &e):
		return e
	}
	return unix.EACCES
}
