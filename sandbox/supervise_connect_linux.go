package sandbox

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Why the helper connects for the command rather than checking the address
// and letting the kernel go on (SECCOMP_USER_NOTIF_FLAG_CONTINUE): the
// kernel would read the address and the descriptor again after the check,
// and another thread of the command can change either in between. So the
// helper copies the address once into its own memory, takes the very
// socket (pidfd_getfd), decides on its copy and connects its duplicate
// with that copy. What the command changes afterwards changes nothing.

// caller is the thread whose connect is waiting, opened by its id.
type caller struct {
	tid, pidfd, mem int
}

// openCaller opens the thread's pidfd and memory. Whether they are the
// caller's (and not a recycled id's) is for the notification's validity,
// checked after.
func openCaller(tid int) (*caller, error) {
	pidfd, err := unix.PidfdOpen(tid, unix.PIDFD_THREAD)
	if errors.Is(err, unix.EINVAL) { // before 6.9: a process's pidfd only
		pidfd, err = processPidfd(tid)
	}
	if err != nil {
		return nil, fmt.Errorf("pidfd of %d: %w", tid, err)
	}
	mem, err := unix.Open(fmt.Sprintf("/proc/%d/mem", tid), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Close(pidfd)
		return nil, fmt.Errorf("memory of %d: %w", tid, err)
	}
	return &caller{tid: tid, pidfd: pidfd, mem: mem}, nil
}

// processPidfd opens the pidfd of the process thread tid belongs to. A
// thread with a descriptor table of its own (unshare(CLONE_FILES)) then
// has its socket looked up in the process's table: at worst the wrong
// socket is connected, to an address already judged.
func processPidfd(tid int) (int, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", tid))
	if err != nil {
		return -1, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Tgid:"); ok {
			tgid, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return -1, err
			}
			return unix.PidfdOpen(tgid, 0)
		}
	}
	return -1, fmt.Errorf("no Tgid in /proc/%d/status", tid)
}

func (c *caller) close() {
	unix.Close(c.pidfd)
	unix.Close(c.mem)
}

// socket duplicates the caller's descriptor fd into the helper.
func (c *caller) socket(fd uint64) (int, unix.Errno) {
	dup, err := unix.PidfdGetfd(c.pidfd, int(int32(fd)), 0)
	if err == nil {
		return dup, 0
	}
	if errors.Is(err, unix.EBADF) {
		return -1, unix.EBADF
	}
	return -1, unix.EACCES
}

// sockaddrMax is sizeof(struct sockaddr_storage), the kernel's bound on a
// connect address.
const sockaddrMax = 128

// address copies the caller's connect address (ptr, size) into the helper,
// with the errors the kernel would give.
func (c *caller) address(ptr, size uint64) ([]byte, unix.Errno) {
	n := int32(size)
	if n < 2 || n > sockaddrMax {
		return nil, unix.EINVAL
	}
	if ptr > math.MaxInt64 {
		return nil, unix.EFAULT
	}
	buf := make([]byte, n)
	got, err := unix.Pread(c.mem, buf, int64(ptr))
	if err != nil || got < len(buf) {
		return nil, unix.EFAULT
	}
	return buf, 0
}

// inetAddr reads an AF_INET or AF_INET6 address; ok is false for one too
// short, which the kernel refuses (EINVAL) before using it.
func inetAddr(raw []byte) (ip netip.Addr, port int, ok bool) {
	switch binary.NativeEndian.Uint16(raw) {
	case unix.AF_INET:
		if len(raw) < unix.SizeofSockaddrInet4 {
			return ip, 0, false
		}
		ip = netip.AddrFrom4([4]byte(raw[4:8]))
	case unix.AF_INET6:
		if len(raw) < 24 { // SIN6_LEN_RFC2133: without the scope id
			return ip, 0, false
		}
		ip = netip.AddrFrom16([16]byte(raw[8:24]))
	default:
		return ip, 0, false
	}
	return ip, int(binary.BigEndian.Uint16(raw[2:4])), true
}

// dnsPort is refused even on loopback: a local resolver's stub
// (systemd-resolved at 127.0.0.53, dnsmasq) would forward a query whose
// name carries data off the machine. Names are resolved by the proxy.
const dnsPort = 53

// loopbackAllowed says whether a TCP connect to ip:port stays on this
// machine's loopback: 127.0.0.0/8, ::1, the unspecified addresses (which
// Linux connects to the local host) and their IPv4-mapped forms.
func loopbackAllowed(ip netip.Addr, port int) bool {
	ip = ip.Unmap()
	return (ip.IsLoopback() || ip.IsUnspecified()) && port != dnsPort
}

// connect does what the notified connect asked, where it is allowed, and
// returns the errno the command's call returns (0: connected).
func (s *netSupervisor) connect(n *seccompNotif) unix.Errno {
	c, err := openCaller(int(n.Pid))
	if err != nil {
		s.log.Debug("sandbox: connect caller not opened", "pid", n.Pid, "err", err)
		return unix.EACCES
	}
	defer c.close()
	if !s.valid(n.ID) {
		return unix.EACCES // the caller is gone: no one reads this answer
	}
	sock, e := c.socket(n.Data.Args[0])
	if e != 0 {
		return e
	}
	defer unix.Close(sock)
	raw, e := c.address(n.Data.Args[1], n.Data.Args[2])
	if e != 0 {
		return e
	}
	return s.connectAddress(c, n.ID, sock, raw)
}

// connectAddress judges raw by its family and connects sock to it.
func (s *netSupervisor) connectAddress(c *caller, id uint64, sock int, raw []byte) unix.Errno {
	switch binary.NativeEndian.Uint16(raw) {
	case unix.AF_INET, unix.AF_INET6:
		ip, port, ok := inetAddr(raw)
		if !ok {
			return unix.EINVAL
		}
		if !loopbackAllowed(ip, port) {
			s.deny(Denial{Kind: "network", Host: ip.Unmap().String(), Port: port})
			return unix.EACCES
		}
	case unix.AF_UNIX:
		return s.connectUnix(c, id, sock, raw)
	case unix.AF_UNSPEC, unix.AF_NETLINK:
		// AF_UNSPEC dissolves a connection; netlink talks to the kernel.
	default:
		return unix.EACCES
	}
	return s.connectAs(sock, raw)
}

// connectAs connects the helper's duplicate of the command's socket with
// the helper's own copy of the address.
func (s *netSupervisor) connectAs(sock int, raw []byte) unix.Errno {
	if !s.enter(sock) {
		return unix.ENOSYS // closing: as the kernel answers without a helper
	}
	defer s.leave(sock)
	for {
		_, _, e := unix.Syscall(unix.SYS_CONNECT, uintptr(sock), uintptr(unsafe.Pointer(&raw[0])), uintptr(len(raw)))
		if e != unix.EINTR {
			return e
		}
	}
}
