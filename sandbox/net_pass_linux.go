package sandbox

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// How the listener travels: the helper makes a socket pair, gives the
// trampoline its end as an extra file, and closes its copy of that end
// once the trampoline is started; the trampoline sends the listener
// (sendListener) and closes both before it execs; the helper receives it
// (receiveListener), or an error if the trampoline ended without sending.

// listenerPair makes the socket pair: the helper's end is non-blocking, so
// that a read deadline applies to it; the trampoline's is blocking.
func listenerPair() (helper, child *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("listener socket pair: %w", err)
	}
	if err := unix.SetNonblock(fds[0], true); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), "sandbox-listener"), os.NewFile(uintptr(fds[1]), "sandbox-listener"), nil
}

// sendListener sends the listener fd over conn (the trampoline's end).
func sendListener(conn *os.File, listener int) error {
	rc, err := conn.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	err = rc.Write(func(fd uintptr) bool {
		serr = unix.Sendmsg(int(fd), []byte{1}, unix.UnixRights(listener), nil, 0)
		return serr != unix.EAGAIN
	})
	return errors.Join(err, serr)
}

// receiveListener receives the listener from conn (the helper's end) and
// checks that it is one. The stub sends its namespaces beside it (at
// most two): they are returned, for the guard to hold.
func receiveListener(conn *os.File) (*os.File, []int, error) {
	rc, err := conn.SyscallConn()
	if err != nil {
		return nil, nil, err
	}
	var n, oobn int
	var rerr error
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4*4))
	err = rc.Read(func(fd uintptr) bool {
		n, oobn, _, _, rerr = unix.Recvmsg(int(fd), buf, oob, unix.MSG_CMSG_CLOEXEC)
		return rerr != unix.EAGAIN
	})
	if err = errors.Join(err, rerr); err != nil {
		return nil, nil, fmt.Errorf("receive the network listener: %w", err)
	}
	fds, err := passedFDs(oob[:oobn])
	if err != nil || n != 1 || len(fds) < 1 || len(fds) > 3 {
		closeAll(fds)
		return nil, nil, errors.New("the sandbox sent no network listener")
	}
	l, err := checkListener(fds[0])
	if err != nil {
		closeAll(fds[1:])
		return nil, nil, err
	}
	return l, fds[1:], nil
}

func passedFDs(oob []byte) ([]int, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var fds []int
	for _, m := range msgs {
		got, err := unix.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		fds = append(fds, got...)
	}
	return fds, nil
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// checkListener makes sure fd is a seccomp listener before the helper
// serves it.
func checkListener(fd int) (*os.File, error) {
	link, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
	if err != nil || link != "anon_inode:seccomp notify" {
		unix.Close(fd)
		return nil, fmt.Errorf("the sandbox sent %q, not a seccomp listener", link)
	}
	return os.NewFile(uintptr(fd), "seccomp-listener"), nil
}
