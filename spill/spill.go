// Package spill keeps the full cleaned output of commands whose output was
// cut, in files under a private folder of the temporary directory, and
// prunes old ones.
//
// The functions taking a base directory exist so tests can use their own
// folder; the others use os.TempDir().
package spill

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// DirName is the folder, under the temporary directory, that holds spills.
// When another user holds that name, DirName-<uid> is used instead (see
// DirIn).
const DirName = "termhelper-spill"

// DefaultMaxAge is how long spill files are kept.
const DefaultMaxAge = 7 * 24 * time.Hour

// Dir returns the user's spill folder in os.TempDir() (see DirIn).
func Dir() (string, error) { return DirIn(os.TempDir()) }

// DirIn returns a spill folder in base that is the user's own: a real
// directory (not a symbolic link), owned by this user, mode 0700. The
// temporary directory is shared, so base/termhelper-spill may have been
// made first by someone else, to make spills fail or to read them; then
// base/termhelper-spill-<uid> is tried, and as a last resort a fresh
// folder from os.MkdirTemp, kept for the rest of the process. A folder
// another user owns is never used.
func DirIn(base string) (string, error) {
	dir := filepath.Join(base, DirName)
	first := own(dir)
	if first == nil {
		return dir, nil
	}
	if tag := userTag(); tag != "" {
		dir = filepath.Join(base, DirName+"-"+tag)
		if own(dir) == nil {
			return dir, nil
		}
	}
	return fallbackDir(base, first)
}

// own makes dir if it is missing and reports whether it is a private
// folder of this user, making it private (0700) when it is ours but open.
func own(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("spill dir: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("spill dir: %w", err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("spill dir %s: a symbolic link", dir)
	case !fi.IsDir():
		return fmt.Errorf("spill dir %s: not a directory", dir)
	case !ownedByMe(fi):
		return fmt.Errorf("spill dir %s: owned by another user", dir)
	}
	if !private(fi) {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("spill dir: %w", err)
		}
	}
	return nil
}

// fallbacks remembers the fresh folder made for a base whose usual names
// are taken, so one process spills into one folder, not one per file.
var fallbacks = struct {
	sync.Mutex
	dirs map[string]string
}{dirs: map[string]string{}}

func fallbackDir(base string, why error) (string, error) {
	fallbacks.Lock()
	defer fallbacks.Unlock()
	if dir, ok := fallbacks.dirs[base]; ok && own(dir) == nil {
		return dir, nil
	}
	dir, err := os.MkdirTemp(base, DirName+"-"+userTag()+"-*")
	if err != nil {
		return "", fmt.Errorf("%w; spill dir: %w", why, err)
	}
	if err := own(dir); err != nil {
		return "", err
	}
	fallbacks.dirs[base] = dir
	return dir, nil
}

// Prune removes spill files older than maxAge (DefaultMaxAge if maxAge is
// not positive) from Dir().
func Prune(maxAge time.Duration) error {
	dir, err := Dir()
	if err != nil {
		return err
	}
	return PruneIn(dir, maxAge, time.Now())
}

// PruneIn removes the regular files in dir last modified before
// now-maxAge. It goes on past a file it cannot remove and returns the
// first such error.
func PruneIn(dir string, maxAge time.Duration, now time.Time) error {
	if maxAge <= 0 {
		maxAge = DefaultMaxAge
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("prune spills: %w", err)
	}
	var first error
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || now.Sub(info.ModTime()) <= maxAge {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && first == nil {
			first = fmt.Errorf("prune spills: %w", err)
		}
	}
	return first
}

// Lazy is a spill file created on first use. Its Open method fits
// cleaner.Options.Spill, so output that is never cut never makes a file.
// It is safe for concurrent use.
type Lazy struct {
	mu     sync.Mutex
	base   string // "" means os.TempDir()
	prefix string
	f      *os.File
	path   string
	err    error
	closed bool
	capped capped
}

// NewFile returns a lazy spill file in Dir() whose name starts with prefix.
func NewFile(prefix string) *Lazy { return NewFileIn("", prefix) }

// NewFileIn is NewFile with base in place of the temporary directory.
func NewFileIn(base, prefix string) *Lazy {
	return &Lazy{base: base, prefix: prefix, capped: capped{max: MaxBytes, head: HeadBytes}}
}

// Open creates the file on the first call and returns the writer to it
// (the Lazy itself, which holds it under MaxBytes) and its path; later
// calls return the same.
func (l *Lazy) Open() (io.Writer, string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil && l.err == nil {
		l.f, l.err = l.create()
		if l.f != nil {
			l.path = l.f.Name()
		}
	}
	if l.err != nil {
		return nil, "", l.err
	}
	return l, l.path, nil
}

func (l *Lazy) create() (*os.File, error) {
	if l.closed {
		return nil, errors.New("spill file closed")
	}
	base := l.base
	if base == "" {
		base = os.TempDir()
	}
	dir, err := DirIn(base)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, safePrefix(l.prefix)+"-*.txt")
	if err != nil {
		return nil, fmt.Errorf("spill file: %w", err)
	}
	return f, nil
}

// safePrefix keeps a caller's prefix (a session id, say) to one harmless
// file name component.
func safePrefix(p string) string {
	p = strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, p)
	p = strings.TrimLeft(p, ".")
	if p == "" {
		p = "output"
	}
	return p[:min(len(p), 64)]
}

// Path returns the file's path, or "" if it was never created.
func (l *Lazy) Path() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.path
}

// Close closes the file if it was created; the file stays on disk until
// pruned. Open fails after Close.
func (l *Lazy) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	if l.err == nil {
		l.err = errors.New("spill file closed")
	}
	return err
}
