// Package trash keeps what commands delete. termhelper puts a small rm
// script first on PATH for the commands it runs; that rm moves its operands
// into a per-project trash folder instead of deleting them, and this package
// lists, restores and prunes what is there.
//
// Each trash entry is a folder named by its id, holding the moved file or
// folder as "item" and three small files: "path" (the absolute original
// path), "time" (RFC 3339, UTC) and "command" (the command line that
// deleted it). Only what meets the rm on PATH is kept: /bin/rm, "command -p
// rm", unlink(2) from programs, and deletes by other tools (git clean, a
// build tool's clean step) are out of its reach.
package trash

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

// MaxAge is how long entries are kept before Prune drops them.
const MaxAge = 7 * 24 * time.Hour

var (
	// ErrExists: something is already at the path an entry would go back
	// to; Restore never overwrites.
	ErrExists = errors.New("trash: the original path exists")
	// ErrNotFound: no entry has that id.
	ErrNotFound = errors.New("trash: no such entry")
)

//go:embed rm.sh
var rmScript []byte

// Shim installs the rm script in dir (idempotently, atomically, so that
// several helpers may install it at once) and returns dir, to be put first
// on PATH. Commands must get TERMHELPER_TRASH_DIR (Dir's result) and
// TERMHELPER_COMMAND in their environment; without the first, the script
// runs the real rm.
func Shim(dir string) (string, error) {
	if runtime.GOOS == "windows" {
		return "", fmt.Errorf("trash: rm shim: %w", errors.ErrUnsupported)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("trash: %w", err)
	}
	target := filepath.Join(dir, "rm")
	if cur, err := os.ReadFile(target); err == nil && string(cur) == string(rmScript) {
		if fi, err := os.Stat(target); err == nil && fi.Mode().Perm()&0o111 != 0 {
			return dir, nil
		}
	}
	tmp, err := os.CreateTemp(dir, ".rm-*")
	if err != nil {
		return "", fmt.Errorf("trash: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(rmScript)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o755)); err != nil {
		return "", fmt.Errorf("trash: %w", err)
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return "", fmt.Errorf("trash: %w", err)
	}
	return dir, nil
}

// Dir is the trash folder of root: os.UserCacheDir()/termhelper/trash/ and
// a hash of the root, so that projects never mix. It is created if needed.
func Dir(root string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("trash: %w", err)
	}
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	dir := filepath.Join(cache, "termhelper", "trash", hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("trash: %w", err)
	}
	// A note for people who look inside: which project this is.
	rootFile := filepath.Join(dir, "ROOT")
	if _, err := os.Stat(rootFile); errors.Is(err, fs.ErrNotExist) {
		os.WriteFile(rootFile, []byte(root+"\n"), 0o600)
	}
	return dir, nil
}

// Entry is one deleted file or folder.
type Entry struct {
	ID           string
	OriginalPath string
	Time         time.Time
	Command      string
	Size         int64 // bytes of regular files, for a folder all of them
	IsDir        bool
}

// List returns the complete entries of trashDir, newest first. Entries an
// interrupted rm left without an item are skipped (Prune removes them).
func List(trashDir string) ([]Entry, error) {
	des, err := os.ReadDir(trashDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trash: %w", err)
	}
	var out []Entry
	for _, de := range des {
		if !de.IsDir() {
			continue
		}
		if e, err := read(trashDir, de.Name()); err == nil {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Time.Equal(out[j].Time) {
			return out[i].Time.After(out[j].Time)
		}
		return out[i].ID > out[j].ID
	})
	return out, nil
}

// read loads one entry; it fails for incomplete ones.
func read(trashDir, id string) (Entry, error) {
	dir := filepath.Join(trashDir, id)
	fi, err := os.Lstat(filepath.Join(dir, "item"))
	if err != nil {
		return Entry{}, err
	}
	path, err := os.ReadFile(filepath.Join(dir, "path"))
	if err != nil || len(path) == 0 {
		return Entry{}, fmt.Errorf("trash: entry %s has no path", id)
	}
	e := Entry{ID: id, OriginalPath: string(path), IsDir: fi.IsDir()}
	if b, err := os.ReadFile(filepath.Join(dir, "time")); err == nil {
		e.Time, _ = time.Parse(time.RFC3339, strings.TrimSpace(string(b)))
	}
	if e.Time.IsZero() {
		e.Time = fi.ModTime()
	}
	if b, err := os.ReadFile(filepath.Join(dir, "command")); err == nil {
		e.Command = string(b)
	}
	e.Size = size(filepath.Join(dir, "item"))
	return e, nil
}

func size(p string) int64 {
	var n int64
	filepath.WalkDir(p, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// Restore puts entry id back where it was, recreating missing parent
// folders. It refuses with ErrExists when anything is at that path.
func Restore(trashDir, id string) (Entry, error) {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`) {
		return Entry{}, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	e, err := read(trashDir, id)
	if err != nil {
		return Entry{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if _, err := os.Lstat(e.OriginalPath); err == nil {
		return e, fmt.Errorf("%w: %s", ErrExists, e.OriginalPath)
	}
	if err := os.MkdirAll(filepath.Dir(e.OriginalPath), 0o755); err != nil {
		return e, fmt.Errorf("trash: %w", err)
	}
	if err := moveNoReplace(filepath.Join(trashDir, id, "item"), e.OriginalPath); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return e, fmt.Errorf("%w: %s", ErrExists, e.OriginalPath)
		}
		return e, fmt.Errorf("trash: restore %s: %w", id, err)
	}
	return e, removeAll(filepath.Join(trashDir, id))
}

// Prune removes entries older than maxAge, and entries an interrupted rm
// left incomplete once they are an hour old.
func Prune(trashDir string, maxAge time.Duration) error {
	des, err := os.ReadDir(trashDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("trash: %w", err)
	}
	var errs []error
	now := time.Now()
	for _, de := range des {
		if !de.IsDir() {
			continue
		}
		if stale(trashDir, de, now, maxAge) {
			errs = append(errs, removeAll(filepath.Join(trashDir, de.Name())))
		}
	}
	return errors.Join(errs...)
}

func stale(trashDir string, de fs.DirEntry, now time.Time, maxAge time.Duration) bool {
	if e, err := read(trashDir, de.Name()); err == nil {
		return now.Sub(e.Time) > maxAge
	}
	fi, err := de.Info()
	return err == nil && now.Sub(fi.ModTime()) > time.Hour
}

// removeAll is os.RemoveAll that also gets through read-only folders (a Go
// module cache, a git object store), which rm -rf handles and mv moved.
func removeAll(p string) error {
	if err := os.RemoveAll(p); err == nil {
		return nil
	}
	filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(q, 0o700)
		}
		return nil
	})
	return os.RemoveAll(p)
}
