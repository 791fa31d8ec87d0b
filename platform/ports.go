package platform

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"net"
	"slices"
	"strconv"
	"time"
)

// The parsers of each system's table of listening sockets live here,
// untagged, so that their tests run everywhere; the files per system only
// read the table and know which owners belong to a command.

// listener is one listening TCP socket: its port and what owns it, a
// socket inode on Linux or a process id elsewhere.
type listener struct {
	port  int
	owner uint64
}

// portsOf returns the sorted, unique ports of the listeners whose owner is
// in owners, or nil when there are none.
func portsOf(ls []listener, owners map[uint64]bool) []int {
	var ports []int
	for _, l := range ls {
		if owners[l.owner] && l.port > 0 {
			ports = append(ports, l.port)
		}
	}
	slices.Sort(ports)
	return slices.Compact(ports)
}

// parseProcNetTCP reads the listeners of a Linux /proc/net/tcp or tcp6
// table: state 0A is LISTEN, the local address ends in ":PORT" in hex, and
// the tenth field is the socket's inode.
func parseProcNetTCP(b []byte) []listener {
	var ls []listener
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) < 10 || string(f[3]) != "0A" {
			continue // the header, a short line, or not listening
		}
		i := bytes.LastIndexByte(f[1], ':')
		port, err1 := strconv.ParseUint(string(f[1][i+1:]), 16, 16)
		inode, err2 := strconv.ParseUint(string(f[9]), 10, 64)
		if i < 0 || err1 != nil || err2 != nil {
			continue
		}
		ls = append(ls, listener{port: int(port), owner: inode})
	}
	return ls
}

// parseLsof reads the output of `lsof -F pn`: a "p" line names the
// process the following lines belong to, an "n" line a socket's address
// ("*:8000", "127.0.0.1:8000", "[::1]:8000"); other lines are ignored.
func parseLsof(b []byte) []listener {
	var ls []listener
	var pid uint64
	for _, line := range bytes.Split(b, []byte("\n")) {
		if len(line) < 2 {
			continue
		}
		switch line[0] {
		case 'p':
			pid, _ = strconv.ParseUint(string(line[1:]), 10, 64)
		case 'n':
			name := line[1:]
			if i := bytes.Index(name, []byte("->")); i >= 0 {
				name = name[:i] // a connection, not a listener
			}
			i := bytes.LastIndexByte(name, ':')
			if port, err := strconv.Atoi(string(name[i+1:])); err == nil && i >= 0 && pid > 0 {
				ls = append(ls, listener{port: port, owner: pid})
			}
		}
	}
	return ls
}

// The Windows tables GetExtendedTcpTable fills: a DWORD count, then rows
// of DWORDs in the machine's (little-endian) order, except the port, whose
// first two bytes are in network order.
const (
	tcpStateListen = 2 // MIB_TCP_STATE_LISTEN

	// MIB_TCPROW_OWNER_PID: state, local addr, local port, remote addr,
	// remote port, owning pid.
	tcp4RowSize, tcp4State, tcp4Port, tcp4Pid = 24, 0, 8, 20
	// MIB_TCP6ROW_OWNER_PID: local addr[16], scope, local port, remote
	// addr[16], scope, remote port, state, owning pid.
	tcp6RowSize, tcp6State, tcp6Port, tcp6Pid = 56, 48, 20, 52
)

// decodeTCPTable reads the listeners of a MIB_TCPTABLE_OWNER_PID (ipv6
// false) or MIB_TCP6TABLE_OWNER_PID, keeping the rows the buffer holds.
func decodeTCPTable(b []byte, ipv6 bool) []listener {
	size, state, port, pid := tcp4RowSize, tcp4State, tcp4Port, tcp4Pid
	if ipv6 {
		size, state, port, pid = tcp6RowSize, tcp6State, tcp6Port, tcp6Pid
	}
	if len(b) < 4 {
		return nil
	}
	n := int(binary.LittleEndian.Uint32(b))
	var ls []listener
	for i := 0; i < n && 4+(i+1)*size <= len(b); i++ {
		row := b[4+i*size : 4+(i+1)*size]
		if binary.LittleEndian.Uint32(row[state:]) != tcpStateListen {
			continue
		}
		p := int(binary.BigEndian.Uint16(row[port:]))
		ls = append(ls, listener{port: p, owner: uint64(binary.LittleEndian.Uint32(row[pid:]))})
	}
	return ls
}

// PortAccepts tells whether a TCP connection to port on loopback, IPv4
// (127.0.0.1) or IPv6 (::1), succeeds now, within timeout in all. A server
// may listen on either; a refused connection answers at once, so a port
// with no server costs no wait.
func PortAccepts(port int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for _, host := range []string{"127.0.0.1", "::1"} {
		d := net.Dialer{Deadline: deadline}
		c, err := d.Dial("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err == nil {
			c.Close()
			return true
		}
	}
	return false
}
