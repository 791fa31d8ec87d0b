package platform_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/sandbox"
	"golang.org/x/sys/unix"
)

// The test binary stands for termhelper as the sandbox's trampoline too.
func init() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.Command {
		os.Exit(sandbox.Serve(os.Args[2:]))
	}
}

// confinedPlan is a workspace-write plan for a fresh root, or a skip
// where this machine has no sandbox.
func confinedPlan(t *testing.T) *sandbox.Plan {
	t.Helper()
	if st := sandbox.Probe(sandbox.WorkspaceWrite, sandbox.NetworkOpen); st.Mode == sandbox.Off {
		t.Skip("no sandbox here: " + st.Reason)
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, tmp := filepath.Join(base, "root"), filepath.Join(base, "tmp")
	os.Mkdir(root, 0o755)
	os.Mkdir(tmp, 0o700)
	p := sandbox.Defaults(root, filepath.Join(base, "home"), func(string) string { return "" })
	p.Mode, p.Network, p.TempDir = sandbox.WorkspaceWrite, sandbox.NetworkOpen, tmp
	return &p
}

func TestASandboxedReadIsSeenWaitingAndTheTreeKillLeavesNothing(t *testing.T) {
	plan := confinedPlan(t)
	tag := "sbx-" + t.Name()
	p, err := platform.Start(platform.Spec{Argv: platform.ShellArgv("/bin/bash", `sleep 1000 & read -p "name: " x`), Dir: plan.Root,
		Env: os.Environ(), PTY: true, Tag: tag, Confine: plan.Confiner()})
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, p.Output)
	t.Cleanup(func() {
		p.Kill(platform.SIGKILL, 0)
		p.Wait()
		p.Close()
	})
	st := platform.Eventually(t, p, "a confined read of the terminal", func(s platform.InputState) bool { return s.Waiting })
	if !st.Known || st.Secret {
		t.Fatalf("a plain read, confined: %+v", st)
	}
	p.Kill(platform.SIGTERM, 5*time.Second)
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	if m := platform.TreeMembers(p.Pid, tag); len(m) > 0 {
		t.Fatalf("the tree kill left %v", m)
	}
	if d := p.Denied(); d != nil {
		t.Fatalf("nothing was refused, yet Denied says %v", d)
	}
}

func TestASandboxedCommandOnPipesIsConfined(t *testing.T) {
	plan := confinedPlan(t)
	outside := t.TempDir()
	p, err := platform.Start(platform.Spec{Argv: platform.ShellArgv("/bin/sh", `echo inside > made; echo x > "$OUT/escaped"; echo done`),
		Dir: plan.Root, Env: append(os.Environ(), "OUT="+outside), Tag: "sbx-" + t.Name(), Confine: plan.Confiner()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Kill(platform.SIGKILL, 0); p.Close() })
	go p.WriteInitial()
	out, _ := io.ReadAll(p.Output)
	io.Copy(io.Discard, p.Stderr)
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "done") {
		t.Fatalf("output %q", out)
	}
	if _, err := os.Stat(filepath.Join(plan.Root, "made")); err != nil {
		t.Error("the root was not writable on pipes")
	}
	if _, err := os.Stat(filepath.Join(outside, "escaped")); err == nil {
		t.Error("a confined command on pipes wrote outside the root")
	}
}

func TestAPlanThisMachineCannotApplyIsRefusedAtStart(t *testing.T) {
	plan := confinedPlan(t)
	plan.Mode = "sideways"
	if _, err := platform.Start(platform.Spec{Argv: platform.ShellArgv("/bin/sh", "true"), Dir: plan.Root, Env: os.Environ(), Confine: plan.Confiner()}); err == nil {
		t.Fatal("a bad plan started")
	}
}

// readySpare makes a spare for plan and returns its pid once it waits for
// its command, or skips where this machine gives none (no namespaces).
// An earlier test's command may end late and replace it with a spare of
// its own plan: then it is made again.
func readySpare(t *testing.T, plan *sandbox.Plan, kind string) int {
	t.Helper()
	sandbox.UseHeldNamespaces(kind == "stub")
	t.Cleanup(func() { sandbox.UseHeldNamespaces(true) })
	l, err := sandbox.PrepareSpare(*plan)
	for deadline := time.Now().Add(20 * time.Second); kind == "stub" && errors.Is(err, sandbox.ErrNoSpare) && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond) // the held namespaces are being made
		l, err = sandbox.PrepareSpare(*plan)
	}
	if errors.Is(err, sandbox.ErrNoSpare) {
		t.Skip("no spare here: ", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	l.Abort()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no spare was made and kept")
		}
		platform.RefillSpare(plan.Confiner(), true) // synchronous, unless another test's spare is being made
		if pid := platform.ReadySpare(plan.Confiner()); pid != 0 && awaitHandoff(pid, deadline) && platform.ReadySpare(plan.Confiner()) == pid {
			if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); strings.HasPrefix(string(b), "termhelper-exec\x00") != (kind == "stub") {
				t.Fatalf("the spare is not a %s: %q", kind, b)
			}
			return pid
		}
	}
}

// eachSpare runs fn for each kind of spare: a trampoline ("trampoline",
// held namespaces off) and the exec stub in held namespaces ("stub"),
// which runs the command in its own place.
func eachSpare(t *testing.T, fn func(t *testing.T, kind string)) {
	for _, kind := range []string{"trampoline", "stub"} {
		t.Run(kind, func(t *testing.T) { fn(t, kind) })
	}
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
func startConfinedOn(t *testing.T, plan *sandbox.Plan, pty bool, script string, env ...string) *platform.Process {
	t.Helper()
	return startArgvOn(t, plan, pty, platform.ShellArgv("/bin/bash", script), env...)
}

// startArgvOn is startConfinedOn for argv.
func startArgvOn(t *testing.T, plan *sandbox.Plan, pty bool, argv []string, env ...string) *platform.Process {
	t.Helper()
	spec := platform.Spec{Argv: argv, Dir: plan.Root, Env: append(os.Environ(), env...),
		PTY: pty, Tag: "spare-" + t.Name(), Confine: plan.Confiner()}
	if !pty {
		spec.Stdin = []byte("from stdin\n")
	}
	p, err := platform.Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Kill(platform.SIGKILL, 0); p.Close() })
	return p
}

// collect reads the command's output to its end and waits for it, on
// goroutines; the function it returns gives the output under a watchdog.
func collect(t *testing.T, p *platform.Process) func() (string, string) {
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
			p.Kill(platform.SIGKILL, 0)
			t.Fatal("the command did not end")
		}
		return string(out), string(errOut)
	}
}

func finish(t *testing.T, p *platform.Process) (string, string) {
	t.Helper()
	return collect(t, p)()
}

func TestTheNextConfinedCommandRunsOnTheSpareConfinedOnItsTerminal(t *testing.T) {
	eachSpare(t, func(t *testing.T, kind string) {
		plan := confinedPlan(t)
		outside := t.TempDir()
		pid := readySpare(t, plan, kind)
		ns := mountNamespace(t, pid)
		p := startConfinedOn(t, plan, true, `[ -t 0 ] && echo "on a term""inal"; readlink /proc/$$/ns/mnt; echo inside > made; echo x > "$OUT/escaped"; read -s -p "pw: " x; echo "got $x"`, "OUT="+outside)
		if by := platform.StartedBy(p); by != pid {
			t.Fatalf("the command was started by %d, not by the spare %d", by, pid)
		}
		result := collect(t, p)
		platform.Eventually(t, p, "a password read on the spare's terminal", func(s platform.InputState) bool { return s.Waiting && s.Secret })
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
	})
}

func TestACommandOnPipesRunsOnTheSpare(t *testing.T) {
	eachSpare(t, func(t *testing.T, kind string) {
		plan := confinedPlan(t)
		pid := readySpare(t, plan, kind)
		// A variable given twice: the command's environment holds the last,
		// once, as os/exec makes it for a fresh start (the tag appended to an
		// environment that has one).
		ns := mountNamespace(t, pid)
		p := startConfinedOn(t, plan, false, `cat; echo "in $PWD" >&2; tr '\0' '\n' < /proc/$$/environ | grep ^SPARE_VAR=; readlink /proc/$$/ns/mnt`,
			"SPARE_VAR=an outer one", "SPARE_VAR=the request's")
		if by := platform.StartedBy(p); by != pid {
			t.Fatalf("the command was started by %d, not by the spare %d", by, pid)
		}
		out, errOut := finish(t, p)
		if out != "from stdin\nSPARE_VAR=the request's\n"+ns+"\n" || errOut != "in "+plan.Root+"\n" {
			t.Fatalf("stdout %q, stderr %q", out, errOut)
		}
	})
}

// An empty word in argv, or an empty variable, reaches the command on
// the spare as it is.
func TestEmptyWordsReachTheCommandOnTheSpare(t *testing.T) {
	eachSpare(t, func(t *testing.T, kind string) {
		plan := confinedPlan(t)
		pid := readySpare(t, plan, kind)
		argv := []string{"/bin/bash", "-c", `printf '[%s]' "$@"; printf '<%s>' "$EMPTY_VAR" "${EMPTY_VAR+set}"`, "bash", "", "x", ""}
		p := startArgvOn(t, plan, false, argv, "EMPTY_VAR=")
		if by := platform.StartedBy(p); by != pid {
			t.Fatalf("the command was started by %d, not by the spare %d", by, pid)
		}
		if out, errOut := finish(t, p); out != "[][x][]<><set>" {
			t.Fatalf("stdout %q, stderr %q", out, errOut)
		}
	})
}

// A spare confines as the places were when it was made: once they
// changed, the command starts through a fresh trampoline, which sees
// them as they are.
func TestASpareIsNotUsedOnceAProtectedFileAppeared(t *testing.T) {
	eachSpare(t, func(t *testing.T, kind string) {
		plan := confinedPlan(t)
		pid := readySpare(t, plan, kind)
		config := filepath.Join(plan.Root, ".termhelper.toml")
		if err := os.WriteFile(config, []byte("# the user's\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		p := startConfinedOn(t, plan, false, `echo 'sandbox = "off"' >> .termhelper.toml; echo done`)
		finish(t, p)
		if platform.StartedBy(p) == pid {
			t.Error("the spare made before the file ran the command")
		}
		if b, _ := os.ReadFile(config); string(b) != "# the user's\n" {
			t.Fatalf("a confined command changed the project's config: %q", b)
		}
	})
}

func TestASpareIsNotUsedOnceASecretPlaceAppeared(t *testing.T) {
	eachSpare(t, func(t *testing.T, kind string) {
		plan := confinedPlan(t)
		home := filepath.Join(filepath.Dir(plan.Root), "home")
		pid := readySpare(t, plan, kind)
		if err := os.MkdirAll(filepath.Join(home, ".aws"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, ".aws", "credentials"), []byte("aws_secret=spare-7731\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		p := startConfinedOn(t, plan, false, `cat "$H/.aws/credentials"; echo done`, "H="+home)
		out, _ := finish(t, p)
		if platform.StartedBy(p) == pid {
			t.Error("the spare made before the secret place ran the command")
		}
		if strings.Contains(out, "spare-7731") || !strings.Contains(out, "done") {
			t.Fatalf("output %q", out)
		}
	})
}

// A stub spare that ended before its command (killed, or a step of its
// confinement failed) takes none: the command starts another way, and
// runs. (A trampoline spare's end, if Go finds it, is a command that may
// have started: it forks the command on Go.)
func TestAnEndedStubSpareTakesNoCommand(t *testing.T) {
	plan := confinedPlan(t)
	pid := readySpare(t, plan, "stub")
	if err := unix.Kill(pid, unix.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); strings.Contains(string(b), ") Z ") || len(b) == 0 {
			break
		} else if time.Now().After(deadline) {
			t.Fatal("the spare did not end")
		}
	}
	p := startConfinedOn(t, plan, false, `echo ran-"elsewhere"`)
	if out, _ := finish(t, p); out != "ran-elsewhere\n" || platform.StartedBy(p) == pid {
		t.Fatalf("output %q, started by %d (the ended spare %d)", out, platform.StartedBy(p), pid)
	}
}

func TestATakenSpareIsReplacedAndDropSpareEndsIt(t *testing.T) {
	eachSpare(t, func(t *testing.T, kind string) {
		plan := confinedPlan(t)
		first := readySpare(t, plan, kind)
		finish(t, startConfinedOn(t, plan, false, `true`))
		var next int
		for deadline := time.Now().Add(20 * time.Second); next == 0 || next == first; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("no new spare after the command ended")
			}
			next = platform.ReadySpare(nil)
		}
		t.Cleanup(platform.ReopenSpares)
		platform.DropSpare()
		if err := unix.Kill(next, 0); !errors.Is(err, unix.ESRCH) {
			t.Fatalf("the spare %d outlived DropSpare: %v", next, err)
		}
		platform.RefillSpare(plan.Confiner(), true)
		if platform.ReadySpare(nil) != 0 {
			t.Fatal("a spare was made after platform.DropSpare")
		}
	})
}
