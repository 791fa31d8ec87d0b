package engine

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
	opens   *opens // who opens them, made at the first listing
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
		c.files, c.opens = map[string]dotenvFile{}, newOpens()
	}
	entries, _ := os.ReadDir(root)
	for _, en := range entries {
		if isDotenv(en.Name()) && en.Type().IsRegular() {
			c.names = append(c.names, en.Name())
			c.opens.watch(root, en.Name())
		}
	}
}

// openedSince lists the .env files some process opened since snap (see
// opens); snap is nil before the first listing.
func (c *dotenvCache) openedSince(snap map[string]int) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.opens == nil {
		return nil
	}
	out := c.opens.since(snap)
	slices.Sort(out)
	return out
}

// openSnapshot is where the counts of opens stand now.
func (c *dotenvCache) openSnapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.opens == nil {
		return nil
	}
	return c.opens.snapshot()
}

// close stops watching the files.
func (c *dotenvCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.opens != nil {
		c.opens.close()
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
	if lst, err := os.Lstat(path); err != nil || lst.Mode()&fs.ModeSymlink != 0 {
		return nil // the helper reads only what it meant to, not a link's target
	}
	c.opens.selfOpen(name)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	f := dotenvFile{size: st.Size(), mod: st.ModTime(), values: mask.DotenvValues(data, names)}
	c.files[name] = f
	return f.values
}
