package platform

import (
	"bufio"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"
)

// tcpListen is the state number of a listening socket in /proc/net/tcp.
const tcpListen = "0A"

// parseProcNetTCP reads /proc/net/tcp or tcp6 and returns the port of
// every listening socket by its inode.
func parseProcNetTCP(r io.Reader) map[uint64]int {
	out := map[uint64]int{}
	sc := bufio.NewScanner(r)
	sc.Scan() // the header
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[3] != tcpListen {
			continue
		}
		_, hexPort, ok := strings.Cut(f[1], ":")
		port, err1 := strconv.ParseUint(hexPort, 16, 16)
		inode, err2 := strconv.ParseUint(f[9], 10, 64)
		if ok && err1 == nil && err2 == nil && inode != 0 {
			out[inode] = int(port)
		}
	}
	return out
}

// socketInode reads a /proc/PID/fd link target such as "socket:[12345]".
func socketInode(link string) (uint64, bool) {
	s, ok := strings.CutPrefix(link, "socket:[")
	if !ok || !strings.HasSuffix(s, "]") {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSuffix(s, "]"), 10, 64)
	return n, err == nil
}

// sortedPorts returns the ports as a sorted list without duplicates.
func sortedPorts(ports []int) []int {
	slices.Sort(ports)
	return slices.Compact(ports)
}

// PortAccepts reports whether a TCP connection to port on loopback (IPv4
// or IPv6) succeeds now.
func PortAccepts(port int, timeout time.Duration) bool {
	for _, host := range []string{"127.0.0.1", "::1"} {
		c, err := net.DialTimeout("tcp", net.JoinHostPort(host, strconv.Itoa(port)), timeout)
		if err == nil {
			c.Close()
			return true
		}
	}
	return false
}
