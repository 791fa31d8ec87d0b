//go:build linux

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// farAddr is the address that is not loopback in the tests' network
// namespace: in a documentation range (TEST-NET-2), on the namespace's
// loopback device, so that nothing sent to it can leave the namespace. The
// sandbox judges the address, not the device.
const farAddr = "198.51.100.1"

// netns makes a network namespace of the test's own with loopback and
// farAddr, and returns the argv prefix that runs a program inside it. The
// namespace has no route out: a test in it sends nothing off the machine.
func netns(t *testing.T) []string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("making a network namespace needs root here (ip netns)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no ip command (iproute2) to make a network namespace")
	}
	name := "th-e2e-" + marker()
	ip := func(args ...string) {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v %s", args, err, out)
		}
	}
	ip("netns", "add", name)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", name).Run() })
	ip("-n", name, "link", "set", "lo", "up")
	ip("-n", name, "addr", "add", farAddr+"/32", "dev", "lo")
	return []string{"ip", "netns", "exec", name}
}

// inside runs the helper in the namespace that prefix enters.
func inside(prefix []string) opt {
	return func(c *exec.Cmd) {
		path, _ := exec.LookPath(prefix[0])
		c.Args = append(slices.Clone(prefix), c.Args...)
		c.Args[len(prefix)] = c.Path
		c.Path = path
	}
}

// listenerScript listens on TCP at farAddr and at loopback and on UDP at
// farAddr, prints the three ports, then one line per connection or
// datagram: its kind and the first bytes it carried.
const listenerScript = `
import socket, sys, threading
def tcp(host, kind):
    s = socket.socket(); s.bind((host, 0)); s.listen(16)
    def serve():
        while True:
            c, _ = s.accept()
            data = c.recv(100).decode(errors="replace").strip()
            print(kind, data, flush=True); c.close()
    threading.Thread(target=serve, daemon=True).start()
    return s.getsockname()[1]
far = tcp(sys.argv[1], "tcp-far")
lo = tcp("127.0.0.1", "tcp-lo")
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind((sys.argv[1], 0))
print("ports", far, lo, u.getsockname()[1], flush=True)
while True:
    data, _ = u.recvfrom(100)
    print("udp", data.decode(errors="replace").strip(), flush=True)
`

// listener is listenerScript running in a namespace: its ports and what
// arrived, in order.
type listener struct {
	far, lo, udp int
	lines        chan string
}

func startListener(t *testing.T, prefix []string) *listener {
	t.Helper()
	cmd := exec.Command(prefix[0], append(slices.Clone(prefix[1:]), python, "-c", listenerScript, farAddr)...)
	out, err := cmd.StdoutPipe()
	must(t, err)
	cmd.Stderr = os.Stderr
	must(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	l := &listener{lines: make(chan string, 100)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			l.lines <- sc.Text()
		}
		close(l.lines)
	}()
	if _, err := fmt.Sscanf(l.next(t), "ports %d %d %d", &l.far, &l.lo, &l.udp); err != nil {
		t.Fatalf("the listener's ports: %v", err)
	}
	return l
}

func (l *listener) next(t *testing.T) string {
	t.Helper()
	select {
	case line, ok := <-l.lines:
		if !ok {
			t.Fatal("the listener ended")
		}
		return line
	case <-time.After(watchdog):
		t.Fatal("nothing arrived at the listener")
	}
	return ""
}

// TestSandboxNetworkLoopbackOnly: a confined command reaches loopback;
// a TCP connection to an address that is not loopback fails and nothing
// arrives, nor does a UDP datagram; the answer names the refused address.
// What arrived is checked against a control sent from outside the
// sandbox afterwards: the first thing to arrive must be it.
func TestSandboxNetworkLoopbackOnly(t *testing.T) {
	ns := netns(t)
	l := startListener(t, ns)
	s := startConfined(t, "ndjson", inside(ns))
	if s.status.Network != "proxy" {
		t.Skipf("the network is not governed here: %v", deref(s.status.Reason))
	}
	send := func(kind, host string, port int, data string) string {
		if kind == "udp" {
			return fmt.Sprintf(`%s -c "import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b'%s', ('%s', %d))"`, python, data, host, port)
		}
		return fmt.Sprintf(`%s -c "import socket; s=socket.create_connection(('%s', %d), 5); s.sendall(b'%s')"`, python, host, port, data)
	}
	r := s.c.exec(map[string]any{"command": send("tcp", "127.0.0.1", l.lo, "confined")})
	if r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("loopback from the sandbox: %+v", r)
	}
	if got := l.next(t); got != "tcp-lo confined" {
		t.Fatalf("loopback: %q arrived", got)
	}
	r = s.c.exec(map[string]any{"command": send("tcp", farAddr, l.far, "escaped")})
	if r.ExitCode == nil || *r.ExitCode == 0 {
		t.Fatalf("a direct connection to %s succeeded: %q", farAddr, r.Output)
	}
	if want := fmt.Sprintf("network %s:%d", farAddr, l.far); !slices.Contains(r.denied(), want) {
		t.Errorf("denied %v, want %q", r.denied(), want)
	}
	r = s.c.exec(map[string]any{"command": send("udp", farAddr, l.udp, "escaped")})
	if r.ExitCode == nil || *r.ExitCode == 0 {
		t.Fatalf("a datagram to %s was sent: %q", farAddr, r.Output)
	}
	control := exec.Command(ns[0], append(slices.Clone(ns[1:]), "sh", "-c",
		send("udp", farAddr, l.udp, "control")+" && "+send("tcp", farAddr, l.far, "control"))...)
	if out, err := control.CombinedOutput(); err != nil {
		t.Fatalf("the control: %v %s", err, out)
	}
	for _, want := range []string{"udp control", "tcp-far control"} {
		if got := l.next(t); got != want {
			t.Fatalf("%q arrived before the control %q", got, want)
		}
	}
}

// TestSandboxServerReachable: a server a confined background command
// starts on loopback is reached by another confined session and by the
// host.
func TestSandboxServerReachable(t *testing.T) {
	s := startConfined(t, "ndjson")
	must(t, os.WriteFile(filepath.Join(s.root, "page.txt"), []byte("served-by-the-sandbox\n"), 0o644))
	port := freePort(t)
	r := s.c.exec(map[string]any{"command": fmt.Sprintf("%s -m http.server %d --bind 127.0.0.1", python, port),
		"background": true, "readyPort": port})
	if r.Ready == nil || !*r.Ready {
		t.Fatalf("the server: %+v", r)
	}
	t.Cleanup(func() { s.c.call("session/kill", map[string]any{"sessionId": r.SessionID}) })
	url := fmt.Sprintf("http://127.0.0.1:%d/page.txt", port)
	r2 := s.c.exec(map[string]any{"command": "curl -sS " + url})
	if !strings.Contains(r2.Output, "served-by-the-sandbox") {
		t.Fatalf("from another session: %q", r2.Output)
	}
	resp, err := http.Get(url)
	must(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "served-by-the-sandbox") {
		t.Fatalf("from the host: %q", body)
	}
}

// TestSandboxNpmThroughTheProxy: npm reaches its registry, on the default
// allow list, through the proxy.
func TestSandboxNpmThroughTheProxy(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("no npm here")
	}
	s := startConfined(t, "ndjson")
	if s.status.Network != "proxy" {
		t.Skipf("the network is not governed here: %v", deref(s.status.Reason))
	}
	r := s.c.exec(map[string]any{"command": "npm view left-pad version", "timeoutMs": 120000})
	if r.ExitCode == nil || *r.ExitCode != 0 || !strings.Contains(r.Output, "1.3.0") {
		t.Fatalf("npm view through the proxy: exit %v %q denied %v", r.ExitCode, r.Output, r.denied())
	}
}

// networkQuestions answers approval requests of kind network with answer
// and counts them by host.
type networkQuestions struct {
	mu     sync.Mutex
	hosts  []string
	answer string
}

func (q *networkQuestions) on(t *testing.T) func(m message) any {
	return func(m message) any {
		var p struct {
			Kind, Host, Command string
			Port                int
		}
		json.Unmarshal(m.Params, &p)
		if p.Kind != "network" {
			t.Errorf("an approval request of kind %q: %s", p.Kind, m.Params)
			return map[string]string{"decision": "deny"}
		}
		q.mu.Lock()
		q.hosts = append(q.hosts, p.Host+":"+strconv.Itoa(p.Port)+" "+p.Command)
		q.mu.Unlock()
		return map[string]string{"decision": q.answer}
	}
}

func (q *networkQuestions) asked() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.hosts)
}

// TestSandboxNetworkApproval: a host not on the allow list is asked about
// once, with the command; a deny is named in the answer; an always is
// remembered by the next helper for the root, which does not ask. It runs
// in a namespace with no route out: an allowed host fails to resolve
// there, and nothing leaves the machine.
func TestSandboxNetworkApproval(t *testing.T) {
	ns := netns(t)
	s := startConfined(t, "ndjson", inside(ns))
	if s.status.Network != "proxy" {
		t.Skipf("the network is not governed here: %v", deref(s.status.Reason))
	}
	q := &networkQuestions{answer: "deny"}
	s.c.call("initialize", map[string]any{"capabilities": map[string]any{"approval": true}})
	s.c.onRequest = q.on(t)
	r := s.c.exec(map[string]any{"command": "curl -sS https://example.com"})
	if got := q.asked(); len(got) != 1 || got[0] != "example.com:443 curl -sS https://example.com" {
		t.Fatalf("asked %v, want example.com once", got)
	}
	if !slices.Contains(r.denied(), "network example.com:443") {
		t.Fatalf("denied %v, want example.com named (output %q)", r.denied(), r.Output)
	}

	const host = "always.example"
	q.answer = "always"
	s.c.exec(map[string]any{"command": "curl -sS https://" + host})
	if got := q.asked(); len(got) != 2 || !strings.HasPrefix(got[1], host+":443 ") {
		t.Fatalf("asked %v, want %s", got, host)
	}
	s.c.stop()
	c2 := start(t, "ndjson", s.root, nil, withEnv("HOME="+s.home), inside(ns)) // the same config folder
	q2 := &networkQuestions{answer: "deny"}
	c2.call("initialize", map[string]any{"capabilities": map[string]any{"approval": true}})
	c2.onRequest = q2.on(t)
	r = c2.exec(map[string]any{"command": "curl -sS https://" + host})
	if got := q2.asked(); len(got) != 0 {
		t.Fatalf("the next helper asked again: %v", got)
	}
	if slices.Contains(r.denied(), "network "+host+":443") {
		t.Fatalf("the remembered host was refused: %v", r.denied())
	}
}
