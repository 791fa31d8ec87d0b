package platform

import (
	"net"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"
)

// portWatchdog bounds every wait for a server: reaching it is a failure.
const portWatchdog = 60 * time.Second

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found")
	}
}

// freePort returns a loopback port nothing listens on right now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitPorts polls the command's ports until ok holds.
func waitPorts(t *testing.T, p *Process, what string, ok func([]int) bool) []int {
	t.Helper()
	deadline := time.Now().Add(portWatchdog)
	for {
		ports := p.ListeningPorts()
		if ok(ports) {
			return ports
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: ports are still %v", what, ports)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func oneOf(want int) func([]int) bool {
	return func(ports []int) bool { return slices.Equal(ports, []int{want}) }
}

func TestListeningPortsSeesAServerOnPortZero(t *testing.T) {
	needPython(t)
	p := startOn(t, `exec python3 -m http.server 0 --bind 127.0.0.1`)
	ports := waitPorts(t, p, "a server on port 0", func(ports []int) bool { return len(ports) == 1 })
	client := http.Client{Timeout: portWatchdog}
	resp, err := client.Get("http://127.0.0.1:" + strconv.Itoa(ports[0]) + "/")
	if err != nil {
		t.Fatalf("GET on the port found, %d: %v", ports[0], err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET on port %d: %s", ports[0], resp.Status)
	}
}

func TestListeningPortsSeesAChosenPortAndItsEnd(t *testing.T) {
	needPython(t)
	port := freePort(t)
	p := startOn(t, `exec python3 -m http.server `+strconv.Itoa(port)+` --bind 127.0.0.1`)
	waitPorts(t, p, "a server on a chosen port", oneOf(port))
	if !PortAccepts(port, portWatchdog) {
		t.Fatalf("port %d is listed but does not accept", port)
	}
	p.Kill(SIGKILL, 0)
	waitPorts(t, p, "a killed server", func(ports []int) bool { return ports == nil })
	if PortAccepts(port, portWatchdog) {
		t.Fatalf("port %d still accepts after its server was killed", port)
	}
}

func TestListeningPortsSeesAGrandchild(t *testing.T) {
	needPython(t)
	port := freePort(t)
	p := startOn(t, `sh -c 'python3 -m http.server `+strconv.Itoa(port)+` --bind 127.0.0.1 & wait'`)
	waitPorts(t, p, "a server a shell started", oneOf(port))
}

func TestListeningPortsIsEmptyForACommandThatDoesNotListen(t *testing.T) {
	// The command holds a socket, a connection to a listener of the test's
	// own, which must not be counted as the command's.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	p := startOn(t, `exec 3<>/dev/tcp/127.0.0.1/`+port+`; exec sleep 300`)
	l.(*net.TCPListener).SetDeadline(time.Now().Add(portWatchdog))
	c, err := l.Accept()
	if err != nil {
		t.Fatal("the command never connected:", err)
	}
	defer c.Close()
	if ports := p.ListeningPorts(); ports != nil {
		t.Fatalf("a command that only connects listens on %v", ports)
	}
}
