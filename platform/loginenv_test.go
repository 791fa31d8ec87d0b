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
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/termhelper/termhelper/internal/ownmounts"
	"golang.org/x/sys/unix"
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
	// Spares are not used once the mount table changed: the host's
	// mounts made meanwhile do not reach the tests.
	os.Exit(ownmounts.Run(m))
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

// startHanging starts a LoginEnv on the login shell mkShell writes into a
// fresh folder, under a time limit, and returns it with the pids the shell
// writes to the files named, once they are all there. The limit is short,
// so that a test sees it fire; but a shell that a busy machine starts
// more slowly is ended before it gets that far, and then the read is
// started again, with a fresh shell and twice the limit, so that no
// machine is too slow for the test.
func startHanging(t *testing.T, mkShell func(dir string) string, names ...string) (*LoginEnv, []int) {
	t.Helper()
	for limit := 300 * time.Millisecond; limit < watchdog; limit *= 2 {
		dir := t.TempDir()
		le := startTest(t, mkShell(dir), limit, nil, nil)
		if pids, ok := awaitPids(t, le, dir, names); ok {
			return le, pids
		}
		t.Logf("the shell did not get as far as %v within %v: again with twice the limit", names, limit)
		closeWithin(t, le)
		for _, name := range names {
			if pid, ok := readPid(dir, name); ok {
				waitGone(t, pid)
			}
		}
	}
	t.Fatalf("the shell never got as far as %v within its time limit", names)
	return nil, nil
}

// awaitPids waits until the shell has written every pid file named, or
// its read has ended without them (its time limit came first).
func awaitPids(t *testing.T, le *LoginEnv, dir string, names []string) ([]int, bool) {
	t.Helper()
	var pids []int
	ended := false
	waitFor(t, "the shell to write "+strings.Join(names, " and "), func() bool {
		pids = pids[:0]
		for _, name := range names {
			if pid, ok := readPid(dir, name); ok {
				pids = append(pids, pid)
			}
		}
		if len(pids) == len(names) {
			return true
		}
		select {
		case <-le.settled:
			ended = true
		default:
		}
		return ended
	})
	return pids, !ended
}

// The helper's end stops the waiting, not the shell: its supervisor still
// ends it at its time limit.
func TestLoginEnvLimitHoldsAfterClose(t *testing.T) {
	le, pids := startHanging(t, func(dir string) string { return hangingShell(t, dir) }, "shell.pid", "child.pid")
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
	var lock string
	le, pids := startHanging(t, func(dir string) string {
		lock = filepath.Join(dir, "lock")
		return fakeShell(t, dir, `touch "$DIR/lock"
trap 'rm -f "$DIR/lock"; exit 1' TERM
echo $$ > "$DIR/shell.pid"
while :; do sleep 0.05; done`, "")
	}, "shell.pid")
	closeWithin(t, le)
	waitGone(t, pids[0])
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Fatalf("the exit trap did not run: the lock is still there (%v)", err)
	}
}

// countLines counts the login shells that ran: each appends to the file.
func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// cachingShell is a login shell that counts its runs in $DIR/runs and
// exports FROM_RC from the rc file $DIR/rc.
func cachingShell(t *testing.T, dir string) (shell, rc string) {
	rc = filepath.Join(dir, "rc")
	if err := os.WriteFile(rc, []byte("export FROM_RC=cached\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return fakeShell(t, dir, `echo run >> "$DIR/runs"
. "$DIR/rc"`, ""), rc
}

// A login shell, once started, runs its rc files to their end after the
// helper stopped waiting, and what it gives is cached.
func TestLoginEnvCloseLetsShellFinish(t *testing.T) {
	dir := t.TempDir()
	shell := fakeShell(t, dir, `echo $$ > "$DIR/shell.pid"
( set -C; : > "$DIR/lock" ) || exit 3
trap 'rm -f "$DIR/lock"' EXIT
while [ ! -e "$DIR/go" ]; do sleep 0.02; done
export FROM_RC=finished`, "")
	cache := tempCache(t)
	le := openTest(t, shell, watchdog, nil, cache)
	le.Start(nil)
	var pid int
	waitFor(t, "the shell to take its lock", func() bool {
		var ok bool
		pid, ok = readPid(dir, "shell.pid")
		return ok && fileExists(filepath.Join(dir, "lock"))
	})
	closeWithin(t, le)
	if processGone(pid) {
		t.Fatal("closing ended the login shell in the middle of its rc files")
	}
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
	var env []string
	waitFor(t, "the supervisor to cache the environment", func() bool {
		env = readLoginCache(cache, shell, nil, time.Now())
		return env != nil
	})
	if v, _ := lookup(env, "FROM_RC"); v != "finished" {
		t.Errorf("cached FROM_RC = %q, want finished", v)
	}
	if fileExists(filepath.Join(dir, "lock")) {
		t.Error("the lock was left behind")
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// A fresh cache gives the environment before Start, and Start runs no
// shell; a changed rc file makes the next one run it again.
func TestLoginEnvCached(t *testing.T) {
	dir := t.TempDir()
	shell, rc := cachingShell(t, dir)
	rcs := []string{rc, filepath.Join(dir, "absent")}
	cache := tempCache(t)
	first := openTest(t, shell, watchdog, rcs, cache)
	if first.Env() != nil {
		t.Fatal("an environment before any read or cache")
	}
	first.Start(nil)
	waitSettled(t, first)
	closeWithin(t, first)
	if n := countLines(t, filepath.Join(dir, "runs")); n != 1 {
		t.Fatalf("%d login shells ran, want 1", n)
	}

	second := openTest(t, shell, watchdog, rcs, cache)
	if v, _ := lookup(second.Env(), "FROM_RC"); v != "cached" {
		t.Fatalf("FROM_RC = %q before Start, want the cached value", v)
	}
	second.Start(nil)
	waitSettled(t, second)
	closeWithin(t, second)
	if n := countLines(t, filepath.Join(dir, "runs")); n != 1 {
		t.Fatalf("%d login shells ran with a fresh cache, want still 1", n)
	}

	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(rc, later, later); err != nil {
		t.Fatal(err)
	}
	third := openTest(t, shell, watchdog, rcs, cache)
	if third.Env() != nil {
		t.Fatal("a changed rc file still gave the cached environment")
	}
	third.Start(nil)
	waitSettled(t, third)
	if n := countLines(t, filepath.Join(dir, "runs")); n != 2 {
		t.Fatalf("%d login shells ran after the rc file changed, want 2", n)
	}
}

func TestLoginEnvStartAfterClose(t *testing.T) {
	dir := t.TempDir()
	shell, rc := cachingShell(t, dir)
	le := openTest(t, shell, watchdog, []string{rc}, tempCache(t))
	closeWithin(t, le)
	le.Start(nil)
	le.mu.Lock()
	started := le.started
	le.mu.Unlock()
	if started {
		t.Fatal("Start after Close started the watcher")
	}
	closeWithin(t, le)
}

// The supervisor and the shell are out of the helper's reach: a session
// of their own, and no tag for a sweep of a dead helper's leftovers to
// find.
func TestLoginEnvDetached(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(TagVar, "th-test-1")
	shell := fakeShell(t, dir, `printf '%s\n' "${`+TagVar+`-none}" > "$DIR/tag"
ps -o sid= -p $$ > "$DIR/sid"`, "")
	le := startTest(t, shell, watchdog, nil, nil)
	waitSettled(t, le)
	if b, _ := os.ReadFile(filepath.Join(dir, "tag")); strings.TrimSpace(string(b)) != "none" {
		t.Errorf("the login shell carries the helper's tag: %q", b)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "sid"))
	sid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("no session id from the shell: %q", b)
	}
	if own, _ := unix.Getsid(0); sid == own {
		t.Errorf("the login shell runs in the helper's session %d", sid)
	}
}

func TestLoginCacheFresh(t *testing.T) {
	dir := t.TempDir()
	rc := filepath.Join(dir, "rc")
	if err := os.WriteFile(rc, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	stamps := statFiles([]string{rc})
	good := func() loginCache {
		return loginCache{Shell: "/bin/sh", Home: os.Getenv("HOME"), Path: os.Getenv("PATH"),
			Files: stamps, Env: []string{"A=1"}, Read: now.Add(-time.Hour)}
	}
	if c := good(); !c.fresh("/bin/sh", stamps, now) {
		t.Fatal("a cache that matches is not fresh")
	}
	changed := slices.Clone(stamps)
	changed[0].Size++
	tests := []struct {
		name   string
		edit   func(*loginCache)
		stamps []fileStamp
	}{
		{"other shell", func(c *loginCache) { c.Shell = "/bin/zsh" }, stamps},
		{"other home", func(c *loginCache) { c.Home += "x" }, stamps},
		{"other PATH", func(c *loginCache) { c.Path += ":/x" }, stamps},
		{"too old", func(c *loginCache) { c.Read = now.Add(-loginCacheMaxAge) }, stamps},
		{"from the future", func(c *loginCache) { c.Read = now.Add(time.Hour) }, stamps},
		{"rc changed", func(*loginCache) {}, changed},
		{"rc list changed", func(*loginCache) {}, append(slices.Clone(stamps), fileStamp{Path: "/new"})},
		{"no env", func(c *loginCache) { c.Env = nil }, stamps},
	}
	for _, tt := range tests {
		c := good()
		tt.edit(&c)
		if c.fresh("/bin/sh", tt.stamps, now) {
			t.Errorf("%s: the cache is fresh", tt.name)
		}
	}
}

// A cache file that someone else could have written is never read: the
// PATH it holds decides what every command runs.
func TestLoginCacheUntrusted(t *testing.T) {
	cache := tempCache(t)
	c := loginCache{Shell: "/bin/sh", Home: os.Getenv("HOME"), Path: os.Getenv("PATH"),
		Env: []string{"PATH=/evil"}, Read: time.Now()}
	if err := writeLoginCache(cache, c); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(cache); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("cache file mode %v (%v), want 0600", fi.Mode(), err)
	}
	if fi, err := os.Stat(filepath.Dir(cache)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("cache folder mode %v (%v), want 0700", fi.Mode(), err)
	}
	read := func() []string { return readLoginCache(cache, "/bin/sh", nil, time.Now()) }
	if read() == nil {
		t.Fatal("the helper's own cache is not read")
	}
	for _, mode := range []struct {
		path string
		perm os.FileMode
	}{{cache, 0o644}, {filepath.Dir(cache), 0o755}, {filepath.Dir(filepath.Dir(cache)), 0o777}} {
		orig, _ := os.Stat(mode.path)
		must(t, os.Chmod(mode.path, mode.perm))
		if read() != nil {
			t.Errorf("read with %s at %v", mode.path, mode.perm)
		}
		must(t, os.Chmod(mode.path, orig.Mode().Perm()))
	}
	if os.Getuid() == 0 {
		must(t, os.Chown(cache, 65534, 65534))
		if read() != nil {
			t.Error("read a cache file owned by another user")
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestSetByRC(t *testing.T) {
	given := []string{"HOME=/h", "VIRTUAL_ENV=/venv", "PATH=/usr/bin", "EDITOR=vi"}
	out := []string{"HOME=/h", "VIRTUAL_ENV=/venv", "PATH=/nvm/bin:/usr/bin", "EDITOR=nano", "NVM_DIR=/h/.nvm"}
	want := []string{"PATH=/nvm/bin:/usr/bin", "EDITOR=nano", "NVM_DIR=/h/.nvm"}
	if got := setByRC(out, given); !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := setByRC([]string{"PATH=/usr/bin"}, []string{"PATH=/usr/bin"}); !slices.Equal(got, []string{"PATH=/usr/bin"}) {
		t.Errorf("PATH passed through was dropped: %q", got)
	}
}

func TestRCFiles(t *testing.T) {
	t.Setenv("HOME", "/h")
	t.Setenv("ZDOTDIR", "/z")
	t.Setenv("XDG_CONFIG_HOME", "")
	has := func(files []string, f string) bool { return slices.Contains(files, f) }
	bash := rcFiles("/bin/bash")
	for _, f := range []string{"/etc/profile", "/h/.profile", "/h/.bash_profile", "/h/.bashrc", "/etc/bash.bashrc", "/h/.nvm/alias/default"} {
		if !has(bash, f) {
			t.Errorf("bash: %s missing", f)
		}
	}
	if has(bash, "/z/.zshrc") || has(bash, "/h/.config/fish/config.fish") {
		t.Errorf("bash lists another shell's files: %q", bash)
	}
	if zsh := rcFiles("/usr/bin/zsh"); !has(zsh, "/z/.zshrc") || has(zsh, "/h/.zshrc") {
		t.Errorf("zsh: ZDOTDIR not honoured: %q", zsh)
	}
	if fish := rcFiles("/usr/bin/fish"); !has(fish, "/h/.config/fish/config.fish") || has(fish, "/h/.profile") {
		t.Errorf("fish: %q", fish)
	}
	other := rcFiles("/opt/odd-shell")
	for _, f := range []string{"/h/.bashrc", "/z/.zshrc", "/h/.config/fish/config.fish", "/h/.cshrc"} {
		if !has(other, f) {
			t.Errorf("an unknown shell: %s missing", f)
		}
	}
}

func TestStatFilesGlob(t *testing.T) {
	dir := t.TempDir()
	pattern := filepath.Join(dir, "*.sh")
	before := statFiles([]string{pattern})
	must(t, os.WriteFile(filepath.Join(dir, "new.sh"), nil, 0o644))
	if after := statFiles([]string{pattern}); slices.Equal(before, after) {
		t.Error("a file added to a sourced folder is not seen")
	}
}

func TestServeLoginEnvBadArgs(t *testing.T) {
	if code := ServeLoginEnv([]string{"-timeout", "x"}); code != 2 {
		t.Errorf("bad arguments: exit %d, want 2", code)
	}
	if code := ServeLoginEnv(nil); code != 2 {
		t.Errorf("no shell: exit %d, want 2", code)
	}
}

func TestLoginCachePrunesStaleFiles(t *testing.T) {
	cache := tempCache(t)
	old := filepath.Join(filepath.Dir(cache), "0123456789abcdef.json")
	must(t, os.MkdirAll(filepath.Dir(cache), 0o700))
	must(t, os.WriteFile(old, []byte("{}"), 0o600))
	long := time.Now().Add(-loginCacheKeep - time.Hour)
	must(t, os.Chtimes(old, long, long))
	must(t, writeLoginCache(cache, loginCache{Env: []string{}}))
	if fileExists(old) {
		t.Error("a cache file nothing rewrote for a week is still there")
	}
	if !fileExists(cache) {
		t.Error("the cache file just written was pruned")
	}
}

// Close ends every goroutine of the LoginEnv, a read in progress or not:
// the supervisor is a process of its own, not the helper's to wait for.
func TestLoginEnvCloseLeavesNoGoroutine(t *testing.T) {
	base := runtime.NumGoroutine()
	le, pids := startHanging(t, func(dir string) string { return hangingShell(t, dir) }, "shell.pid", "child.pid")
	closeWithin(t, le)
	waitFor(t, "the goroutines to end", func() bool { return runtime.NumGoroutine() <= base })
	for _, pid := range pids {
		waitGone(t, pid)
	}
}
