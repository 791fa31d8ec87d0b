package platform

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/termhelper/termhelper/sandbox"
	"golang.org/x/sys/unix"
)

// readySpare makes a spare for plan and returns its pid once it waits for
// its command, or skips where this machine gives none (no namespaces).
// An earlier test's command may end late and replace it with a spare of
// its own plan: then it is made again.
func readySpare(t *testing.T, plan *sandbox.Plan) int {
	t.Helper()
	l, err := sandbox.PrepareSpare(*plan)
	if errors.Is(err, sandbox.ErrNoSpare) {
		t.Skip("no spare here: ", err)
	}
	l.Abort()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no spare was made and kept")
		}
		refillSpare(*plan, true) // synchronous, unless another test's spare is being made
		if pid := readyFor(*plan); pid != 0 && awaitHandoff(pid, deadline) && readyFor(*plan) == pid {
			return pid
		}
	}
}

// readyFor is the pid of the spare ready for plan, 0 if there is none.
func readyFor(plan sandbox.Plan) int {
	spares.Lock()
	defer spares.Unlock()
	if spares.ready == nil || !spares.ready.plan.Same(plan) {
		return 0
	}
	return spares.ready.st.proc.Pid
}

// awaitHandoff waits until the spare is confined and waits for its
// command (a thread of it blocked receiving on its socket), or is gone.
func awaitHandoff(pid int, deadline time.Time) bool {
	want := strconv.Itoa(unix.SYS_RECVMSG) + " "
	for ; time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/syscall", pid))
		if len(tasks) == 0 {
			return false
		}
		for _, task := range tasks {
			if b, err := os.ReadFile(task); err == nil && strings.HasPrefix(string(b), want) {
				return true
			}
		}
	}
	return false
}

// startedBy is the pid of the spare that started p, 0 if none did.
func startedBy(p *Process) int {
	if p.sys.spare == nil {
		return 0
	}
	return p.sys.spare.st.proc.Pid
}

// mountNamespace names the mount namespace of pid, which a command its
// spare starts runs in.
func mountNamespace(t *testing.T, pid int) string {
	t.Helper()
	ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", pid))
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// startConfinedOn starts script confined by plan, on a terminal or on
// pipes (with a line of input), ended at the test's end.
func startConfinedOn(t *testing.T, plan *sandbox.Plan, pty bool, script string, env ...string) *Process {
	t.Helper()
	spec := Spec{Argv: ShellArgv("/bin/bash", script), Dir: plan.Root, Env: append(os.Environ(), env...),
		PTY: pty, Tag: "spare-" + t.Name(), Sandbox: plan}
	if !pty {
		spec.Stdin = []byte("from stdin\n")
	}
	p, err := Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Kill(SIGKILL, 0); p.Close() })
	return p
}

// collect reads the command's output to its end and waits for it, on
// goroutines; the function it returns gives the output under a watchdog.
func collect(t *testing.T, p *Process) func() (string, string) {
	t.Helper()
	done := make(chan struct{})
	var out, errOut []byte
	go func() {
		defer close(done)
		go p.WriteInitial()
		errDone := make(chan struct{})
		go func() {
			defer close(errDone)
			if p.Stderr != nil {
				errOut, _ = io.ReadAll(p.Stderr)
			}
		}()
		out, _ = io.ReadAll(p.Output)
		<-errDone
		p.Wait()
	}()
	return func() (string, string) {
		t.Helper()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			p.Kill(SIGKILL, 0)
			t.Fatal("the command did not end")
		}
		return string(out), string(errOut)
	}
}

func finish(t *testing.T, p *Process) (string, string) {
	t.Helper()
	return collect(t, p)()
}

func TestTheNextConfinedCommandRunsOnTheSpareConfinedOnItsTerminal(t *testing.T) {
	plan := confinedPlan(t)
	outside := t.TempDir()
	pid := readySpare(t, plan)
	ns := mountNamespace(t, pid)
	p := startConfinedOn(t, plan, true, `[ -t 0 ] && echo "on a term""inal"; readlink /proc/$$/ns/mnt; echo inside > made; echo x > "$OUT/escaped"; read -s -p "pw: " x; echo "got $x"`, "OUT="+outside)
	if by := startedBy(p); by != pid {
		t.Fatalf("the command was started by %d, not by the spare %d", by, pid)
	}
	result := collect(t, p)
	eventually(t, p, "a password read on the spare's terminal", func(s InputState) bool { return s.Waiting && s.Secret })
	p.Input.Write([]byte("sesame\n"))
	out, _ := result()
	if !strings.Contains(out, "on a terminal") || !strings.Contains(out, ns) || !strings.Contains(out, "got sesame") {
		t.Fatalf("output %q", out)
	}
	if _, err := os.Stat(filepath.Join(plan.Root, "made")); err != nil {
		t.Error("the root was not writable on the spare")
	}
	if _, err := os.Stat(filepath.Join(outside, "escaped")); err == nil {
		t.Error("a command on the spare wrote outside the root")
	}
}

func TestACommandOnPipesRunsOnTheSpare(t *testing.T) {
	plan := confinedPlan(t)
	pid := readySpare(t, plan)
	// A variable given twice: the command's environment holds the last,
	// once, as os/exec makes it for a fresh start (the tag appended to an
	// environment that has one).
	ns := mountNamespace(t, pid)
	p := startConfinedOn(t, plan, false, `cat; echo "in $PWD" >&2; tr '\0' '\n' < /proc/$$/environ | grep ^SPARE_VAR=; readlink /proc/$$/ns/mnt`,
		"SPARE_VAR=an outer one", "SPARE_VAR=the request's")
	if by := startedBy(p); by != pid {
		t.Fatalf("the command was started by %d, not by the spare %d", by, pid)
	}
	out, errOut := finish(t, p)
	if out != "from stdin\nSPARE_VAR=the request's\n"+ns+"\n" || errOut != "in "+plan.Root+"\n" {
		t.Fatalf("stdout %q, stderr %q", out, errOut)
	}
}

// A spare confines as the places were when it was made: once they
// changed, the command starts through a fresh trampoline, which sees
// them as they are.
func TestASpareIsNotUsedOnceAProtectedFileAppeared(t *testing.T) {
	plan := confinedPlan(t)
	pid := readySpare(t, plan)
	config := filepath.Join(plan.Root, ".termhelper.toml")
	if err := os.WriteFile(config, []byte("# the user's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startConfinedOn(t, plan, false, `echo 'sandbox = "off"' >> .termhelper.toml; echo done`)
	finish(t, p)
	if startedBy(p) == pid {
		t.Error("the spare made before the file ran the command")
	}
	if b, _ := os.ReadFile(config); string(b) != "# the user's\n" {
		t.Fatalf("a confined command changed the project's config: %q", b)
	}
}

func TestASpareIsNotUsedOnceASecretPlaceAppeared(t *testing.T) {
	plan := confinedPlan(t)
	home := filepath.Join(filepath.Dir(plan.Root), "home")
	pid := readySpare(t, plan)
	if err := os.MkdirAll(filepath.Join(home, ".aws"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".aws", "credentials"), []byte("aws_secret=spare-7731\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startConfinedOn(t, plan, false, `cat "$H/.aws/credentials"; echo done`, "H="+home)
	out, _ := finish(t, p)
	if startedBy(p) == pid {
		t.Error("the spare made before the secret place ran the command")
	}
	if strings.Contains(out, "spare-7731") || !strings.Contains(out, "done") {
		t.Fatalf("output %q", out)
	}
}

func TestATakenSpareIsReplacedAndDropSpareEndsIt(t *testing.T) {
	plan := confinedPlan(t)
	first := readySpare(t, plan)
	finish(t, startConfinedOn(t, plan, false, `true`))
	var next int
	for deadline := time.Now().Add(20 * time.Second); next == 0 || next == first; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no new spare after the command ended")
		}
		spares.Lock()
		if sp := spares.ready; sp != nil {
			next = sp.st.proc.Pid
		}
		spares.Unlock()
	}
	t.Cleanup(func() { spares.Lock(); spares.closed = false; spares.Unlock() })
	DropSpare()
	if err := unix.Kill(next, 0); !errors.Is(err, unix.ESRCH) {
		t.Fatalf("the spare %d outlived DropSpare: %v", next, err)
	}
	refillSpare(*plan, true)
	spares.Lock()
	defer spares.Unlock()
	if spares.ready != nil {
		t.Fatal("a spare was made after DropSpare")
	}
}

// A command a spare starts is the helper's child before the helper knows
// its pid; ended by then, it is not reaped as an orphan, and its exit
// status is the helper's to read. It runs in a process of its own, which
// becomes a subreaper.
func TestTheReaperLeavesACommandBeingHandedOver(t *testing.T) {
	if !inSubreaper(t) {
		return
	}
	beginHandoff()
	cmd := exec.Command("/bin/sh", "-c", "exit 7")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if st, ok := readStat(pid); ok && st.state == 'Z' {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command did not end")
		}
	}
	time.Sleep(100 * time.Millisecond) // the reaper's scan at its SIGCHLD
	endHandoff(pid)
	if err := cmd.Wait(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 7 {
		t.Fatalf("the exit status was lost: %v", err)
	}
	unregister(pid)
}

// A command a spare starts is, until it executes, an untagged child of
// the helper that the helper has not registered yet: a command tree ended
// meanwhile, the only one alive, does not take it for a stray of its own.
// It runs in a process of its own, which becomes a subreaper.
func TestAnEndingTreeLeavesACommandBeingHandedOver(t *testing.T) {
	if !inSubreaper(t) {
		return
	}
	ending := exec.Command("sleep", "60")
	ending.Env = []string{TagVar + "=ending"}
	require.NoError(t, startRegistered(ending))
	addTree(ending.Process.Pid)
	beginHandoff()
	handed := exec.Command("sleep", "60")
	handed.Env = []string{}
	require.NoError(t, handed.Start())
	KillTree(ending.Process.Pid, "ending", SIGKILL, 0)
	endHandoff(handed.Process.Pid)
	ending.Wait()
	forgetTree(ending.Process.Pid)
	handed.Process.Signal(syscall.SIGTERM)
	handed.Wait()
	ws := handed.ProcessState.Sys().(syscall.WaitStatus)
	assert.Equal(t, syscall.SIGTERM, ws.Signal(), "the handed command was ended with the tree")
	unregister(handed.Process.Pid)
	unregister(ending.Process.Pid)
}
