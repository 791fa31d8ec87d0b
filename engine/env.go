package engine

import (
	"os"
	"strings"
	"sync"

	"github.com/termhelper/termhelper/mask"
	"github.com/termhelper/termhelper/platform"
)

// envCache is the base environment with the non-interactive defaults
// applied, rebuilt only when the base changes (the login shell's
// environment arrives or is re-read).
type envCache struct {
	static   []string // the helper's environment, read once
	mu       sync.Mutex
	src, out []string // the last base environment, and it prepared
	secrets  []string // the values in it that are masked wherever printed
}

// commandEnv layers, lowest first: the base environment, the
// non-interactive defaults, the rm shim, and the request's own variables.
// It also returns the secret values of the base environment, which the
// command's output must never show.
func (e *Engine) commandEnv(command string, set map[string]*string) ([]string, []string) {
	base, secrets := e.preparedEnv()
	return platform.Overlay(base, platform.FoldEnvCase, e.shimEnv(base, command), set), secrets
}

func (e *Engine) preparedEnv() ([]string, []string) {
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
		c.secrets = nil
		if !e.opts.Config.MaskEnvOff {
			c.secrets = mask.SecretValues(base, e.opts.Config.MaskEnv)
		}
	}
	return c.out, c.secrets
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
