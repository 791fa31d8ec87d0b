package platform

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Errors of ResolveDir; both mean "refuse before anything runs".
var (
	ErrOutsideRoot = errors.New("outside the root")
	ErrNotDir      = errors.New("not a directory")
)

// ResolveDir returns the real directory that cwd names, relative to root or
// absolute, with every symbolic link followed, and refuses one that is not
// inside root. root must itself be a real (symlink-free) absolute path.
func ResolveDir(root, cwd string) (string, error) {
	if cwd == "" {
		return root, nil
	}
	p := cwd
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	real, err := RealPath(p)
	if err != nil {
		return "", fmt.Errorf("cwd %q: %w", cwd, ErrNotDir)
	}
	if !PathWithin(root, real) {
		return "", fmt.Errorf("cwd %q resolves to %s: %w %s", cwd, real, ErrOutsideRoot, root)
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.IsDir() {
		return "", fmt.Errorf("cwd %q: %w", cwd, ErrNotDir)
	}
	return real, nil
}

// Within reports whether path is root or below it (both clean, absolute).
func Within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel))
}

// RealRoot makes dir absolute and follows its links, so that later checks
// compare real paths with real paths.
func RealRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := RealPath(abs)
	if err != nil {
		return "", fmt.Errorf("root %s: %w", dir, err)
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.IsDir() {
		return "", fmt.Errorf("root %s: %w", dir, ErrNotDir)
	}
	return real, nil
}
