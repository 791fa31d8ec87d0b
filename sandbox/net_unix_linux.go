package sandbox

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Unix sockets. The helper connects them for the command like the others
// (the descriptor could be swapped for a TCP socket between a check and
// the kernel's own connect), so it must find the socket file the command
// would find: the command may live in a mount namespace of its own, where
// secret folders are empty. The path is resolved from the command's root
// (/proc/TID/root, absolute symbolic links included) and, when relative,
// from its working directory; the helper then connects through the file
// it opened, never through the name again.
//
// Abstract sockets (a name starting with a NUL byte) live in the network
// namespace, not the file system: the desktop's X server, a session bus,
// container shims listen there, so the command is refused them (EACCES),
// as Landlock's scope refuses the command's own connects to them from ABI 6.

// connectUnix connects sock to the unix socket the caller named.
func (s *netSupervisor) connectUnix(c *caller, id uint64, sock int, raw []byte) unix.Errno {
	name := raw[2:]
	switch {
	case len(name) == 0:
		return unix.EINVAL // as the kernel: an unnamed address
	case name[0] == 0:
		s.deny(Denial{Kind: "network", Path: "@" + string(bytes.TrimRight(name[1:], "\x00"))})
		return unix.EACCES
	}
	if i := bytes.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	target, e := c.unixTarget(string(name))
	if e != 0 {
		return e
	}
	defer unix.Close(target)
	if !s.valid(id) {
		return unix.EACCES
	}
	return s.connectAs(sock, unixSockaddr("/proc/self/fd/"+strconv.Itoa(target)))
}

// unixTarget opens (O_PATH) the file at path as the caller sees it.
func (c *caller) unixTarget(path string) (int, unix.Errno) {
	root, err := unix.Open(fmt.Sprintf("/proc/%d/root", c.tid), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, unix.EACCES
	}
	defer unix.Close(root)
	if !strings.HasPrefix(path, "/") {
		cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", c.tid))
		if err != nil || !strings.HasPrefix(cwd, "/") {
			return -1, unix.ENOENT
		}
		path = cwd + "/" + path // not cleaned: ".." after a symbolic link is the kernel's
	}
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_MAGICLINKS}
	for {
		fd, err := unix.Openat2(root, path, &how)
		var e unix.Errno
		switch {
		case err == nil:
			return fd, 0
		case errors.As(err, &e) && e == unix.EAGAIN:
			continue // a rename raced the resolution
		case errors.As(err, &e):
			return -1, e
		}
		return -1, unix.EACCES
	}
}

// unixSockaddr is a struct sockaddr_un for a path, NUL-terminated.
func unixSockaddr(path string) []byte {
	raw := binary.NativeEndian.AppendUint16(make([]byte, 0, 2+len(path)+1), unix.AF_UNIX)
	raw = append(raw, path...)
	return append(raw, 0)
}
