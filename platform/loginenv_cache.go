package platform

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The login environment is cached per user, shell and home, so that a new
// helper starts no login shell at all while nothing it depends on changed.
// The cache is fresh while every file of the shell's list (rcFiles) has the
// modification time and size it had when the shell that filled the cache
// started, the PATH the shell would be given is the same (the rc files
// build on it), and it is younger than loginCacheMaxAge.

// loginCacheMaxAge bounds what no listed file tells: a tool's own state
// that an rc file reads (a conda environment, a version manager's plugin).
const loginCacheMaxAge = 24 * time.Hour

// loginCache is what the cache file holds.
type loginCache struct {
	Shell string      `json:"shell"`
	Home  string      `json:"home"`
	Path  string      `json:"path"` // the PATH the shell was given
	Files []fileStamp `json:"files"`
	Env   []string    `json:"env"` // what the rc files set: see setByRC
	Read  time.Time   `json:"read"`
}

// fileStamp is what tells that an rc file changed.
type fileStamp struct {
	Path    string `json:"path"`
	Exists  bool   `json:"exists"`
	ModTime int64  `json:"mtime"`
	Size    int64  `json:"size"`
}

// statFiles stamps paths, and the files that the patterns among them
// (a '*' in the name) match, so that a file dropped into a folder the
// rc files source (/etc/profile.d) is seen too.
func statFiles(paths []string) []fileStamp {
	var stamps []fileStamp
	for _, p := range paths {
		names := []string{p}
		if strings.Contains(filepath.Base(p), "*") {
			names, _ = filepath.Glob(p)
		}
		for _, name := range names {
			stamps = append(stamps, stampOf(name))
		}
	}
	return stamps
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{Path: path}
	}
	return fileStamp{path, true, fi.ModTime().UnixNano(), fi.Size()}
}

// loginCachePath is the cache file for shell and the current HOME, in a
// folder of the user's cache folder that only the user may enter; "" if
// there is none.
func loginCachePath(shell string) string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(shell + "\x00" + os.Getenv("HOME")))
	return filepath.Join(dir, "termhelper", "loginenv", hex.EncodeToString(sum[:8])+".json")
}

// readLoginCache returns the cached environment if the cache is fresh
// for shell and the rc files as they are now (stamps), or nil. A cache file or folder that
// someone else could have written is never trusted: the environment it
// holds decides which programs every command runs.
func readLoginCache(path, shell string, stamps []fileStamp, now time.Time) []string {
	if path == "" || !trusted(path) {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var c loginCache
	if json.Unmarshal(data, &c) != nil || !c.fresh(shell, stamps, now) {
		return nil
	}
	return c.Env
}

// trusted tells that nobody but the user can have written path: the file
// is theirs and theirs alone, in a folder only they may enter, whose own
// folder nobody else may change either.
func trusted(path string) bool {
	dir := filepath.Dir(path)
	return ownedBySelf(path, 0o077) && ownedBySelf(dir, 0o077) && ownedBySelf(filepath.Dir(dir), 0o022)
}

func (c *loginCache) fresh(shell string, stamps []fileStamp, now time.Time) bool {
	return c.Shell == shell && c.Home == os.Getenv("HOME") && c.Path == os.Getenv("PATH") &&
		c.Env != nil && now.Sub(c.Read) < loginCacheMaxAge && now.Sub(c.Read) > -time.Minute &&
		slices.Equal(c.Files, stamps)
}

// writeLoginCache replaces the cache file at once (write, then rename), in
// a folder only the user can enter, readable by the user alone: rc files
// export tokens too.
func writeLoginCache(path string, c loginCache) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if !ownedBySelf(dir, 0o077) || !ownedBySelf(filepath.Dir(dir), 0o022) {
		return &os.PathError{Op: "cache", Path: dir, Err: os.ErrPermission}
	}
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".loginenv-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	pruneLoginCache(dir, time.Now())
	return nil
}

// loginCacheKeep is how long a cache file that no helper rewrote is kept:
// a shell or home no longer used leaves its file behind.
const loginCacheKeep = 7 * 24 * time.Hour

// pruneLoginCache removes the files of dir that nothing rewrote for
// loginCacheKeep.
func pruneLoginCache(dir string, now time.Time) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && now.Sub(fi.ModTime()) > loginCacheKeep {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
