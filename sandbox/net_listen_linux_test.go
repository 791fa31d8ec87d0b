package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// elsewhere is another network namespace joined to this one by a veth
// pair: a machine elsewhere, whose connections arrive on an interface
// that is not loopback. here is this side's address as it sees it.
type elsewhere struct {
	ns, here string
}

// newElsewhere makes one, for root with iproute2; others skip.
func newElsewhere(t *testing.T) elsewhere {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a second network namespace with a veth pair needs root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no ip command (iproute2) to make a second network namespace")
	}
	pid := os.Getpid()
	e := elsewhere{ns: fmt.Sprintf("thsbx-%d", pid)}
	a, b := fmt.Sprintf("thsa%d", pid), fmt.Sprintf("thsb%d", pid)
	net3 := fmt.Sprintf("10.213.%d.%d", pid>>6&255, pid&63*4)
	e.here = net3[:strings.LastIndexByte(net3, '.')+1] + strconv.Itoa(pid&63*4+1)
	peer := net3[:strings.LastIndexByte(net3, '.')+1] + strconv.Itoa(pid&63*4+2)
	if out, err := exec.Command("ip", "netns", "add", e.ns).CombinedOutput(); err != nil {
		t.Skipf("cannot make a network namespace here: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("ip", "netns", "del", e.ns).Run() })
	for _, args := range [][]string{
		{"link", "add", a, "type", "veth", "peer", "name", b, "netns", e.ns},
		{"addr", "add", e.here + "/30", "dev", a},
		{"link", "set", a, "up"},
		{"-n", e.ns, "addr", "add", peer + "/30", "dev", b},
		{"-n", e.ns, "link", "set", b, "up"},
	} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Skipf("ip %v: %v: %s", args, err, out)
		}
	}
	return e
}

// connect tries addr from the other namespace (the test binary's connect
// attempt) and returns its results.
func (e elsewhere) connect(t *testing.T, addr string) string {
	t.Helper()
	cmd := exec.Command("ip", "netns", "exec", e.ns, os.Args[0])
	cmd.Env = append(os.Environ(), netAttemptEnv+"=connect", "ADDR="+addr)
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(watchdog):
		cmd.Process.Kill()
		<-done
		t.Fatal("the connect from elsewhere did not end")
	}
	if err != nil {
		t.Fatalf("connect from elsewhere: %v: %s", err, out)
	}
	return string(out)
}

// A confined command's server answers this machine over loopback, and
// nothing else: a listener on every address, on an address that is not
// loopback, or one that listen placed itself, takes no connection from
// another machine, where it would hand whatever it holds to any peer that
// connects in.
func TestNetListenersServeThisMachineOnly(t *testing.T) {
	requireNetworkSupport(t)
	far := newElsewhere(t)
	cases := []struct {
		name, addr, nobind string
		local              []string // where this machine still reaches it
	}{
		{"ipv4 every address", "0.0.0.0:0", "", []string{"127.0.0.1"}},
		{"ipv6 every address, dual stack", "[::]:0", "", []string{"127.0.0.1", "::1"}},
		{"the interface's own address", far.here + ":0", "", nil},
		{"no bind: listen picks", "0.0.0.0:0", "1", []string{"127.0.0.1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := attempt(t, "listen", childOpts{mode: NetworkProxy, pipe: true,
				env: []string{"ADDR=" + c.addr, "NOBIND=" + c.nobind}})
			port := readPort(t, f)
			got := far.connect(t, net.JoinHostPort(far.here, port))
			if strings.Contains(got, "connected=ok") {
				t.Errorf("a connection from another machine reached the command's server: %q", got)
			}
			for _, host := range c.local {
				local := net.JoinHostPort(host, port)
				if b := dialByte(t, local); b != "x" {
					t.Errorf("this machine's connection to %s got %q", local, b)
				}
			}
		})
	}
}

// readPort reads the listen attempt's lines up to its port.
func readPort(t *testing.T, f *filtered) string {
	t.Helper()
	lines := make(chan string)
	go func() {
		for {
			line, err := f.stdout.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- strings.TrimSpace(line)
		}
	}()
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("the listener ended without a port; stderr %q", f.errOut.String())
			}
			if p, found := strings.CutPrefix(line, "port="); found {
				go func() {
					for range lines {
					}
				}()
				return p
			}
			if line != "listen=ok" {
				t.Fatalf("listen: %s", line)
			}
		case <-time.After(watchdog):
			t.Fatal("no port from the listener")
		}
	}
}

// dialByte connects to addr and returns the first byte it is sent.
func dialByte(t *testing.T, addr string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, watchdog)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(watchdog))
	b := make([]byte, 1)
	if _, err := c.Read(b); err != nil {
		t.Fatalf("read from %s: %v", addr, err)
	}
	return string(b)
}
