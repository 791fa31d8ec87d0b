package engine

import (
	"os"
	"slices"
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
	names    []string // the names of the variables holding them
}

// commandEnv layers, lowest first: the base environment, the
// non-interactive defaults, the request's own variables, and the rm shim,
// whose variables win and whose folder stays first on PATH, so a request
// cannot point rm past the trash. It also returns the secret values of
// the base environment and of the request's variables, which the
// command's output must never show.
func (e *Engine) commandEnv(command string, set map[string]*string) ([]string, []string) {
	base, secrets := e.preparedEnv()
	env := platform.Overlay(base, platform.FoldEnvCase, set, e.shimEnv(base, set, command))
	return env, e.withRequestSecrets(secrets, set)
}

// withRequestSecrets adds the values of the request's variables that the
// helper's own environment would have masked: a host may pass a password
// (MYSQL_PWD, PGPASSWORD) or a token to one command.
func (e *Engine) withRequestSecrets(secrets []string, set map[string]*string) []string {
	if e.opts.Config.MaskEnvOff || len(set) == 0 {
		return secrets
	}
	var kvs []string
	for k, v := range set {
		if v != nil {
			kvs = append(kvs, k+"="+*v)
		}
	}
	more := mask.SecretValues(kvs, e.opts.Config.MaskEnv)
	if len(more) == 0 {
		return secrets
	}
	return slices.Concat(secrets, more)
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
		c.secrets, c.names = nil, nil
		if !e.opts.Config.MaskEnvOff {
			c.secrets = mask.SecretValues(base, e.opts.Config.MaskEnv)
			c.names = mask.SecretNames(c.out, e.opts.Config.MaskEnv)
		}
	}
	return c.out, c.secrets
}

// sameSlice reports whether a and b are the same slice, not equal ones: a
// base environment is replaced, never changed in place.
func sameSlice(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func (e *Engine) shimEnv(base []string, set map[string]*string, command string) map[string]*string {
	if e.opts.ShimDir == "" || e.opts.TrashDir == "" {
		return nil
	}
	path := e.opts.ShimDir
	if rest := searchPath(base, set); rest != "" {
		path += string(os.PathListSeparator) + rest
	}
	return map[string]*string{"PATH": &path, "TERMHELPER_TRASH_DIR": &e.opts.TrashDir, "TERMHELPER_COMMAND": &command}
}

// unsetPath is what follows the shim when a request unsets PATH: the
// folders a shell searches without one.
const unsetPath = "/usr/bin:/bin"

// searchPath is the PATH the command would have without the shim: the
// request's, else the base environment's.
func searchPath(base []string, set map[string]*string) string {
	for k, v := range set {
		if isPath(k) {
			if v == nil {
				return unsetPath
			}
			return *v
		}
	}
	for _, kv := range base {
		if k, v, _ := strings.Cut(kv, "="); isPath(k) {
			return v
		}
	}
	return ""
}

func isPath(name string) bool {
	return name == "PATH" || platform.FoldEnvCase && strings.EqualFold(name, "PATH")
}
