//go:build windows

package platform

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"
)

var listeningOn = regexp.MustCompile(`listening on (\d+)\.`)

func waitListening(t *testing.T, s *started) {
	t.Helper()
	port, _ := strconv.Atoi(s.waitOutput(t, listeningOn)[1])
	deadline := time.Now().Add(winWatchdog)
	for ports := s.p.ListeningPorts(); !slices.Equal(ports, []int{port}); ports = s.p.ListeningPorts() {
		if time.Now().After(deadline) {
			t.Fatalf("ports %v, want [%d]", ports, port)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !PortAccepts(port, winWatchdog) {
		t.Fatalf("port %d is listed but does not accept", port)
	}
}

// The listener is this test binary (its "listen" mode), on a loopback
// port of the system's choosing.
func TestListeningPortsOfTheCommand(t *testing.T) {
	waitListening(t, start(t, helperSpec("listen", false)))
}

func TestListeningPortsOfAGrandchild(t *testing.T) {
	exe, _ := os.Executable()
	spec := shellSpec("cmd", `"`+exe+`" "-test.run=^TestHelperProcess$"`, false)
	spec.Env = append(spec.Env, helperVar+"=listen")
	waitListening(t, start(t, spec))
}

func TestListeningPortsIsEmptyForACommandThatDoesNotListen(t *testing.T) {
	s := start(t, helperSpec("sleep", false))
	s.waitOutput(t, regexp.MustCompile(`ready`))
	if ports := s.p.ListeningPorts(); ports != nil {
		t.Fatalf("a sleeping command listens on %v", ports)
	}
}
