package main

import (
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/termhelper/termhelper/platform"
)

// loginTimeout is how long the login shell may take over its rc files.
const loginTimeout = 10 * time.Second

// lazyLogin is the login shell's environment under the helper's own: the
// cached one from the first command if it is fresh, else the helper's own
// until start has read it; merged again only when the login environment is
// (re)read.
type lazyLogin struct {
	mu     sync.Mutex
	own    []string
	env    *platform.LoginEnv
	closed bool
	seen   int
	merged []string
}

// open takes the cached environment, starting nothing; l.mu is held.
func (l *lazyLogin) open() {
	if l.env == nil {
		l.own = os.Environ()
		l.env = platform.OpenLoginEnv(os.Getenv("SHELL"), loginTimeout)
		l.seen = -1
	}
}

// start reads the login environment in the background, unless the cache
// had it, and watches the rc files; after close it does nothing, so a
// start that comes late (the helper's input ended at once) leaves nothing
// running.
func (l *lazyLogin) start(log *slog.Logger) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.open()
	l.env.Start(log)
}

func (l *lazyLogin) base() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open()
	if v := l.env.Version(); v != l.seen {
		l.seen, l.merged = v, platform.MergeLoginEnv(l.own, l.env.Env())
	}
	return l.merged
}

// close stops watching; a login shell already started finishes on its own
// (see platform.ServeLoginEnv).
func (l *lazyLogin) close() {
	l.mu.Lock()
	l.closed = true
	env := l.env
	l.mu.Unlock()
	if env != nil {
		env.Close()
	}
}
