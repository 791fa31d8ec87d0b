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

// LoginEnv is the user's login-shell environment: taken from the cache
// when nothing it depends on changed, else read in the background (see
// ServeLoginEnv), and read again when an rc file changes. Until one is
// there, Env is nil and commands use the helper's own environment; a slow
// or broken rc file is given up on (and logged), never waited for.
type LoginEnv struct {
	shell   string
	timeout time.Duration
	rcFiles []string
	poll    time.Duration
	cache   string // the cache file, "" for none

	mu      sync.Mutex
	env     []string
	version int  // counts the environments read, so users can cache
	fresh   bool // env came from a fresh cache: no shell to run at Start
	stamps  []fileStamp
	started bool
	closed  bool
	cancel  context.CancelFunc

	settled chan struct{} // closed once the first read has ended, ready or not
	done    chan struct{} // closed when the watcher has returned
}

// OpenLoginEnv gives the environment of shell (the user's $SHELL) run as a
// login, interactive shell: at once if the cache holds it fresh, else
// once Start has read it, giving up on a read after timeout. It starts
// nothing. An empty shell, or Windows, gives a LoginEnv that stays empty.
func OpenLoginEnv(shell string, timeout time.Duration) *LoginEnv {
	return openLoginEnv(shell, timeout, rcFiles(shell), loginEnvPoll, loginCachePath(shell))
}

func openLoginEnv(shell string, timeout time.Duration, rc []string, poll time.Duration, cache string) *LoginEnv {
	le := &LoginEnv{shell: shell, timeout: timeout, rcFiles: rc, poll: poll, cache: cache,
		settled: make(chan struct{}), done: make(chan struct{})}
	if shell == "" || runtime.GOOS == "windows" {
		le.closed = true // Start does nothing
		close(le.settled)
		close(le.done)
		return le
	}
	le.stamps = statFiles(rc)
	if env := readLoginCache(cache, shell, le.stamps, time.Now()); env != nil {
		le.env, le.version, le.fresh = env, 1, true
	}
	return le
}

// Start starts watching the rc files, and reads the environment unless the
// cache had it. It does nothing after Close, or a second time. log may be
// nil.
func (le *LoginEnv) Start(log *slog.Logger) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	le.mu.Lock()
	defer le.mu.Unlock()
	if le.started || le.closed {
		return
	}
	le.started = true
	ctx, cancel := context.WithCancel(context.Background())
	le.cancel = cancel
	go le.watch(ctx, log, le.stamps, le.fresh)
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

// Close stops the watcher and waits for it. A login shell already started
// is not ended: it runs its rc files to their end (or to its time limit)
// under its supervisor, which caches what it gives, since an rc file cut
// short can leave a lock behind that every later shell of the user waits
// on.
func (le *LoginEnv) Close() {
	le.mu.Lock()
	le.closed = true
	started, cancel := le.started, le.cancel
	le.mu.Unlock()
	if started {
		cancel()
		<-le.done
	}
}

// watch reads the environment unless fresh, then again whenever an rc
// file changes. The stamps are taken before a read, so that a change
// during it is seen.
func (le *LoginEnv) watch(ctx context.Context, log *slog.Logger, stamps []fileStamp, fresh bool) {
	defer close(le.done)
	if !fresh {
		stamps = statFiles(le.rcFiles)
		le.refresh(ctx, log)
	}
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
			le.refresh(ctx, log)
		}
	}
}

// refresh reads the environment once; a failure keeps the last one.
func (le *LoginEnv) refresh(ctx context.Context, log *slog.Logger) {
	env, err := le.supervise(ctx)
	if ctx.Err() != nil {
		return // closed
	}
	if errors.Is(err, errNotCached) {
		log.Info("login shell environment read, not cached", "err", err)
	} else if err != nil {
		log.Warn("login shell environment not read; commands use the helper's own", "shell", le.shell, "err", err)
		return
	}
	le.mu.Lock()
	le.env = env
	le.version++
	le.mu.Unlock()
	log.Debug("login shell environment read", "shell", le.shell, "vars", len(env))
}

// readLoginEnv runs shell as a login, interactive shell that prints its
// environment between two markers no rc file can print (they hold a random
// nonce), so that whatever the rc files print around it is ignored. At
// timeout, or when ctx ends, the shell's whole session is ended: it leads
// one of its own. It runs in the supervisor (see ServeLoginEnv).
func readLoginEnv(ctx context.Context, shell string, timeout time.Duration) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	nonce := rand.Text()
	begin, end := "__TERMHELPER_ENV_BEGIN_"+nonce+"__", "__TERMHELPER_ENV_END_"+nonce+"__"
	var out, errOut cappedBuffer
	out.max, errOut.max = 4<<20, 4<<10
	cmd := exec.CommandContext(ctx, shell, loginShellArgs(shell, envScript(begin, end))...)
	cmd.Env = append(withoutVar(os.Environ(), TagVar), LoginEnvResolvingVar+"=1")
	cmd.Dir = loginDir()
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.SysProcAttr = detachedAttr()
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

// loginDir is where the login shell starts: the home folder (else /),
// never the project, since rc files that source a file of the folder
// they start in (dotenv, autoenv) would run one a confined command wrote,
// outside the sandbox.
func loginDir() string {
	if home, err := os.UserHomeDir(); err == nil {
		if fi, err := os.Stat(home); err == nil && fi.IsDir() {
			return home
		}
	}
	return "/"
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
