package sandbox

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The network tests' children: the test binary itself, switched by its
// environment before any test runs.
//
//	netFilterEnv=MODE   install the filter for MODE on this thread, send
//	                    the listener over fd 3, then exec os.Args[1:]
//	netHideEnv=DIR      (with the above, in a new mount namespace) mount
//	                    an empty tmpfs over DIR first
//	netAttemptEnv=NAME  run one attempt (attempts below) and exit; each
//	                    prints one line per result, "what=ok" or
//	                    "what=ERRNO"
const (
	netFilterEnv  = "TERMHELPER_NETTEST_FILTER"
	netHideEnv    = "TERMHELPER_NETTEST_HIDE"
	netAttemptEnv = "TERMHELPER_NETTEST_ATTEMPT"
)

func init() {
	if mode, ok := os.LookupEnv(netFilterEnv); ok {
		os.Exit(filterChild(Network(mode)))
	}
	if name, ok := os.LookupEnv(netAttemptEnv); ok {
		attempt, found := attempts[name]
		if !found {
			fmt.Fprintf(os.Stderr, "no attempt %q\n", name)
			os.Exit(2)
		}
		attempt()
		os.Exit(0)
	}
}

// filterChild does what the trampoline does for the network, then execs.
func filterChild(mode Network) int {
	runtime.LockOSThread()
	if dir := os.Getenv(netHideEnv); dir != "" {
		if err := hide(dir); err != nil {
			fmt.Fprintln(os.Stderr, "hide:", err)
			return 126
		}
	}
	conn := os.NewFile(3, "listener-conn")
	fd, err := filterNetwork(mode)
	if err == nil && fd >= 0 {
		err = sendListener(conn, fd)
		unix.Close(fd)
	}
	conn.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "filter:", err)
		return 126
	}
	os.Unsetenv(netFilterEnv)
	err = syscall.Exec(os.Args[1], os.Args[1:], os.Environ())
	fmt.Fprintln(os.Stderr, "exec:", err)
	return 126
}

func hide(dir string) error {
	if err := unix.Mount("", "/", "", unix.MS_PRIVATE|unix.MS_REC, ""); err != nil {
		return err
	}
	return unix.Mount("tmpfs", dir, "tmpfs", unix.MS_RDONLY, "size=4k")
}

var attempts = map[string]func(){
	"connect":  attemptConnect,
	"udp":      attemptUDP,
	"raw":      attemptRaw,
	"fastopen": attemptFastOpen,
	"iouring":  attemptIOUring,
	"unix":     attemptUnix,
	"race":     attemptRace,
	"wait":     attemptAfterLine,
	"bench":    attemptBench,
	"nested":   attemptNested,
	"listen":   attemptListen,
}

func report(what string, err error) {
	if err == nil {
		fmt.Printf("%s=ok\n", what)
		return
	}
	if e, ok := err.(unix.Errno); ok {
		fmt.Printf("%s=%s\n", what, unix.ErrnoName(e))
		return
	}
	fmt.Printf("%s=%v\n", what, err)
}

// sockaddrOf parses ADDR-like "ip:port" into a socket address and family.
func sockaddrOf(s string) (unix.Sockaddr, int) {
	ap := netip.MustParseAddrPort(s)
	if ap.Addr().Is4() {
		return &unix.SockaddrInet4{Addr: ap.Addr().As4(), Port: int(ap.Port())}, unix.AF_INET
	}
	return &unix.SockaddrInet6{Addr: ap.Addr().As16(), Port: int(ap.Port())}, unix.AF_INET6
}

// attemptConnect: a TCP connect to $ADDR (non-blocking with $NONBLOCK),
// then one byte "x" on the connection; $REPEAT times.
func attemptConnect() {
	n, err := strconv.Atoi(os.Getenv("REPEAT"))
	if err != nil {
		n = 1
	}
	for range n {
		connectOnce(os.Getenv("ADDR"), os.Getenv("NONBLOCK") != "")
	}
}

func connectOnce(addr string, nonblock bool) {
	sa, family := sockaddrOf(addr)
	typ := unix.SOCK_STREAM
	if nonblock {
		typ |= unix.SOCK_NONBLOCK
	}
	fd, err := unix.Socket(family, typ, 0)
	if err != nil {
		report("socket", err)
		return
	}
	defer unix.Close(fd)
	err = unix.Connect(fd, sa)
	if err == unix.EINPROGRESS {
		report("connect", err)
		err = waitConnected(fd)
	}
	report("connected", err)
	if err == nil {
		_, err = unix.Write(fd, []byte("x"))
		report("write", err)
	}
}

// attemptNested: a second filter with a listener of its own, which would
// let the command answer its own connects.
func attemptNested() {
	runtime.LockOSThread()
	_, err := filterNetwork(NetworkProxy)
	report("nested", errors.Unwrap(err))
}

func waitConnected(fd int) error {
	p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
	for {
		if _, err := unix.Poll(p, -1); err != unix.EINTR {
			break
		}
	}
	soerr, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err != nil {
		return err
	}
	if soerr != 0 {
		return unix.Errno(soerr)
	}
	return nil
}

// attemptUDP: a UDP socket, and a datagram to $ADDR if one could be made.
func attemptUDP() {
	sa, family := sockaddrOf(os.Getenv("ADDR"))
	fd, err := unix.Socket(family, unix.SOCK_DGRAM, 0)
	report("socket", err)
	if err == nil {
		report("sendto", unix.Sendto(fd, []byte("x"), 0, sa))
	}
}

// attemptRaw: raw IP, ICMP datagram ("ping") and packet sockets.
func attemptRaw() {
	_, err := unix.Socket(unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP)
	report("raw", err)
	_, err = unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, unix.IPPROTO_ICMP)
	report("ping", err)
	_, err = unix.Socket(unix.AF_PACKET, unix.SOCK_RAW, 0)
	report("packet", err)
	_, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_SCTP)
	report("sctp", err)
}

// attemptFastOpen: data to $ADDR with MSG_FASTOPEN, which connects.
func attemptFastOpen() {
	sa, family := sockaddrOf(os.Getenv("ADDR"))
	fd, err := unix.Socket(family, unix.SOCK_STREAM, 0)
	if err != nil {
		report("socket", err)
		return
	}
	report("sendto", unix.Sendto(fd, []byte("x"), unix.MSG_FASTOPEN, sa))
}

// attemptIOUring: set up a ring of one entry.
func attemptIOUring() {
	var params [120]byte // struct io_uring_params
	fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params)), 0)
	if e != 0 {
		report("setup", e)
		return
	}
	unix.Close(int(fd))
	report("setup", nil)
}

// attemptUnix: a unix stream connect to $SOCK (absolute or relative to
// the working directory), then "x".
func attemptUnix() {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		report("socket", err)
		return
	}
	err = unix.Connect(fd, &unix.SockaddrUnix{Name: os.Getenv("SOCK")})
	report("connect", err)
	if err == nil {
		_, err = unix.Write(fd, []byte("x"))
		report("write", err)
	}
}

// attemptAfterLine waits for a line on stdin, then connects as
// attemptConnect: the helper is gone by then.
func attemptAfterLine() {
	bufio.NewReader(os.Stdin).ReadString('\n')
	attemptConnect()
}

// attemptBench: for each number N read on stdin, N blocking connects to
// $ADDR, each closed at once; "done" after each batch.
func attemptBench() {
	sa, family := sockaddrOf(os.Getenv("ADDR"))
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		n, _ := strconv.Atoi(in.Text())
		for range n {
			fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err == nil {
				err = unix.Connect(fd, sa)
				unix.Close(fd)
			}
			if err != nil {
				report("connect", err)
				return
			}
		}
		fmt.Println("done")
	}
}

// raceFD is the descriptor number every round connects, and that a second
// thread keeps replacing with fresh sockets.
const raceFD = 200

// attemptRace connects descriptor raceFD to an address in memory that a
// second thread keeps flipping between $LOOP and $OUT, while a third keeps
// swapping the socket at raceFD. It goes on until both outcomes were seen
// $MIN times each (or $MAX rounds), and prints the counts.
func attemptRace() {
	loop, out := rawInet4(os.Getenv("LOOP")), rawInet4(os.Getenv("OUT"))
	minSeen, _ := strconv.Atoi(os.Getenv("MIN"))
	maxRounds, _ := strconv.Atoi(os.Getenv("MAX"))
	var addr [2]uint64 // struct sockaddr_in; its first word holds family, port and address
	addr[0] = loop
	var stop atomic.Bool
	go flipWords(&addr[0], loop, out, &stop)
	go swapSockets(&stop)
	counts := map[string]int{}
	for rounds := 0; rounds < maxRounds && (counts["ok"] < minSeen || counts["EACCES"] < minSeen); rounds++ {
		counts[raceRound(&addr)]++
	}
	stop.Store(true)
	for k, v := range counts {
		fmt.Printf("%s=%d\n", k, v)
	}
}

func raceRound(addr *[2]uint64) string {
	if s, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0); err == nil {
		unix.Dup3(s, raceFD, 0)
		unix.Close(s)
	}
	_, _, e := unix.Syscall(unix.SYS_CONNECT, raceFD, uintptr(unsafe.Pointer(addr)), unix.SizeofSockaddrInet4)
	if e == 0 {
		return "ok"
	}
	return unix.ErrnoName(e)
}

func flipWords(w *uint64, a, b uint64, stop *atomic.Bool) {
	runtime.LockOSThread()
	for !stop.Load() {
		atomic.StoreUint64(w, b)
		atomic.StoreUint64(w, a)
	}
}

func swapSockets(stop *atomic.Bool) {
	runtime.LockOSThread()
	for !stop.Load() {
		if s, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0); err == nil {
			unix.Dup3(s, raceFD, 0)
			unix.Close(s)
		}
	}
}

// rawInet4 is the first word of a struct sockaddr_in for "ip:port", as
// the kernel reads it from memory.
func rawInet4(s string) uint64 {
	ap := netip.MustParseAddrPort(s)
	b := binary.NativeEndian.AppendUint16(nil, unix.AF_INET)
	b = binary.BigEndian.AppendUint16(b, ap.Port())
	b = append(b, ap.Addr().AsSlice()...)
	return binary.NativeEndian.Uint64(b)
}

// attemptListen: a TCP socket listening on $ADDR (bound first unless
// $NOBIND, which lets listen pick an address: every one), its port
// printed as "port=N"; then one byte "x" to each connection accepted.
func attemptListen() {
	sa, family := sockaddrOf(os.Getenv("ADDR"))
	fd, err := unix.Socket(family, unix.SOCK_STREAM, 0)
	if err == nil && os.Getenv("NOBIND") == "" {
		err = unix.Bind(fd, sa)
	}
	if err == nil {
		err = unix.Listen(fd, 8)
	}
	report("listen", err)
	if err != nil {
		return
	}
	name, _ := unix.Getsockname(fd)
	switch a := name.(type) {
	case *unix.SockaddrInet4:
		fmt.Printf("port=%d\n", a.Port)
	case *unix.SockaddrInet6:
		fmt.Printf("port=%d\n", a.Port)
	}
	for {
		c, _, err := unix.Accept(fd)
		if err != nil {
			report("accept", err)
			return
		}
		unix.Write(c, []byte("x"))
		unix.Close(c)
	}
}
