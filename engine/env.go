package engine

import (
	"os"
	"strings"
	"sync"

	"github.com/termhelper/termhelper/platform"
)

// envCache is the base environment with the non-interactive defaults
// applied, rebuilt only when the base changes (the login shell's
// environment arrives or is re-read).
type envCache struct {
	static   []string // the helper's environment, read once
	mu       sync.Mutex
	src, out []string // the last base environment, and it prepared
}

// commandEnv layers, lowest first: the base environment, the
// non-interactive defaults, the rm shim, and the request's own variables.
func (e *Engine) commandEnv(command string, set map[string]*string) []string {
	base := e.preparedEnv()
	return platform.Overlay(base, platform.FoldEnvCase, e.shimEnv(base, command), set)
}

func (e *Engine) preparedEnv() []string {
	base := e.env.static
	if e.opts.BaseEnv != nil {
		base = e.opts.BaseEnv()
	}
	c := &e.env
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.out == nil || !sameSlice(base, c.src) {
		c.src = base
		c.out = platform.MergeEnv(base, platform.FoldEnvCase, platform.DefaultsFor(base))
	}
	return c.out
}

// sameSlice reports whether a and b are the same slice, not equal ones: a
// base environment is replaced, never changed in place.
func sameSlice(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func (e *Engine) shimEnv(base []string, command string) map[string]*string {
	if e.opts.ShimDir == "" || e.opts.TrashDir == "" {
		return nil
	}
	path := e.opts.ShimDir
	for _, kv := range base {
		if k, v, _ := strings.Cut(kv, "="); k == "PATH" && v != "" {
			path += string(os.PathListSeparator) + v
		}
	}
	return map[string]*string{"PATH": &path, "TERMHELPER_TRASH_DIR": &e.opts.TrashDir, "TERMHELPER_COMMAND": &command}
}
