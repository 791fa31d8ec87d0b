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
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
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
	// ErrOutside: the original path is outside the root, or a folder on
	// the way to it is now a symbolic link; Restore leaves it in the trash.
	ErrOutside = errors.New("trash: the original path is not inside the root")
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
	ID        string
	Path      string    // the absolute path it was deleted from
	DeletedAt time.Time // when
	Command   string    // the command line that deleted it
	Size      int64     // bytes of regular files, for a folder all of them
	IsDir     bool
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
		if !out[i].DeletedAt.Equal(out[j].DeletedAt) {
			return out[i].DeletedAt.After(out[j].DeletedAt)
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
	path, err := readMeta(filepath.Join(dir, "path"))
	if err != nil || len(path) == 0 {
		return Entry{}, fmt.Errorf("trash: entry %s has no path", id)
	}
	e := Entry{ID: id, Path: string(path), IsDir: fi.IsDir()}
	if b, err := readMeta(filepath.Join(dir, "time")); err == nil {
		e.DeletedAt, _ = time.Parse(time.RFC3339, strings.TrimSpace(string(b)))
	}
	if e.DeletedAt.IsZero() {
		e.DeletedAt = fi.ModTime()
	}
	if b, err := readMeta(filepath.Join(dir, "command")); err == nil {
		e.Command = string(b)
	}
	e.Size = size(filepath.Join(dir, "item"))
	return e, nil
}

// maxMeta bounds what is read of an entry's path, time and command.
const maxMeta = 64 << 10

// readMeta reads an entry's small file, which any command may have
// written: only a regular file, never through a link (the helper would
// read a secret for the host) nor a pipe (it would wait forever), and no
// more than maxMeta.
func readMeta(p string) ([]byte, error) {
	before, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, fmt.Errorf("trash: %s is not a regular file", p)
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0) // a pipe swapped in since: no wait
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if now, err := f.Stat(); err != nil || !os.SameFile(before, now) {
		return nil, fmt.Errorf("trash: %s changed while read", p)
	}
	return io.ReadAll(io.LimitReader(f, maxMeta))
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
// folders, and only inside root (a real path, see platform.RealRoot): the
// trash folder is written by the commands themselves, so the path an
// entry names is not trusted. The way down from root is walked a folder at
// a time without following a symbolic link, so a parent folder replaced
// by a link since the delete cannot send the item elsewhere. It refuses
// with ErrOutside for a path outside root or through a link, and with
// ErrExists when anything is at that path.
func Restore(trashDir, root, id string) (Entry, error) {
	return RestoreUnless(trashDir, root, id, nil)
}

// RestoreUnless is Restore, refusing with ErrOutside also an entry whose
// path (cleaned, inside root) refuse reports; nil refuses nothing. The
// path is checked as it is read for the restore itself, so a command
// cannot change the entry between the check and the move.
func RestoreUnless(trashDir, root, id string, refuse func(path string) bool) (Entry, error) {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`) {
		return Entry{}, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	e, err := read(trashDir, id)
	if err != nil {
		return Entry{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	rel, err := below(root, e.Path)
	if err != nil {
		return e, err
	}
	if refuse != nil && refuse(filepath.Join(root, rel)) {
		return e, fmt.Errorf("%w: %s is a protected path", ErrOutside, filepath.Join(root, rel))
	}
	if err := restoreBelow(filepath.Join(trashDir, id), root, rel); err != nil {
		return e, err
	}
	return e, removeAll(filepath.Join(trashDir, id))
}

// below returns path relative to root, refusing one that is not strictly
// inside it.
func below(root, path string) (string, error) {
	rel, err := filepath.Rel(root, path)
	if err != nil || !filepath.IsAbs(path) || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%w: %s is not inside %s", ErrOutside, path, root)
	}
	return rel, nil
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
		return now.Sub(e.DeletedAt) > maxAge
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
