//go:build unix

package platform

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// watchdog bounds every wait in these tests: reaching it is a failure,
// never a measurement.
const watchdog = 30 * time.Second

// fakeShell writes an executable sh script standing for the user's $SHELL;
// body runs before the shell runs its -c script (the last argument), tail
// after it. $DIR is the test's directory.
func fakeShell(t *testing.T, dir, body, tail string) string {
	t.Helper()
	script := "#!/bin/sh\nDIR='" + dir + "'\n" +
		"printf '%s\\n' \"$@\" > \"$DIR/args\"\n" + body + "\n" +
		"for last in \"$@\"; do :; done\neval \"$last\"\n" + tail + "\n"
	path := filepath.Join(dir, "fake-shell")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// hangingShell is a login shell whose rc file never returns, with a child
// in the background; it records both pids.
func hangingShell(t *testing.T, dir string) string {
	return fakeShell(t, dir, `sleep 1000 &
echo $! > "$DIR/child.pid"
echo $$ > "$DIR/shell.pid"
wait`, "")
}

// logBuffer collects what the LoginEnv logs.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newLog() (*slog.Logger, *logBuffer) {
	var buf logBuffer
	return slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})), &buf
}

// TestMain lets the test binary stand for termhelper as the login shell's
// supervisor, which LoginEnv runs as the program itself.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == LoginEnvCommand {
		os.Exit(ServeLoginEnv(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// tempCache is a cache file of the test's own, in a folder as private as
// the real one.
func tempCache(t *testing.T) string {
	return filepath.Join(t.TempDir(), "loginenv", "env.json")
}

// openTest opens a LoginEnv with its own cache, closed at the test's end.
func openTest(t *testing.T, shell string, timeout time.Duration, rc []string, cache string) *LoginEnv {
	t.Helper()
	le := openLoginEnv(shell, timeout, rc, 10*time.Millisecond, cache)
	t.Cleanup(func() { closeWithin(t, le) })
	return le
}

func startTest(t *testing.T, shell string, timeout time.Duration, log *slog.Logger, rc []string) *LoginEnv {
	t.Helper()
	le := openTest(t, shell, timeout, rc, tempCache(t))
	le.Start(log)
	return le
}

func closeWithin(t *testing.T, le *LoginEnv) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		le.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(watchdog):
		t.Fatal("Close did not return")
	}
}

func waitSettled(t *testing.T, le *LoginEnv) {
	t.Helper()
	select {
	case <-le.settled:
	case <-time.After(watchdog):
		t.Fatal("the first read never ended")
	}
}

// waitFor polls cond until it holds, failing at the watchdog.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(watchdog)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func lookup(env []string, name string) (string, bool) {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

func TestLoginEnvNoisyRC(t *testing.T) {
	dir := t.TempDir()
	shell := fakeShell(t, dir, `echo "Welcome! rc noise"
printf 'JUNK=before\0__TERMHELPER_ENV_BEGIN_fake__\0'
echo "noise on stderr" >&2
export FROM_RC='two
lines'
export PATH="/opt/fake/bin:$PATH"`, `echo "goodbye from the rc"
printf '__TERMHELPER_ENV_END_fake__ JUNK=after\0'`)
	le := startTest(t, shell, watchdog, nil, nil)
	waitSettled(t, le)
	env := le.Env()
	if env == nil {
		t.Fatal("no environment read")
	}
	if v, _ := lookup(env, "FROM_RC"); v != "two\nlines" {
		t.Errorf("FROM_RC = %q, want a value with its newline", v)
	}
	if v, _ := lookup(env, "PATH"); !strings.HasPrefix(v, "/opt/fake/bin:") {
		t.Errorf("PATH = %q, want the rc file's directory first", v)
	}
	for _, name := range []string{"JUNK", "_", "PWD", "SHLVL", LoginEnvResolvingVar} {
		if v, ok := lookup(env, name); ok {
			t.Errorf("%s=%q should not be in the login environment", name, v)
		}
	}
	args, _ := os.ReadFile(filepath.Join(dir, "args"))
	if lines := strings.Split(string(args), "\n"); len(lines) < 3 || !slices.Equal(lines[:3], []string{"-l", "-i", "-c"}) {
		t.Errorf("shell ran with %q, want -l -i -c SCRIPT", args)
	}
}

func TestLoginEnvSeesResolvingVar(t *testing.T) {
	dir := t.TempDir()
	shell := fakeShell(t, dir, `export SEEN="$`+LoginEnvResolvingVar+`"`, "")
	le := startTest(t, shell, watchdog, nil, nil)
	waitSettled(t, le)
	if v, _ := lookup(le.Env(), "SEEN"); v != "1" {
		t.Errorf("the rc file saw %s=%q, want 1", LoginEnvResolvingVar, v)
	}
}

func TestLoginEnvFailingRC(t *testing.T) {
	dir := t.TempDir()
	shell := fakeShell(t, dir, `echo "rc: something broke" >&2
exit 1`, "")
	log, logs := newLog()
	le := startTest(t, shell, watchdog, log, nil)
	waitSettled(t, le)
	if env := le.Env(); env != nil {
		t.Errorf("a failed read gave an environment: %q", env)
	}
	if !strings.Contains(logs.String(), "something broke") {
		t.Errorf("the failure is not logged with the shell's message: %s", logs)
	}
}

func TestLoginEnvHangingRCTimesOut(t *testing.T) {
	dir := t.TempDir()
	log, logs := newLog()
	le := startTest(t, hangingShell(t, dir), 200*time.Millisecond, log, nil)
	waitSettled(t, le)
	if env := le.Env(); env != nil {
		t.Errorf("a read that timed out gave an environment: %q", env)
	}
	if !strings.Contains(logs.String(), "killed") {
		t.Errorf("the timeout is not logged: %s", logs)
	}
	// The shell may not have got as far as its child within the limit.
	for _, name := range []string{"shell.pid", "child.pid"} {
		if pid, ok := readPid(dir, name); ok {
			waitGone(t, pid)
		}
	}
}

func TestLoginEnvKillsHangingShell(t *testing.T) {
	dir := t.TempDir()
	shell := hangingShell(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := readLoginEnv(ctx, shell, time.Hour)
		errc <- err
	}()
	var shellPid, childPid int
	waitFor(t, "the shell to start its child", func() bool {
		var ok1, ok2 bool
		shellPid, ok1 = readPid(dir, "shell.pid")
		childPid, ok2 = readPid(dir, "child.pid")
		return ok1 && ok2
	})
	cancel() // as the timeout does
	select {
	case err := <-errc:
		if err == nil {
			t.Error("a killed shell gave an environment")
		}
	case <-time.After(watchdog):
		t.Fatal("readLoginEnv did not return once cancelled")
	}
	waitGone(t, shellPid)
	waitGone(t, childPid)
}

// The helper's end stops the waiting, not the shell: its supervisor still
// ends it at its time limit.
func TestLoginEnvLimitHoldsAfterClose(t *testing.T) {
	dir := t.TempDir()
	le := startTest(t, hangingShell(t, dir), 300*time.Millisecond, nil, nil)
	var pids []int
	waitFor(t, "the shell to start its child", func() bool {
		shellPid, ok1 := readPid(dir, "shell.pid")
		childPid, ok2 := readPid(dir, "child.pid")
		pids = []int{shellPid, childPid}
		return ok1 && ok2
	})
	closeWithin(t, le)
	for _, pid := range pids {
		waitGone(t, pid)
	}
}

func TestLoginEnvRereadsChangedRC(t *testing.T) {
	dir := t.TempDir()
	rc := filepath.Join(dir, "rc")
	writeRC := func(n int, mtime time.Time) {
		if err := os.WriteFile(rc, fmt.Appendf(nil, "export COUNT=%d\n", n), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(rc, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now().Add(-time.Hour)
	writeRC(1, start)
	shell := fakeShell(t, dir, `. "$DIR/rc"`, "")
	le := startTest(t, shell, watchdog, nil, []string{rc, filepath.Join(dir, "absent")})
	waitFor(t, "COUNT=1", func() bool { v, _ := lookup(le.Env(), "COUNT"); return v == "1" })
	writeRC(2, start.Add(time.Minute))
	waitFor(t, "COUNT=2 after the rc file changed", func() bool { v, _ := lookup(le.Env(), "COUNT"); return v == "2" })
}

func TestLoginEnvNoShell(t *testing.T) {
	le := OpenLoginEnv("", time.Second)
	le.Start(nil)
	waitSettled(t, le)
	if le.Env() != nil {
		t.Error("no shell gave an environment")
	}
	closeWithin(t, le)
}

func readPid(dir, name string) (int, bool) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid, err == nil && pid > 0
}

// waitGone waits until pid has ended: no such process, or a zombie that
// nobody has reaped yet (init, in a container, may never do it).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("process %d to end", pid), func() bool { return processGone(pid) })
}

func processGone(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	var out bytes.Buffer
	cmd := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(pid))
	cmd.Stdout = &out
	if Run(cmd) != nil {
		return true // ps exits 1 when the process is gone
	}
	return strings.HasPrefix(strings.TrimSpace(out.String()), "Z")
}

func TestParseEnvOutput(t *testing.T) {
	const b, e = "<B>", "<E>"
	tests := []struct {
		name, out string
		want      []string
	}{
		{"plain", "<B>A=1\x00B=two\nlines\x00<E>", []string{"A=1", "B=two\nlines"}},
		{"noise around", "motd\x00X=0\n<B>A=1\x00<E>bye\x00Y=9", []string{"A=1"}},
		{"equals in value", "<B>A=b=c\x00<E>", []string{"A=b=c"}},
		{"shell's own dropped", "<B>_=/usr/bin/env\x00PWD=/x\x00SHLVL=2\x00OLDPWD=/y\x00A=1\x00<E>", []string{"A=1"}},
		{"malformed dropped", "<B>noequals\x00=novalue\x00A=1\x00<E>", []string{"A=1"}},
		{"no end", "<B>A=1\x00", nil},
		{"no begin", "A=1\x00<E>", nil},
		{"empty", "<B><E>", nil},
	}
	for _, tt := range tests {
		if got := parseEnvOutput([]byte(tt.out), b, e); !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestMergeLoginEnv(t *testing.T) {
	own := []string{"HOME=/home/u", "EDITOR=code", "PATH=/usr/bin:/bin"}
	login := []string{"HOME=/elsewhere", "NVM_DIR=/home/u/.nvm", "PATH=/home/u/.nvm/bin:/usr/bin:/bin"}
	got := MergeLoginEnv(own, login)
	want := []string{"EDITOR=code", "HOME=/home/u", "NVM_DIR=/home/u/.nvm", "PATH=/home/u/.nvm/bin:/usr/bin:/bin"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := MergeLoginEnv(own, nil); !slices.Equal(got, own) {
		t.Errorf("no login environment: got %q, want own %q", got, own)
	}
}

func TestMergePath(t *testing.T) {
	tests := []struct{ name, own, login, want string }{
		{"desktop launcher", "/usr/bin:/bin", "/opt/homebrew/bin:/usr/bin:/bin", "/opt/homebrew/bin:/usr/bin:/bin"},
		{"terminal with a virtualenv", "/p/.venv/bin:/opt/homebrew/bin:/usr/bin:/bin", "/opt/homebrew/bin:/usr/bin:/bin",
			"/p/.venv/bin:/opt/homebrew/bin:/usr/bin:/bin"},
		{"own extras after", "/usr/bin:/editor/bin", "/nvm/bin:/usr/bin", "/nvm/bin:/usr/bin:/editor/bin"},
		{"nothing shared", "/a", "/b", "/a:/b"},
		{"duplicates and empties", "/a::/a", "/b::/b", "/a:/b"},
		{"own empty", "", "/b:/c", "/b:/c"},
	}
	for _, tt := range tests {
		if got := mergePath(tt.own, tt.login); got != tt.want {
			t.Errorf("%s: mergePath(%q, %q) = %q, want %q", tt.name, tt.own, tt.login, got, tt.want)
		}
	}
}

// An rc file's tool that holds a lock and removes it in an exit trap (as
// pyenv rehash does) must get to run the trap when the shell is ended at
// its time limit: otherwise every later login shell waits on its stale
// lock.
func TestLoginEnvLetsExitTrapsRun(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, "lock")
	shell := fakeShell(t, dir, `touch "$DIR/lock"
trap 'rm -f "$DIR/lock"; exit 1' TERM
echo $$ > "$DIR/shell.pid"
while :; do sleep 0.05; done`, "")
	le := startTest(t, shell, 300*time.Millisecond, nil, nil)
	var pid int
	waitFor(t, "the shell to take its lock", func() bool {
		var ok bool
		pid, ok = readPid(dir, "shell.pid")
		return ok
	})
	closeWithin(t, le)
	waitGone(t, pid)
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Fatalf("the exit trap did not run: the lock is still there (%v)", err)
	}
}
