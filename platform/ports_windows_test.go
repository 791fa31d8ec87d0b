//go:build windows

package platform

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"
	"unicode/utf16"
)

// listenScript listens on a loopback port of the system's choosing, says
// which, and stays.
const listenScript = `$l = [Net.Sockets.TcpListener]::new([Net.IPAddress]::Loopback, 0); $l.Start(); ` +
	`Write-Output ("listening on {0}." -f $l.LocalEndpoint.Port); Start-Sleep 300`

var listeningOn = regexp.MustCompile(`listening on (\d+)\.`)

// encoded is script as -EncodedCommand takes it, free of quoting rules.
func encoded(script string) string {
	var b []byte
	for _, u := range utf16.Encode([]rune(script)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return base64.StdEncoding.EncodeToString(b)
}

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

func TestListeningPortsOfTheCommand(t *testing.T) {
	waitListening(t, start(t, shellSpec("", listenScript, false)))
}

func TestListeningPortsOfAGrandchild(t *testing.T) {
	waitListening(t, start(t, shellSpec("", "powershell.exe -NoProfile -EncodedCommand "+encoded(listenScript), false)))
}

func TestListeningPortsIsEmptyForACommandThatDoesNotListen(t *testing.T) {
	s := start(t, helperSpec("sleep", false))
	s.waitOutput(t, regexp.MustCompile(`ready`))
	if ports := s.p.ListeningPorts(); ports != nil {
		t.Fatalf("a sleeping command listens on %v", ports)
	}
}
