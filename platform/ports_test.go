package platform

import (
	"encoding/binary"
	"net"
	"slices"
	"testing"
	"time"
)

func TestParseProcNetTCP(t *testing.T) {
	tcp := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
		"   0: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1075 1 000000004e39e08e 100 0 0 10 0\n" +
		"   1: 0100007F:1F90 0100007F:A2C4 01 00000000:00000000 00:00000000 00000000  1000        0 2001 1 0000000000000000 20 4 30 10 -1\n" +
		"   2: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 2000 1 0000000000000000 100 0 0 10 0\n" +
		"   3: 0100007F:0050 00000000:0000 06 00000000:00000000 03:00000a5c 00000000     0        0 0 3 0000000000000000\n"
	tcp6 := "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
		"   0: 00000000000000000000000001000000:A1B2 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 3000 1 0000000000000000 100 0 0 10 0\n" +
		"   1: 00000000000000000000000000000000:0016 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 3001 1 0000000000000000 100 0 0 10 0\n"
	got := parseProcNetTCP([]byte(tcp))
	want := []listener{{port: 2024, owner: 1075}, {port: 8080, owner: 2000}}
	if !slices.Equal(got, want) {
		t.Errorf("tcp: %v, want %v (only state 0A listens)", got, want)
	}
	got = parseProcNetTCP([]byte(tcp6))
	want = []listener{{port: 0xA1B2, owner: 3000}, {port: 22, owner: 3001}}
	if !slices.Equal(got, want) {
		t.Errorf("tcp6: %v, want %v", got, want)
	}
	if got := parseProcNetTCP([]byte("   0: garbage 0A\n   1: 0100007F:ZZ 0 0A a b c d e f\n")); got != nil {
		t.Errorf("malformed lines: %v", got)
	}
}

func TestParseLsof(t *testing.T) {
	out := "p501\nf5\nn*:5173\nf6\nn[::1]:5173\np502\nf3\nn127.0.0.1:8000\nf4\nn127.0.0.1:8000->127.0.0.1:50000\nf7\nn[fe80::1%lo0]:9229\n"
	got := parseLsof([]byte(out))
	want := []listener{{5173, 501}, {5173, 501}, {8000, 502}, {8000, 502}, {9229, 502}}
	if !slices.Equal(got, want) {
		t.Fatalf("parseLsof = %v, want %v", got, want)
	}
	if ports := portsOf(got, map[uint64]bool{501: true, 502: true}); !slices.Equal(ports, []int{5173, 8000, 9229}) {
		t.Fatalf("ports = %v", ports)
	}
	if got := parseLsof([]byte("n*:80\n")); got != nil {
		t.Fatalf("a name before any process: %v", got)
	}
}

// tcpRow builds one row of a Windows table the way the system lays it out.
func tcpRow(ipv6 bool, state uint32, port uint16, pid uint32) []byte {
	size, st, po, pi := tcp4RowSize, tcp4State, tcp4Port, tcp4Pid
	if ipv6 {
		size, st, po, pi = tcp6RowSize, tcp6State, tcp6Port, tcp6Pid
	}
	row := make([]byte, size)
	for i := range row {
		row[i] = 0xEE // fields the decoder must not read
	}
	binary.LittleEndian.PutUint32(row[st:], state)
	binary.LittleEndian.PutUint32(row[po:], 0)
	binary.BigEndian.PutUint16(row[po:], port)
	binary.LittleEndian.PutUint32(row[pi:], pid)
	return row
}

func tcpTable(count uint32, rows ...[]byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, count)
	for _, r := range rows {
		b = append(b, r...)
	}
	return b
}

func TestDecodeTCPTable(t *testing.T) {
	for _, ipv6 := range []bool{false, true} {
		b := tcpTable(3, tcpRow(ipv6, tcpStateListen, 5173, 4242), tcpRow(ipv6, 5, 443, 4242), tcpRow(ipv6, tcpStateListen, 8080, 7))
		got := decodeTCPTable(b, ipv6)
		want := []listener{{5173, 4242}, {8080, 7}}
		if !slices.Equal(got, want) {
			t.Errorf("ipv6=%v: %v, want %v", ipv6, got, want)
		}
		// A count larger than the buffer keeps the rows that are there.
		short := tcpTable(9, tcpRow(ipv6, tcpStateListen, 3000, 1))
		if got := decodeTCPTable(short, ipv6); !slices.Equal(got, []listener{{3000, 1}}) {
			t.Errorf("ipv6=%v, truncated table: %v", ipv6, got)
		}
	}
	if decodeTCPTable([]byte{1, 0}, false) != nil {
		t.Error("a buffer without a count")
	}
}

func TestPortsOfKeepsOnlyTheOwnersSortedAndUnique(t *testing.T) {
	ls := []listener{{9000, 1}, {3000, 2}, {9000, 2}, {22, 3}, {3000, 1}}
	if got := portsOf(ls, map[uint64]bool{1: true, 2: true}); !slices.Equal(got, []int{3000, 9000}) {
		t.Fatalf("portsOf = %v", got)
	}
	if got := portsOf(ls, map[uint64]bool{}); got != nil {
		t.Fatalf("no owners: %v", got)
	}
}

func TestPortAccepts(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if !PortAccepts(port, 10*time.Second) {
		t.Fatalf("port %d listens but does not accept", port)
	}
	l.Close()
	if PortAccepts(port, 10*time.Second) {
		t.Fatalf("port %d accepts after its listener closed", port)
	}
	l6, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skip("no IPv6 loopback:", err)
	}
	defer l6.Close()
	if !PortAccepts(l6.Addr().(*net.TCPAddr).Port, 10*time.Second) {
		t.Fatal("a server on ::1 only is not seen")
	}
}
