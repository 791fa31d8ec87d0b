package sandbox

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/termhelper/termhelper/places"
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
//
// Some unix sockets are themselves a way out, and are refused too (EACCES),
// wherever the command finds them (by their resolved path): the daemons
// that resolve a name the command gives them, sending a DNS query that may
// carry data (nscd, systemd-resolved, the system bus that fronts it); the
// session's own services, which run programs outside the sandbox (the
// session bus, systemd --user), hold keys (ssh-agent, gpg-agent, the
// keyring) or type into other windows (X11, Wayland): all in the user's
// runtime folder or /tmp/.X11-unix; and the container engines, whose
// containers have the network and the host's files.

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
	if place, refused := refusedSocket(target); refused {
		s.deny(Denial{Kind: "network", Path: place})
		return unix.EACCES
	}
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

// refusedSocket says whether the socket file opened as fd lies in one of
// the refused places, and names it.
func refusedSocket(fd int) (string, bool) {
	path, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		return "", true
	}
	for _, place := range refusedUnixPlaces() {
		if path == place || strings.HasPrefix(path, place+"/") {
			return path, true
		}
	}
	return path, sshSocket(path)
}

// sshSocket tells a socket OpenSSH keeps in a temporary folder: its
// agents' (ssh-XXXXXXXXXX/agent.N, one per login that forwards an agent,
// whatever SSH_AUTH_SOCK the helper was given) and the connection
// sharing sockets a ControlPath commonly puts there (ssh-%r@%h:%p,
// ssh_mux_...). Either lets a command log in with the user's keys.
func sshSocket(path string) bool {
	for _, tmp := range sshTemps() {
		rest, ok := strings.CutPrefix(path, tmp+"/")
		if !ok {
			continue
		}
		first, _, _ := strings.Cut(rest, "/")
		if strings.HasPrefix(first, "ssh-") || strings.HasPrefix(first, "ssh_") || strings.HasPrefix(first, ".ssh-") {
			return true
		}
	}
	return false
}

// sshTemps are the temporary folders OpenSSH may put its sockets in.
var sshTemps = sync.OnceValue(func() []string {
	var out []string
	for _, d := range []string{"/tmp", "/var/tmp", os.TempDir()} {
		out = append(out, filepath.Clean(d))
		if real, err := filepath.EvalSymlinks(d); err == nil && !slices.Contains(out, real) {
			out = append(out, real)
		}
	}
	return out
})

// refusedUnixPlaces are the folders and sockets refused to commands,
// resolved once as the helper sees them.
var refusedUnixPlaces = sync.OnceValue(defaultRefusedUnix)

func defaultRefusedUnix() []string {
	places := []string{
		"/run/user/" + strconv.Itoa(os.Getuid()), os.Getenv("XDG_RUNTIME_DIR"), os.Getenv("SSH_AUTH_SOCK"),
		"/tmp/.X11-unix",
		"/run/nscd", "/run/systemd/resolve", "/run/dbus",
		"/run/docker.sock", "/run/containerd", "/run/podman", "/run/crio",
		places.Rendezvous(os.Getenv), // termhelper --persist: a helper serves whoever connects
	}
	if h, ok := strings.CutPrefix(os.Getenv("DOCKER_HOST"), "unix://"); ok {
		places = append(places, h)
	}
	var out []string
	for _, p := range places {
		if !filepath.IsAbs(p) {
			continue
		}
		out = append(out, filepath.Clean(p))
		if real, err := filepath.EvalSymlinks(p); err == nil && real != filepath.Clean(p) {
			out = append(out, real)
		}
	}
	return out
}
