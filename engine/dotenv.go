package engine

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/termhelper/termhelper/mask"
)

// maxDotenv bounds the size of a .env file read for its values.
const maxDotenv = 64 << 10

// dotenvCache keeps the values of the project's .env files, read again
// only when the root's listing or a file has changed.
type dotenvCache struct {
	mu      sync.Mutex
	rootMod time.Time // the root folder's change time when names was listed
	names   []string
	files   map[string]dotenvFile
}

type dotenvFile struct {
	size   int64
	mod    time.Time
	values []string
}

// dotenvSecrets are the values to mask of the project's .env files, by
// file name: .env and .env.* in the root, but the examples a project
// commits (.env.example, .env.sample, .env.template, .env.dist). Nested
// ones (a monorepo's packages) are not read: the root alone is listed
// for each command. Off with mask_env = [].
func (e *Engine) dotenvSecrets() map[string][]string {
	if e.opts.Config.MaskEnvOff {
		return nil
	}
	c := &e.dotenv
	c.mu.Lock()
	defer c.mu.Unlock()
	c.list(e.opts.Root)
	out := map[string][]string{}
	for _, name := range c.names {
		if v := c.read(filepath.Join(e.opts.Root, name), name, e.opts.Config.MaskEnv); len(v) > 0 {
			out[name] = v
		}
	}
	return out
}

// list finds the .env files of root, when its listing has changed.
func (c *dotenvCache) list(root string) {
	st, err := os.Stat(root)
	if err != nil || st.ModTime().Equal(c.rootMod) && c.files != nil {
		return
	}
	c.rootMod, c.names = st.ModTime(), nil
	if c.files == nil {
		c.files = map[string]dotenvFile{}
	}
	entries, _ := os.ReadDir(root)
	for _, en := range entries {
		if isDotenv(en.Name()) && en.Type().IsRegular() {
			c.names = append(c.names, en.Name())
		}
	}
}

// isDotenv: .env, .env.local, .env.production..., not an example.
func isDotenv(name string) bool {
	if name != ".env" && !strings.HasPrefix(name, ".env.") {
		return false
	}
	for _, ex := range []string{".example", ".sample", ".template", ".dist"} {
		if strings.HasSuffix(name, ex) {
			return false
		}
	}
	return true
}

// read is the file's values, read again when its size or time changed.
func (c *dotenvCache) read(path, name string, names []string) []string {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxDotenv {
		return nil
	}
	if f, ok := c.files[name]; ok && f.size == st.Size() && f.mod.Equal(st.ModTime()) {
		return f.values
	}
	data, err := readSmall(path)
	if err != nil {
		return nil
	}
	f := dotenvFile{size: st.Size(), mod: st.ModTime(), values: mask.DotenvValues(data, names)}
	c.files[name] = f
	return f.values
}

// readSmall reads a regular file without following a link at its end
// (a .env that points at ~/.ssh/id_rsa would mask a key's lines, harmless,
// but the helper reads only what it meant to).
func readSmall(path string) ([]byte, error) {
	if st, err := os.Lstat(path); err != nil || st.Mode()&fs.ModeSymlink != 0 {
		return nil, fs.ErrInvalid
	}
	return os.ReadFile(path)
}
