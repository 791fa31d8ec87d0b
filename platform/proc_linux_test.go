package platform

import (
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// startOn starts script on a terminal and drains its output; the process
// tree is ended when the test ends.
func startOn(t *testing.T, script string) *Process {
	t.Helper()
	p, err := Start(Spec{Argv: ShellArgv("/bin/bash", script), Dir: t.TempDir(), Env: os.Environ(), PTY: true, Tag: t.Name()})
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, p.Output)
	t.Cleanup(func() {
		p.Kill(SIGKILL, 0)
		p.Wait()
		p.Close()
	})
	return p
}

// eventually polls the input state until want holds; the watchdog only
// guards against a hang.
func eventually(t *testing.T, p *Process, what string, want func(InputState) bool) InputState {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := p.InputState()
		if want(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: last state %+v", what, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestInputStateSeesABlockedRead(t *testing.T) {
	p := startOn(t, `read -p "name: " x`)
	st := eventually(t, p, "a read of the terminal", func(s InputState) bool { return s.Waiting })
	if !st.Known || st.Secret {
		t.Fatalf("a plain read: %+v", st)
	}
}

func TestInputStateSeesASecretRead(t *testing.T) {
	p := startOn(t, `read -s -p "Password: " x`)
	eventually(t, p, "a password read", func(s InputState) bool { return s.Waiting && s.Secret })
}

func TestInputStateNeverCallsSleepWaiting(t *testing.T) {
	p := startOn(t, `sleep 30`)
	for range 20 {
		if st := p.InputState(); st.Waiting || !st.Known {
			t.Fatalf("sleep reported as %+v", st)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func TestKillTreeReachesEscapedProcesses(t *testing.T) {
	p := startOn(t, `setsid sleep 3001 & (sleep 3002 &) ; sleep 3003`)
	// The three sleeps, once each has started: the setsid'd one, the
	// orphaned one, and bash itself once it execs the last.
	var sleeps []int
	waitFor(t, "the three sleeps to start", func() bool {
		sleeps = sleeps[:0]
		for _, m := range treeMembers(p.Pid, t.Name()) {
			if b, err := os.ReadFile("/proc/" + itoa(m) + "/cmdline"); err == nil && strings.HasPrefix(string(b), "sleep\x00300") {
				sleeps = append(sleeps, m)
			}
		}
		return len(sleeps) == 3
	})
	p.Kill(SIGTERM, time.Second)
	// Signalled, each ends as soon as the scheduler runs it; one that was
	// not reached would go on sleeping.
	for _, m := range sleeps {
		waitGone(t, m)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestParseStatWithHostileName(t *testing.T) {
	line := "42 (a) b (c) S 1 42 42 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 777 0 0"
	st, ok := parseStat(42, []byte(line))
	if !ok || st.ppid != 1 || st.pgrp != 42 || st.session != 42 || st.state != 'S' || st.start != 777 {
		t.Fatalf("parseStat = %+v, %v", st, ok)
	}
}

// A password read from /dev/tty, as getpass, ssh and psql do, is a read of
// the same terminal though the path differs.
func TestInputStateSeesASecretReadOfDevTTY(t *testing.T) {
	p := startOn(t, `exec 3</dev/tty; read -s -u 3 -p "DB password: " x`)
	eventually(t, p, "a password read of /dev/tty", func(s InputState) bool { return s.Waiting && s.Secret })
}

func TestEncodeDevIsTheKernelsTTYNumber(t *testing.T) {
	for _, c := range []struct {
		major, minor uint32
		want         uint32
	}{{136, 3, 136<<8 | 3}, {136, 300, 136<<8 | 300&0xff | (300&^0xff)<<12}, {4, 1, 4<<8 | 1}} {
		if got := encodeDev(unix.Mkdev(c.major, c.minor)); got != c.want {
			t.Errorf("encodeDev(%d, %d) = %#x, want %#x", c.major, c.minor, got, c.want)
		}
	}
}

// A prompt the helper has not read yet is not waiting: the answer would
// come before the prompt is seen.
func TestInputStateWaitsForTheOutputToBeRead(t *testing.T) {
	p, err := Start(Spec{Argv: ShellArgv("/bin/bash", `printf 'name: '; read x`), Dir: t.TempDir(), Env: os.Environ(), PTY: true, Tag: t.Name()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Kill(SIGKILL, 0)
		p.Wait()
		p.Close()
	})
	v, ok := p.terminalView()
	if !ok {
		t.Fatal("no view of the terminal")
	}
	deadline := time.Now().Add(20 * time.Second)
	for blockedOn(p.Pid, v.term) != blockedRead {
		if time.Now().After(deadline) {
			t.Fatal("the read never blocked")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if st := p.InputState(); st.Waiting {
		t.Fatalf("waiting with the prompt still unread: %+v", st)
	}
	buf := make([]byte, 64)
	p.Output.(*os.File).SetReadDeadline(time.Now().Add(20 * time.Second)) // a watchdog
	if n, err := p.Output.Read(buf); err != nil || !strings.Contains(string(buf[:n]), "name:") {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	eventually(t, p, "waiting once the prompt is read", func(s InputState) bool { return s.Waiting })
}

// startUnread starts script on a terminal whose output nothing reads,
// and returns once some of it waits there; the process tree is ended
// when the test ends.
func startUnread(t *testing.T, script string) *Process {
	t.Helper()
	p, err := Start(Spec{Argv: ShellArgv("/bin/bash", script), Dir: t.TempDir(), Env: os.Environ(), PTY: true, Tag: t.Name()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Kill(SIGKILL, 0)
		p.Wait()
		p.Close()
	})
	deadline := time.Now().Add(20 * time.Second)
	for !p.outputPending() {
		if time.Now().After(deadline) {
			t.Fatal("no output within the watchdog")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return p
}

// Unread output does not hide the terminal's mode: a key listener that
// has just logged a line is still reading keys in raw mode.
func TestInputStateKeepsTheModeWithOutputUnread(t *testing.T) {
	// Once the output is there, stty has run before it.
	p := startUnread(t, `stty raw -echo; printf 'GET / (200)\r\n'; sleep 30`)
	if st := p.InputState(); !st.Known || !st.Raw || st.Waiting || !st.Unread {
		t.Fatalf("with output unread: %+v", st)
	}
}

// Output written before StopReading is not lost with it: a read past
// the deadline returns without reading, and ReadLeft takes what the
// terminal holds, then nothing.
func TestReadLeftTakesWhatStopReadingLeft(t *testing.T) {
	p := startUnread(t, `printf 'left\n'; exec sleep 30`)
	p.StopReading()
	buf := make([]byte, 64)
	if n, err := p.Output.Read(buf); n != 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a read after StopReading: %d %q %v", n, buf[:n], err)
	}
	if n := p.ReadLeft(p.Output, buf); string(buf[:n]) != "left\r\n" {
		t.Fatalf("ReadLeft took %q", buf[:n])
	}
	if n := p.ReadLeft(p.Output, buf); n != 0 {
		t.Fatalf("ReadLeft took %q once nothing was left", buf[:n])
	}
	if n := p.ReadLeft(os.Stdin, buf); n != 0 {
		t.Fatalf("ReadLeft read %q from a file not the command's", buf[:n])
	}
}

// Terminals are opened ahead (takePTY), yet each command has one of its
// own: commands started at once name different terminals, and one that
// a command left raw is not the next command's.
func TestEveryCommandHasATerminalOfItsOwn(t *testing.T) {
	outputOf := func(script string) string {
		p, err := Start(Spec{Argv: ShellArgv("/bin/sh", script), Dir: t.TempDir(), Env: os.Environ(), PTY: true, Tag: t.Name()})
		if err != nil {
			t.Error(err)
			return ""
		}
		defer p.Close()
		out := make(chan []byte, 1)
		go func() { b, _ := io.ReadAll(p.Output); out <- b }()
		select {
		case b := <-out:
			p.Wait()
			return strings.TrimSpace(string(b))
		case <-time.After(20 * time.Second):
			p.Kill(SIGKILL, 0)
			p.Wait()
			t.Error("no end of output")
			return ""
		}
	}
	var wg sync.WaitGroup
	names := make([]string, 8)
	for i := range names {
		wg.Go(func() { names[i] = outputOf("tty; sleep 0.2") })
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, n := range names {
		if !strings.HasPrefix(n, "/dev/pts/") || seen[n] {
			t.Fatalf("commands started at once do not each have a terminal: %q", names)
		}
		seen[n] = true
	}
	for range 3 {
		outputOf("stty raw -echo; tty")
		if mode := outputOf("stty -a"); !strings.Contains(mode, " icanon") || !strings.Contains(mode, " echo ") {
			t.Fatalf("a command's terminal is not fresh after one was left raw: %q", mode)
		}
	}
}

// TestNoCommandInheritsATerminalsMaster: terminals are opened beside
// commands being started; the master side of none may reach a command,
// which could then read another command's output or type into it.
func TestNoCommandInheritsATerminalsMaster(t *testing.T) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if m, tty, err := openPTY(); err == nil {
				closeAll(m, tty)
			}
		}
	})
	defer func() { close(stop); wg.Wait() }()
	for i := range 300 {
		p, err := Start(Spec{Argv: []string{"/bin/ls", "-l", "/proc/self/fd/"}, Dir: t.TempDir(), Env: os.Environ(), Tag: t.Name()})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p.Output)
		p.Wait()
		p.Close()
		if strings.Contains(string(b), "ptmx") {
			t.Fatalf("command %d holds a terminal's master:\n%s", i, b)
		}
	}
}
