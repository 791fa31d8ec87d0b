package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// watchdog bounds every wait in these tests; none is a measure of speed.
const watchdog = 60 * time.Second

func requireNetworkSupport(t testing.TB) {
	t.Helper()
	if ok, reason := networkSupport(); !ok {
		t.Skip(reason)
	}
}

// childOpts is how a filtered child is started.
type childOpts struct {
	mode  Network
	env   []string // besides os.Environ()
	dir   string   // working directory
	hide  string   // a folder made empty in the child's own mount namespace
	stdin bool     // keep a pipe to the child's input
	pipe  bool     // read the child's output from a pipe, not from results
}

// filtered is a child under the network filter, served by a supervisor.
type filtered struct {
	cmd    *exec.Cmd
	sup    *netSupervisor
	stdin  io.WriteCloser
	stdout *bufio.Reader // with childOpts.pipe
	out    bytes.Buffer
	errOut bytes.Buffer
	exited chan struct{}
}

// startFiltered starts argv with the network filter for o.mode, as the
// trampoline would, and serves its listener.
func startFiltered(t testing.TB, o childOpts, argv ...string) *filtered {
	t.Helper()
	requireNetworkSupport(t)
	helperEnd, childEnd, err := listenerPair()
	if err != nil {
		t.Fatal(err)
	}
	defer helperEnd.Close()
	f := &filtered{exited: make(chan struct{})}
	f.cmd = exec.Command(os.Args[0], argv...)
	f.cmd.Env = append(append(os.Environ(), netFilterEnv+"="+string(o.mode)), o.env...)
	f.cmd.Dir, f.cmd.ExtraFiles = o.dir, []*os.File{childEnd}
	f.cmd.Stdout, f.cmd.Stderr = &f.out, &f.errOut
	if o.hide != "" {
		inOwnMountNamespace(f.cmd, o.hide)
	}
	if o.stdin {
		if f.stdin, err = f.cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
	}
	var w *os.File
	if o.pipe {
		w = f.outputPipe(t)
	}
	if err := f.cmd.Start(); err != nil {
		if o.hide != "" {
			t.Skipf("no user and mount namespace for the child here: %v", err)
		}
		t.Fatal(err)
	}
	childEnd.Close()
	if w != nil {
		w.Close()
	}
	go func() { f.cmd.Wait(); close(f.exited) }()
	t.Cleanup(f.stop)
	if o.mode == NetworkOpen {
		return f
	}
	helperEnd.SetReadDeadline(time.Now().Add(watchdog))
	l, _, err := receiveListener(helperEnd)
	if err != nil {
		f.stop()
		t.Fatalf("%v; child's stderr: %s", err, f.errOut.String())
	}
	f.sup = superviseNetwork(l, f.cmd.Process.Pid, slog.New(slog.DiscardHandler))
	return f
}

// outputPipe sends the child's output to a pipe read through f.stdout,
// and returns the pipe's end to close once the child is started.
func (f *filtered) outputPipe(t testing.TB) *os.File {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	f.cmd.Stdout, f.stdout = w, bufio.NewReader(r)
	return w
}

func inOwnMountNamespace(cmd *exec.Cmd, dir string) {
	cmd.Env = append(cmd.Env, netHideEnv+"="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}},
		AmbientCaps: []uintptr{unix.CAP_SYS_ADMIN},
	}
}

// stop ends the child if it still runs and the supervisor.
func (f *filtered) stop() {
	f.cmd.Process.Kill()
	<-f.exited
	if f.sup != nil {
		f.sup.Close()
	}
}

// results waits for the child's end and returns its "what=result" lines.
func (f *filtered) results(t testing.TB) map[string]string {
	t.Helper()
	select {
	case <-f.exited:
	case <-time.After(watchdog):
		t.Fatal("the child did not end")
	}
	res := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(f.out.String()), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			res[k] = v
		}
	}
	if len(res) == 0 {
		t.Fatalf("no results; stdout %q, stderr %q", f.out.String(), f.errOut.String())
	}
	return res
}

// attempt runs the named attempt of the test binary under the filter.
func attempt(t testing.TB, name string, o childOpts) *filtered {
	t.Helper()
	o.env = append(o.env, netAttemptEnv+"="+name)
	return startFiltered(t, o, os.Args[0])
}

func expect(t testing.TB, res map[string]string, what, want string) {
	t.Helper()
	if res[what] != want {
		t.Errorf("%s: got %q, want %q (all: %v)", what, res[what], want, res)
	}
}

func listenTCP(t testing.TB, network, host string) *net.TCPListener {
	t.Helper()
	ln, err := net.Listen(network, net.JoinHostPort(host, "0"))
	if err != nil {
		t.Skipf("cannot listen on %s here: %v", host, err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.(*net.TCPListener)
}

// outsideIPv4 is an address of this machine that is not loopback: a
// connection to it stays on the machine, but the filter must treat it as
// the outside.
func outsideIPv4(t testing.TB) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skipf("no interfaces: %v", err)
	}
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if ok && ipn.IP.To4() != nil && !ipn.IP.IsLoopback() && !ipn.IP.IsLinkLocalUnicast() {
			return ipn.IP.String()
		}
	}
	t.Skip("this machine has no non-loopback IPv4 address to stand for the outside")
	return ""
}

// acceptByte accepts one connection and returns its first byte.
func acceptByte(t testing.TB, ln *net.TCPListener) string {
	t.Helper()
	ln.SetDeadline(time.Now().Add(watchdog))
	c, err := ln.Accept()
	if err != nil {
		t.Fatalf("nothing arrived at %s: %v", ln.Addr(), err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(watchdog))
	b := make([]byte, 1)
	if _, err := io.ReadFull(c, b); err != nil {
		t.Fatalf("no byte from the connection: %v", err)
	}
	return string(b)
}

// othersArrived counts the connections ln received before one the test
// makes itself now: the listener's queue holds whatever the child's
// connects reached, in order, before the test's own.
func othersArrived(t testing.TB, ln *net.TCPListener) int {
	t.Helper()
	mine, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	ln.SetDeadline(time.Now().Add(watchdog))
	for others := 0; ; others++ {
		c, err := ln.Accept()
		if err != nil {
			t.Fatalf("the test's own connection did not arrive: %v", err)
		}
		c.Close()
		if c.RemoteAddr().String() == mine.LocalAddr().String() {
			return others
		}
	}
}

func TestNetworkSupportHere(t *testing.T) {
	ok, reason := networkSupport()
	t.Logf("networkSupport: %v %q", ok, reason)
	if ok != (reason == "") {
		t.Fatalf("ok %v with reason %q", ok, reason)
	}
}

func TestNetFilterModes(t *testing.T) {
	if fd, err := filterNetwork(NetworkOpen); fd != -1 || err != nil {
		t.Fatalf("open: got %d, %v; want nothing installed", fd, err)
	}
	if _, err := filterNetwork("wide"); err == nil {
		t.Fatal("an unknown mode installed a filter")
	}
	if _, err := networkProgram(); err != nil && nativeArch() != 0 {
		t.Fatal(err)
	}
}

func TestNetBPFLabels(t *testing.T) {
	var p bpfProg
	p.jump(unix.BPF_JEQ, 1, "b", "")
	p.label("a")
	p.ret(0)
	p.label("b")
	p.ret(1)
	prog, err := p.assemble()
	if err != nil || prog[0].Jt != 1 || prog[0].Jf != 0 {
		t.Fatalf("got %+v, %v", prog, err)
	}
	p.jump(unix.BPF_JEQ, 1, "a", "") // backwards: classic BPF cannot
	if _, err := p.assemble(); err == nil {
		t.Fatal("a backward jump assembled")
	}
}

func TestNetLoopbackArrives(t *testing.T) {
	cases := []struct{ name, network, listen, dial, nonblock string }{
		{"ipv4", "tcp4", "127.0.0.1", "127.0.0.1", ""},
		{"ipv4 non-blocking", "tcp4", "127.0.0.1", "127.0.0.1", "1"},
		{"ipv4 elsewhere in 127/8", "tcp4", "127.0.0.2", "127.0.0.2", ""},
		{"ipv4 unspecified", "tcp4", "127.0.0.1", "0.0.0.0", ""},
		{"ipv4-mapped ipv6", "tcp", "127.0.0.1", "::ffff:127.0.0.1", ""},
		{"ipv6", "tcp6", "::1", "::1", ""},
		{"ipv6 non-blocking", "tcp6", "::1", "::1", "1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ln := listenTCP(t, c.network, c.listen)
			dial := net.JoinHostPort(c.dial, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
			f := attempt(t, "connect", childOpts{mode: NetworkProxy, env: []string{"ADDR=" + dial, "NONBLOCK=" + c.nonblock}})
			if got := acceptByte(t, ln); got != "x" {
				t.Fatalf("got %q", got)
			}
			res := f.results(t)
			expect(t, res, "connected", "ok")
			if c.nonblock != "" {
				expect(t, res, "connect", "EINPROGRESS")
			}
			if d := f.sup.Denied(); len(d) != 0 {
				t.Errorf("loopback denied: %v", d)
			}
		})
	}
}

func TestNetOutsideRefused(t *testing.T) {
	for _, mode := range []Network{NetworkProxy, NetworkOff} {
		t.Run(string(mode), func(t *testing.T) {
			ln := listenTCP(t, "tcp4", outsideIPv4(t))
			addr := ln.Addr().(*net.TCPAddr)
			f := attempt(t, "connect", childOpts{mode: mode, env: []string{"ADDR=" + addr.String(), "REPEAT=3"}})
			res := f.results(t)
			expect(t, res, "connected", "EACCES")
			if n := othersArrived(t, ln); n != 0 {
				t.Fatalf("%d connections arrived at %s", n, addr)
			}
			want := []Denial{{Kind: "network", Host: addr.IP.String(), Port: addr.Port}}
			if got := f.sup.Denied(); !slices.Equal(got, want) {
				t.Fatalf("denied %v, want %v", got, want)
			}
		})
	}
}

func TestNetLoopbackDNSRefused(t *testing.T) {
	f := attempt(t, "connect", childOpts{mode: NetworkProxy, env: []string{"ADDR=127.0.0.53:53"}})
	expect(t, f.results(t), "connected", "EACCES")
	want := []Denial{{Kind: "network", Host: "127.0.0.53", Port: 53}}
	if got := f.sup.Denied(); !slices.Equal(got, want) {
		t.Fatalf("denied %v, want %v", got, want)
	}
}

func TestNetUDPRefused(t *testing.T) {
	for _, host := range []string{outsideIPv4(t), "127.0.0.1"} {
		t.Run(host, func(t *testing.T) {
			pc, err := net.ListenPacket("udp4", net.JoinHostPort(host, "0"))
			if err != nil {
				t.Skipf("no UDP on %s: %v", host, err)
			}
			t.Cleanup(func() { pc.Close() })
			f := attempt(t, "udp", childOpts{mode: NetworkProxy, env: []string{"ADDR=" + pc.LocalAddr().String()}})
			expect(t, f.results(t), "socket", "EACCES")
			if n := datagramsBefore(t, pc); n != 0 {
				t.Fatalf("%d datagrams arrived", n)
			}
		})
	}
}

// datagramsBefore counts the datagrams pc received before one the test
// sends itself now.
func datagramsBefore(t testing.TB, pc net.PacketConn) int {
	t.Helper()
	mine, err := net.Dial("udp", pc.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	if _, err := mine.Write([]byte("marker")); err != nil {
		t.Fatal(err)
	}
	pc.SetReadDeadline(time.Now().Add(watchdog))
	buf := make([]byte, 64)
	for others := 0; ; others++ {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			t.Fatalf("the test's own datagram did not arrive: %v", err)
		}
		if from.String() == mine.LocalAddr().String() && string(buf[:n]) == "marker" {
			return others
		}
	}
}

func TestNetRawAndOtherSocketsRefused(t *testing.T) {
	res := attempt(t, "raw", childOpts{mode: NetworkProxy}).results(t)
	for _, what := range []string{"raw", "ping", "packet", "sctp"} {
		expect(t, res, what, "EACCES")
	}
}

func TestNetFastOpenRefused(t *testing.T) {
	ln := listenTCP(t, "tcp4", outsideIPv4(t))
	f := attempt(t, "fastopen", childOpts{mode: NetworkProxy, env: []string{"ADDR=" + ln.Addr().String()}})
	expect(t, f.results(t), "sendto", "EACCES")
	if n := othersArrived(t, ln); n != 0 {
		t.Fatalf("%d connections arrived", n)
	}
}

func TestNetSecondListenerRefused(t *testing.T) {
	expect(t, attempt(t, "nested", childOpts{mode: NetworkProxy}).results(t), "nested", "EBUSY")
}

func TestNetIOUringRefused(t *testing.T) {
	expect(t, attempt(t, "iouring", childOpts{mode: NetworkProxy}).results(t), "setup", "ENOSYS")
}

// unixListener listens on path and returns the first byte of each
// connection on the channel.
func unixListener(t testing.TB, path string) <-chan string {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(watchdog))
		b := make([]byte, 1)
		io.ReadFull(c, b)
		got <- string(b)
	}()
	return got
}

func receive(t testing.TB, got <-chan string) string {
	t.Helper()
	select {
	case s := <-got:
		return s
	case <-time.After(watchdog):
		t.Fatal("nothing arrived at the unix socket")
	}
	return ""
}

func TestNetUnixConnect(t *testing.T) {
	for _, rel := range []bool{false, true} {
		t.Run(map[bool]string{false: "absolute", true: "relative"}[rel], func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "s.sock")
			got := unixListener(t, path)
			sock := path
			if rel {
				sock = "../s.sock"
			}
			sub := filepath.Join(dir, "sub")
			os.Mkdir(sub, 0o755)
			f := attempt(t, "unix", childOpts{mode: NetworkProxy, dir: sub, env: []string{"SOCK=" + sock}})
			if s := receive(t, got); s != "x" {
				t.Fatalf("got %q", s)
			}
			expect(t, f.results(t), "connect", "ok")
		})
	}
}

func TestNetUnixAbstractRefused(t *testing.T) {
	name := "@termhelper-nettest-" + t.Name()
	ln, err := net.Listen("unix", name)
	if err != nil {
		t.Skipf("no abstract unix socket here: %v", err)
	}
	t.Cleanup(func() { ln.Close() })
	f := attempt(t, "unix", childOpts{mode: NetworkProxy, env: []string{"SOCK=" + name}})
	expect(t, f.results(t), "connect", "EACCES")
	want := []Denial{{Kind: "network", Path: name}}
	if got := f.sup.Denied(); !slices.Equal(got, want) {
		t.Fatalf("denied %v, want %v", got, want)
	}
}

// refuseUnixPlaces stands places for the refused unix places while the
// test runs.
func refuseUnixPlaces(t *testing.T, places ...string) {
	old := refusedUnixPlaces
	refusedUnixPlaces = func() []string { return places }
	t.Cleanup(func() { refusedUnixPlaces = old })
}

// TestNetUnixRefusedPlaces: a socket in a refused place (here standing for
// the user's runtime folder) is refused, by its path and through a link
// elsewhere, and nothing arrives.
func TestNetUnixRefusedPlaces(t *testing.T) {
	runtimeDir := t.TempDir()
	refuseUnixPlaces(t, runtimeDir)
	path := filepath.Join(runtimeDir, "bus")
	got := unixListener(t, path)
	link := filepath.Join(t.TempDir(), "bus")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	for _, sock := range []string{path, link} {
		f := attempt(t, "unix", childOpts{mode: NetworkProxy, env: []string{"SOCK=" + sock}})
		expect(t, f.results(t), "connect", "EACCES")
		want := []Denial{{Kind: "network", Path: path}}
		if d := f.sup.Denied(); !slices.Equal(d, want) {
			t.Fatalf("denied %v, want %v", d, want)
		}
	}
	select {
	case <-got:
		t.Fatal("a connection arrived at a refused socket")
	default:
	}
}

func TestNetUnixRefusedPlacesByDefault(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/4242")
	t.Setenv("SSH_AUTH_SOCK", "/tmp/ssh-XYZ/agent.1")
	t.Setenv("DOCKER_HOST", "unix:///home/u/.docker/run/docker.sock")
	places := defaultRefusedUnix()
	for _, want := range []string{"/run/user/4242", "/tmp/ssh-XYZ/agent.1", "/home/u/.docker/run/docker.sock", "/tmp/.X11-unix", "/run/dbus", "/run/nscd", "/run/systemd/resolve", "/run/docker.sock"} {
		if !slices.Contains(places, want) {
			t.Errorf("%s is not refused: %v", want, places)
		}
	}
}

// TestNetUnixSeenFromTheCommandsRoot: a socket in a folder the command's
// mount namespace hides stays out of reach, by its path and through an
// absolute symbolic link, though the helper itself sees it.
func TestNetUnixSeenFromTheCommandsRoot(t *testing.T) {
	dir := t.TempDir()
	hidden := filepath.Join(dir, "hidden")
	os.Mkdir(hidden, 0o755)
	path := filepath.Join(hidden, "s.sock")
	unixListener(t, path)
	link := filepath.Join(dir, "link.sock")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	for _, sock := range []string{path, link} {
		f := attempt(t, "unix", childOpts{mode: NetworkProxy, hide: hidden, env: []string{"SOCK=" + sock}})
		expect(t, f.results(t), "connect", "ENOENT")
	}
}

func TestNetRace(t *testing.T) {
	if testing.Short() {
		t.Skip("many rounds")
	}
	loop := listenTCP(t, "tcp4", "127.0.0.1")
	out := listenTCP(t, "tcp4", outsideIPv4(t))
	go acceptAll(loop)
	f := attempt(t, "race", childOpts{mode: NetworkProxy, env: []string{
		"LOOP=" + loop.Addr().String(), "OUT=" + out.Addr().String(), "MIN=1000", "MAX=200000"}})
	res := f.results(t)
	t.Logf("outcomes: %v", res)
	if res["ok"] == "" || res["EACCES"] == "" {
		t.Fatalf("the race was not run both ways: %v", res)
	}
	if n := othersArrived(t, out); n != 0 {
		t.Fatalf("%d connections arrived outside", n)
	}
}

// acceptAll accepts and closes connections until ln is closed.
func acceptAll(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.Close()
	}
}

func TestNetAfterCloseConnectFails(t *testing.T) {
	ln := listenTCP(t, "tcp4", "127.0.0.1")
	f := attempt(t, "wait", childOpts{mode: NetworkProxy, stdin: true, env: []string{"ADDR=" + ln.Addr().String()}})
	f.sup.Close()
	io.WriteString(f.stdin, "go\n")
	expect(t, f.results(t), "connected", "ENOSYS")
	if n := othersArrived(t, ln); n != 0 {
		t.Fatalf("%d connections arrived after the helper went away", n)
	}
}

// fullListener listens on loopback with a queue that is full after one
// connection and never accepts: a blocking connect to it hangs.
func fullListener(t testing.TB) string {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := unix.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*unix.SockaddrInet4).Port))
}

// connecting says whether the helper is making a connect now.
func (s *netSupervisor) connecting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.inside) > 0
}

func TestNetCloseCutsAHangingConnect(t *testing.T) {
	addr := fullListener(t)
	f := attempt(t, "connect", childOpts{mode: NetworkProxy, env: []string{"ADDR=" + addr, "REPEAT=3"}})
	deadline := time.Now().Add(watchdog)
	for !f.sup.connecting() {
		if time.Now().After(deadline) {
			t.Fatal("no connect ever hung")
		}
		time.Sleep(10 * time.Millisecond)
	}
	closed := make(chan struct{})
	go func() { f.sup.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(watchdog):
		t.Fatal("Close waits for a hanging connect")
	}
	f.cmd.Process.Kill()
	for deadline := time.Now().Add(watchdog); supervisorGoroutines() > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("goroutines of a closed supervisor remain")
		}
	}
}

func supervisorGoroutines() int {
	buf := make([]byte, 1<<20)
	return strings.Count(string(buf[:runtime.Stack(buf, true)]), "(*netSupervisor)")
}

func TestNetSupervisorEndsWithTheCommand(t *testing.T) {
	f := attempt(t, "iouring", childOpts{mode: NetworkProxy})
	f.results(t)
	select {
	case <-f.sup.done:
	case <-time.After(watchdog):
		t.Fatal("the supervisor still serves a filter no process uses")
	}
}

func TestNetPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	loop := listenTCP(t, "tcp4", "127.0.0.1")
	out := listenTCP(t, "tcp4", outsideIPv4(t))
	script := `
import os, socket
def attempt(what, family, kind, addr):
    try:
        s = socket.socket(family, kind)
        s.settimeout(30)
        s.connect(addr)
        s.sendall(b"x")
        print(what + "=ok")
    except OSError as e:
        print(what + "=" + str(e.errno))
host, port = os.environ["OUT"].rsplit(":", 1)
attempt("outside", socket.AF_INET, socket.SOCK_STREAM, (host, int(port)))
attempt("udp", socket.AF_INET, socket.SOCK_DGRAM, (host, int(port)))
host, port = os.environ["LOOP"].rsplit(":", 1)
attempt("loopback", socket.AF_INET, socket.SOCK_STREAM, (host, int(port)))
`
	f := startFiltered(t, childOpts{mode: NetworkProxy, env: []string{"LOOP=" + loop.Addr().String(), "OUT=" + out.Addr().String()}}, py, "-c", script)
	if got := acceptByte(t, loop); got != "x" {
		t.Fatalf("got %q", got)
	}
	res := f.results(t)
	expect(t, res, "outside", "13")
	expect(t, res, "udp", "13")
	expect(t, res, "loopback", "ok")
	if n := othersArrived(t, out); n != 0 {
		t.Fatalf("%d connections arrived outside", n)
	}
}

// pair makes a listener socket pair for the test; the helper's end has a
// watchdog.
func pair(t *testing.T) (helperEnd, childEnd *os.File) {
	helperEnd, childEnd, err := listenerPair()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { helperEnd.Close(); childEnd.Close() })
	helperEnd.SetReadDeadline(time.Now().Add(watchdog))
	return helperEnd, childEnd
}

func TestNetReceiveListenerFromATrampolineThatFailed(t *testing.T) {
	helperEnd, childEnd := pair(t)
	childEnd.Close() // the trampoline ended without sending
	if _, _, err := receiveListener(helperEnd); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("got %v, want an error at once", err)
	}
}

func TestNetReceiveListenerRefusesAnotherFile(t *testing.T) {
	helperEnd, childEnd := pair(t)
	null, _ := os.Open(os.DevNull)
	defer null.Close()
	if err := sendListener(childEnd, int(null.Fd())); err != nil {
		t.Fatal(err)
	}
	if l, _, err := receiveListener(helperEnd); err == nil {
		l.Close()
		t.Fatal("a file that is no listener was taken for one")
	}
}

// TestNetUnixSSHSocketsInTheTemporaryFolderRefused: an agent OpenSSH
// started for another login (ssh-XXXX/agent.N) and a connection sharing
// socket in the temporary folder are out of reach, though the helper's
// SSH_AUTH_SOCK names neither; other sockets there stay reachable.
func TestNetUnixSSHSocketsInTheTemporaryFolderRefused(t *testing.T) {
	tmp := t.TempDir()
	old := sshTemps
	sshTemps = func() []string { return []string{tmp} }
	t.Cleanup(func() { sshTemps = old })
	for _, rel := range []string{"ssh-Xq3ZkP1aBc/agent.4242", "ssh-git@example.com:22", "ssh_mux_example.com_22_git"} {
		path := filepath.Join(tmp, rel)
		os.MkdirAll(filepath.Dir(path), 0o700)
		got := unixListener(t, path)
		f := attempt(t, "unix", childOpts{mode: NetworkProxy, env: []string{"SOCK=" + path}})
		expect(t, f.results(t), "connect", "EACCES")
		select {
		case <-got:
			t.Fatalf("a connection arrived at %s", rel)
		default:
		}
	}
	path := filepath.Join(tmp, "app.sock")
	got := unixListener(t, path)
	f := attempt(t, "unix", childOpts{mode: NetworkProxy, env: []string{"SOCK=" + path}})
	if s := receive(t, got); s != "x" {
		t.Fatalf("got %q", s)
	}
	expect(t, f.results(t), "connect", "ok")
}
