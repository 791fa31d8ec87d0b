package platform

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// The user's login environment: what their shell's rc files set up (PATH
// from nvm, mise, pyenv, Homebrew, a conda init). An editor started from
// a desktop launcher never ran those files, so neither did the helper it
// spawned; reading them once, as editors do, gives commands the PATH the
// user sees in a terminal.

// LoginEnvResolvingVar is set to "1" while the login shell runs, so that an
// rc file can skip slow or interactive work (as VSCODE_RESOLVING_ENVIRONMENT
// allows for VS Code).
const LoginEnvResolvingVar = "TERMHELPER_RESOLVING_ENVIRONMENT"

// loginEnvPoll is how often the rc files are looked at: a stat each, cheap.
const loginEnvPoll = 3 * time.Second

// LoginEnv is the user's login-shell environment, read in the background
// and read again when an rc file changes. Until a read succeeds, Env is
// nil and commands use the helper's own environment; a slow or broken rc
// file is given up on (and logged), never waited for.
type LoginEnv struct {
	shell   string
	timeout time.Duration
	log     *slog.Logger
	rcFiles []string
	poll    time.Duration

	mu      sync.Mutex
	env     []string
	version int // counts the environments read, so users can cache

	settled   chan struct{} // closed once the first read has ended, ready or not
	done      chan struct{} // closed when the watcher has returned
	cancel    context.CancelFunc
	closeOnce sync.Once
}

// StartLoginEnv starts reading the environment of shell (the user's
// $SHELL) run as a login, interactive shell, giving up on a read after
// timeout. An empty shell, or Windows, gives a LoginEnv that stays empty.
// log may be nil.
func StartLoginEnv(shell string, timeout time.Duration, log *slog.Logger) *LoginEnv {
	return startLoginEnv(shell, timeout, log, rcFiles(), loginEnvPoll)
}

func startLoginEnv(shell string, timeout time.Duration, log *slog.Logger, rc []string, poll time.Duration) *LoginEnv {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	le := &LoginEnv{shell: shell, timeout: timeout, log: log, rcFiles: rc, poll: poll,
		settled: make(chan struct{}), done: make(chan struct{}), cancel: cancel}
	if shell == "" || runtime.GOOS == "windows" {
		close(le.settled)
		close(le.done)
		return le
	}
	go le.watch(ctx)
	return le
}

// Env returns the login environment as "KEY=value" entries, or nil until
// one has been read.
func (le *LoginEnv) Env() []string {
	le.mu.Lock()
	defer le.mu.Unlock()
	return slices.Clone(le.env)
}

// Version counts the environments read so far: Env changes only when it
// does, so a caller may keep what it built from Env until then.
func (le *LoginEnv) Version() int {
	le.mu.Lock()
	defer le.mu.Unlock()
	return le.version
}

// Settled is closed once the first read has ended, with an environment
// or without one: what a one-shot run can wait for, briefly, before it
// starts its command.
func (le *LoginEnv) Settled() <-chan struct{} { return le.settled }

// Close stops the watcher, ending a read in progress, and waits for it.
func (le *LoginEnv) Close() {
	le.closeOnce.Do(func() {
		le.cancel()
		<-le.done
	})
}

// watch reads the environment, then again whenever an rc file changes.
// The stamps are taken before a read, so that a change during it is seen.
func (le *LoginEnv) watch(ctx context.Context) {
	defer close(le.done)
	stamps := statFiles(le.rcFiles)
	le.refresh(ctx)
	close(le.settled)
	tick := time.NewTicker(le.poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if now := statFiles(le.rcFiles); !slices.Equal(now, stamps) {
			stamps = now
			le.refresh(ctx)
		}
	}
}

// refresh reads the environment once; a failure keeps the last one.
func (le *LoginEnv) refresh(ctx context.Context) {
	env, err := readLoginEnv(ctx, le.shell, le.timeout)
	if ctx.Err() != nil {
		return // closed
	}
	if err != nil {
		le.log.Warn("login shell environment not read; commands use the helper's own", "shell", le.shell, "err", err)
		return
	}
	le.mu.Lock()
	le.env = env
	le.version++
	le.mu.Unlock()
	le.log.Debug("login shell environment read", "shell", le.shell, "vars", len(env))
}

// fileStamp is what tells that an rc file changed.
type fileStamp struct {
	exists  bool
	modTime int64
	size    int64
}

func statFiles(paths []string) []fileStamp {
	stamps := make([]fileStamp, len(paths))
	for i, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			stamps[i] = fileStamp{true, fi.ModTime().UnixNano(), fi.Size()}
		}
	}
	return stamps
}

// rcFiles are the files whose change means the login environment may have
// changed.
func rcFiles() []string {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil
	}
	files := []string{".profile", ".bash_profile", ".bash_login", ".bashrc",
		".zshenv", ".zprofile", ".zshrc", ".zlogin", ".config/fish/config.fish"}
	for i, f := range files {
		files[i] = filepath.Join(home, f)
	}
	if zdot := os.Getenv("ZDOTDIR"); zdot != "" && zdot != home {
		for _, f := range []string{".zshenv", ".zprofile", ".zshrc", ".zlogin"} {
			files = append(files, filepath.Join(zdot, f))
		}
	}
	return files
}

// readLoginEnv runs shell as a login, interactive shell that prints its
// environment between two markers no rc file can print (they hold a random
// nonce), so that whatever the rc files print around it is ignored. At
// timeout, or when ctx ends, the shell's whole session is killed: it leads
// one of its own.
func readLoginEnv(ctx context.Context, shell string, timeout time.Duration) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	nonce := rand.Text()
	begin, end := "__TERMHELPER_ENV_BEGIN_"+nonce+"__", "__TERMHELPER_ENV_END_"+nonce+"__"
	var out, errOut cappedBuffer
	out.max, errOut.max = 4<<20, 4<<10
	cmd := exec.CommandContext(ctx, shell, loginShellArgs(shell, envScript(begin, end))...)
	cmd.Env = append(os.Environ(), LoginEnvResolvingVar+"=1")
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.SysProcAttr = sysProcAttr(false)
	cmd.Cancel = func() error {
		// SIGTERM first: rc files run tools that hold lock files (pyenv
		// rehash does) and clean up in an exit trap, which SIGKILL skips,
		// leaving every later login shell waiting on a stale lock.
		KillTree(cmd.Process.Pid, "", SIGTERM, loginKillGrace)
		return nil
	}
	// A child that keeps the output open (an agent an rc file started)
	// must not hold the read past the shell's end.
	cmd.WaitDelay = 500 * time.Millisecond
	runErr := Run(cmd)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, fmt.Errorf("%s gave no environment within %v: killed", shell, timeout)
	}
	if env := parseEnvOutput(out.Bytes(), begin, end); env != nil {
		return env, nil
	}
	return nil, fmt.Errorf("%s printed no environment (%v): %s", shell, runErr, strings.TrimSpace(errOut.String()))
}

// loginKillGrace is how long a login shell being ended has to run its
// exit traps before SIGKILL.
const loginKillGrace = time.Second

// envScript prints the environment, NUL-separated so that values may hold
// newlines, between the markers. It is plain enough for sh, bash, zsh,
// fish and csh alike.
func envScript(begin, end string) string {
	return "printf '%s' '" + begin + "'; env -0; printf '%s' '" + end + "'"
}

// loginShellArgs makes shell a login, interactive shell: interactive for
// the rc files (.bashrc, .zshrc) that nvm and conda write to, login for the
// profile files. csh and tcsh take -l only alone, so they get -i.
func loginShellArgs(shell, script string) []string {
	switch filepath.Base(shell) {
	case "csh", "tcsh":
		return []string{"-i", "-c", script}
	}
	return []string{"-l", "-i", "-c", script}
}

// loginOnlyVars are set by the shell for itself, not by the user's files.
var loginOnlyVars = map[string]bool{
	"_": true, "PWD": true, "OLDPWD": true, "SHLVL": true,
	LoginEnvResolvingVar: true, TagVar: true,
}

// parseEnvOutput returns the entries printed between the markers, or nil
// if they are not both there.
func parseEnvOutput(out []byte, begin, end string) []string {
	i := bytes.Index(out, []byte(begin))
	if i < 0 {
		return nil
	}
	rest := out[i+len(begin):]
	j := bytes.Index(rest, []byte(end))
	if j < 0 {
		return nil
	}
	var env []string
	for _, entry := range strings.Split(string(rest[:j]), "\x00") {
		name, _, ok := strings.Cut(entry, "=")
		if ok && name != "" && !loginOnlyVars[name] {
			env = append(env, entry)
		}
	}
	return env
}

// cappedBuffer keeps the first max bytes written to it and drops the rest,
// so a runaway rc file cannot fill the helper's memory.
type cappedBuffer struct {
	bytes.Buffer
	max int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// MergeLoginEnv puts the login environment under the helper's own (own,
// usually os.Environ()): a variable set in both keeps the helper's value,
// except PATH, which is the login shell's with the helper's own directories
// kept (see mergePath). With no login environment, own is returned as is.
func MergeLoginEnv(own, login []string) []string {
	if len(login) == 0 {
		return own
	}
	vals := map[string]string{}
	for _, kv := range login {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			vals[k] = v
		}
	}
	loginPath, hasLoginPath := vals["PATH"]
	for _, kv := range own {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			vals[k] = v
		}
	}
	if hasLoginPath {
		vals["PATH"] = mergePath(vals["PATH"], loginPath)
	}
	out := make([]string, 0, len(vals))
	for k, v := range vals {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// mergePath joins the helper's PATH (own) and the login shell's. The login
// order wins, since a desktop launcher's PATH puts /usr/bin before the
// directories that nvm or Homebrew add; but directories of own that come
// before any directory the login PATH has (a virtualenv activated in the
// terminal the editor was started from) stay in front, and its others go
// after. Empty entries, which would mean the current directory, are
// dropped.
func mergePath(own, login string) string {
	sep := string(os.PathListSeparator)
	loginDirs := strings.Split(login, sep)
	inLogin := map[string]bool{}
	for _, d := range loginDirs {
		inLogin[d] = true
	}
	var front, back []string
	shared := false
	for _, d := range strings.Split(own, sep) {
		switch {
		case inLogin[d]:
			shared = true
		case shared:
			back = append(back, d)
		default:
			front = append(front, d)
		}
	}
	var dirs []string
	seen := map[string]bool{"": true}
	for _, d := range slices.Concat(front, loginDirs, back) {
		if !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	return strings.Join(dirs, sep)
}
