package sandbox

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// onTerminal starts script confined as p says on a new terminal, as its
// session leader and process group, the way platform starts commands.
func onTerminal(t *testing.T, p Plan, env []string, script string) (*exec.Cmd, *os.File) {
	t.Helper()
	master, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { master.Close() })
	defer tty.Close()
	argv := []string{"/bin/sh", "-c", script}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, p.Root
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Pdeathsig: syscall.SIGKILL}
	g := startConfined(t, cmd, p, argv)
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		g.Close()
	})
	return cmd, master
}

// readUntil reads the terminal until want shows, and returns what it read;
// the watchdog closes the terminal if it never does.
func readUntil(t *testing.T, r *bufio.Reader, master *os.File, want string) string {
	t.Helper()
	timer := time.AfterFunc(watchdog, func() { master.Close() })
	defer timer.Stop()
	var seen strings.Builder
	for !strings.Contains(seen.String(), want) {
		b, err := r.ReadByte()
		if err != nil {
			t.Fatalf("waiting for %q: %v; read %q", want, err, seen.String())
		}
		seen.WriteByte(b)
	}
	return seen.String()
}

func TestTheCommandKeepsItsTerminalSessionAndGroup(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		w := newWorld(t)
		cmd, master := onTerminal(t, w.plan(WorkspaceWrite), w.env(), `
[ -t 0 ] && echo "on a ""terminal"; echo "ids $$ $(cut -d' ' -f5,6 /proc/$$/stat) end"; read -p "name? " x < /dev/tty; echo "got $x"`)
		r := bufio.NewReader(master)
		seen := readUntil(t, r, master, "name? ")
		if !strings.Contains(seen, "on a terminal") {
			t.Errorf("the command's input is no terminal: %q", seen)
		}
		pid := strconv.Itoa(cmd.Process.Pid)
		if want := "ids " + pid + " " + pid + " " + pid + " end"; !strings.Contains(seen, want) {
			t.Errorf("the shell should be pid, group and session %s: %q", pid, seen)
		}
		io.WriteString(master, "bob\n")
		readUntil(t, r, master, "got bob")
	})
}

func TestKillingTheGroupEndsTheCommand(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		w := newWorld(t)
		cmd, master := onTerminal(t, w.plan(WorkspaceWrite), w.env(), `sleep 1000 & echo "sleep=$! start""ed"; wait`)
		seen := readUntil(t, bufio.NewReader(master), master, "started")
		go io.Copy(io.Discard, master)
		sleeper := seen[strings.Index(seen, "sleep=")+len("sleep=") : strings.Index(seen, " started")]
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(watchdog):
			t.Fatal("the shell outlived a kill of its group")
		}
		// The sleep is dead once it is a zombie waiting for its reaper.
		deadline := time.Now().Add(watchdog)
		for alive(sleeper) {
			if time.Now().After(deadline) {
				t.Fatal("the background sleep outlived the kill of its group")
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// alive tells whether pid runs (and is not a zombie).
func alive(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z'
}

// A confined command's terminal folder is its own: the terminals it makes
// are there, the helper's (and so every other session's) are not.
func TestTheCommandHasATerminalFolderOfItsOwn(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		if v.name == "landlock-only" {
			t.Skip("without a mount namespace the terminals are the machine's: initialize says so")
		}
		w := newWorld(t)
		other, otherTTY, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		defer otherTTY.Close()
		_, master := onTerminal(t, w.plan(WorkspaceWrite), w.env(), `
echo intruder > `+otherTTY.Name()+` && echo "wrote""-other"
python3 -c 'import os; m, s = os.openpty(); os.write(s, b"x"); print("own-" + "pty", os.read(m, 1))' 2>&1
echo "done""-here"`)
		seen := readUntil(t, bufio.NewReader(master), master, "done-here")
		if strings.Contains(seen, "wrote-other") {
			t.Errorf("the command opened another terminal, %s: %q", otherTTY.Name(), seen)
		}
		if !strings.Contains(seen, "own-pty b'x'") {
			t.Errorf("the command could not make a terminal of its own: %q", seen)
		}
	})
}
