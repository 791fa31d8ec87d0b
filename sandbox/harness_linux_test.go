package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// world is a fake user and project: a home with secrets and start-up
// files, a git repository as the root, a folder outside both, a cache and
// the helper's temporary folder.
type world struct {
	home, root, outside, cache, tmp string
}

func newWorld(t testing.TB) world {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := world{
		home: filepath.Join(base, "home"), root: filepath.Join(base, "home", "proj"),
		outside: filepath.Join(base, "outside"), tmp: filepath.Join(base, "tmp"),
	}
	w.cache = filepath.Join(w.home, ".cache", "go-build")
	for _, d := range []string{w.root, w.outside, w.tmp, w.cache,
		filepath.Join(w.home, ".ssh"), filepath.Join(w.root, ".git", "hooks")} {
		mkdir(t, d)
	}
	write(t, filepath.Join(w.home, ".ssh", "id_rsa"), "SECRET-KEY-MATERIAL\n")
	write(t, filepath.Join(w.home, ".netrc"), "machine x password SECRET-NETRC\n")
	write(t, filepath.Join(w.home, ".bashrc"), "# rc\n")
	write(t, filepath.Join(w.root, ".git", "config"), "[core]\n")
	write(t, filepath.Join(w.root, "README"), "hello\n")
	return w
}

func (w world) getenv(name string) string {
	if name == "GOCACHE" {
		return w.cache
	}
	return ""
}

// plan is the default plan for the world in mode, the network left open
// (the network filter has tests of its own).
func (w world) plan(mode Mode) Plan {
	p := Defaults(w.root, w.home, w.getenv)
	p.Mode, p.Network, p.TempDir = mode, NetworkOpen, w.tmp
	return p
}

func (w world) env(extra ...string) []string {
	return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "TMPDIR=" + w.tmp,
		"ROOT=" + w.root, "OUT=" + w.outside, "CACHE=" + w.cache, "LANG=C", "GORACE=" + os.Getenv("GORACE")}, extra...)
}

func mkdir(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t testing.TB, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// variant is a way the trampoline can be set up on this machine.
type variant struct {
	name  string
	force string // forceNamespaces
	held  bool   // started by the exec stub in held namespaces
}

// variants are the set-ups this machine can give: the measured one, a
// user namespace (the path an ordinary user takes, forced for root), and
// Landlock alone. A set-up the machine lacks is skipped by name.
func variants(t *testing.T) []variant {
	m := measured()
	if m.abi == 0 {
		t.Skip("no Landlock here: " + m.noLandlock)
	}
	vs := []variant{{name: "landlock-only", force: "none"}}
	if m.nsFlags != 0 {
		vs = append(vs, variant{name: "namespaces"})
	}
	user := m.nsFlags&syscall.CLONE_NEWUSER != 0 || userNamespacesWork()
	if user {
		vs = append(vs, variant{name: "user-namespace", force: "user"})
	}
	if len(stubProgram) == 0 {
		return vs
	}
	if m.nsFlags != 0 {
		vs = append(vs, variant{name: "held", held: true})
	}
	if user {
		vs = append(vs, variant{name: "held-user-namespace", force: "user", held: true})
	}
	return vs
}

// userNamespacesWork tells whether a user namespace can be had here even
// though root did not need one.
func userNamespacesWork() bool {
	cmd := exec.Command("/proc/self/exe", Command, probeArg)
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	applyNamespaces(cmd.SysProcAttr, syscall.CLONE_NEWUSER|syscall.CLONE_NEWNS)
	out, _ := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)) == probeOK
}

// eachVariant runs fn once per set-up, as a subtest.
func eachVariant(t *testing.T, fn func(t *testing.T, v variant)) {
	for _, v := range variants(t) {
		t.Run(v.name, func(t *testing.T) {
			old := forceNamespaces
			forceNamespaces = v.force
			t.Cleanup(func() { forceNamespaces = old })
			if v.held {
				useHeld(t)
			}
			fn(t, v)
		})
	}
}

// heldMayFail, set by a test, lets a plan without held namespaces start
// through a trampoline in a held variant: one that cannot be applied.
var heldMayFail bool

// useHeld has every launch of the test start by the stub in held
// namespaces, made for its plan before it is prepared.
func useHeld(t testing.TB) {
	UseHeldNamespaces(true)
	heldSync = true
	t.Cleanup(func() {
		heldSync, heldMayFail = false, false
		UseHeldNamespaces(false)
	})
}

// result is what a confined command did, and what its guard refused.
type result struct {
	out    string
	code   int
	denied []Denial
}

// runArgv runs argv as p says, on pipes, with env, and waits for it. It
// starts in /: the scripts name their paths, and a missing root must not
// stop the start.
func runArgv(t testing.TB, p Plan, env []string, argv ...string) result {
	t.Helper()
	return runArgvIn(t, p, env, "/", argv...)
}

// runArgvIn is runArgv starting in dir.
func runArgvIn(t testing.TB, p Plan, env []string, dir string, argv ...string) result {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	g := startConfined(t, cmd, p, argv)
	defer g.Close()
	r := waitFor(t, cmd, &out)
	r.denied = g.Denied()
	return r
}

// startConfined starts cmd as p says, argv being what it runs, the way
// platform does.
func startConfined(t testing.TB, cmd *exec.Cmd, p Plan, argv []string) *Guard {
	t.Helper()
	l, err := Prepare(p, argv)
	if err != nil {
		t.Fatal(err)
	}
	if heldSync && !heldMayFail && !l.sys.plain && l.sys.held == nil {
		t.Fatalf("%v: not started in held namespaces", argv)
	}
	l.Apply(cmd)
	if err := cmd.Start(); err != nil {
		l.Abort()
		t.Fatal(err)
	}
	g, err := l.Started()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// run runs a shell script as p says.
func run(t *testing.T, p Plan, env []string, script string) result {
	t.Helper()
	return runArgv(t, p, env, "/bin/sh", "-c", script)
}

func waitFor(t testing.TB, cmd *exec.Cmd, out *bytes.Buffer) result {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(watchdog):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Fatalf("the command did not end: %s", out.String())
	}
	return result{out: out.String(), code: cmd.ProcessState.ExitCode()}
}
