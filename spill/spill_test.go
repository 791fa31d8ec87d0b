package spill

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestDirIn(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir, err := DirIn(base)
	if err != nil {
		t.Fatal(err)
	}
	if dir != filepath.Join(base, DirName) {
		t.Errorf("dir = %s", dir)
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		t.Fatalf("stat %v", err)
	}
	if !unixModes {
		return
	}
	if fi.Mode().Perm() != 0o700 {
		t.Fatalf("mode %v", fi.Mode())
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := DirIn(base); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("mode not restored: %v", fi.Mode())
	}
}

// unixModes is whether files have Unix permission bits; on Windows the
// temporary folder is private by its ACL, and a mode shows only whether
// a file is read-only.
const unixModes = runtime.GOOS != "windows"

func TestLazy(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	l := NewFileIn(base, "sess/1 ..")
	if l.Path() != "" {
		t.Error("file created before Open")
	}
	if entries, _ := os.ReadDir(filepath.Join(base, DirName)); len(entries) != 0 {
		t.Error("file created before Open")
	}
	w, path, err := l.Open()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, "full output\n"); err != nil {
		t.Fatal(err)
	}
	w2, path2, err := l.Open()
	if err != nil || w2 != w || path2 != path {
		t.Errorf("second Open differs: %v %v", path2, err)
	}
	if filepath.Dir(path) != filepath.Join(base, DirName) || strings.ContainsAny(filepath.Base(path), "/ ") {
		t.Errorf("path %s", path)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "full output\n" {
		t.Errorf("file has %q, %v", b, err)
	}
	if fi, _ := os.Stat(path); unixModes && fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v", fi.Mode())
	}
	if _, _, err := l.Open(); err == nil {
		t.Error("Open after Close succeeded")
	}
	if err := l.Close(); err != nil {
		t.Error("second Close:", err)
	}
}

func TestLazyConcurrent(t *testing.T) {
	t.Parallel()
	l := NewFileIn(t.TempDir(), "c")
	defer l.Close()
	var wg sync.WaitGroup
	paths := make([]string, 8)
	for i := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, paths[i], _ = l.Open()
		}()
	}
	wg.Wait()
	for _, p := range paths {
		if p != paths[0] || p == "" {
			t.Fatalf("paths differ: %v", paths)
		}
	}
}

func TestCloseUnopened(t *testing.T) {
	t.Parallel()
	l := NewFileIn(t.TempDir(), "x")
	if err := l.Close(); err != nil {
		t.Error(err)
	}
	if _, _, err := l.Open(); err == nil {
		t.Error("Open after Close succeeded")
	}
}

func TestPruneIn(t *testing.T) {
	t.Parallel()
	dir, err := DirIn(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for name, age := range map[string]time.Duration{
		"old.txt":    8 * 24 * time.Hour,
		"recent.txt": time.Hour,
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := PruneIn(dir, 0, now); err != nil {
		t.Fatal(err)
	}
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if strings.Join(left, ",") != "recent.txt,sub" {
		t.Errorf("left %v", left)
	}
	if err := PruneIn(filepath.Join(dir, "missing"), time.Hour, now); err == nil {
		t.Error("PruneIn of a missing dir succeeded")
	}
}

func TestSafePrefix(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":         "output",
		"s-1":      "s-1",
		"../etc":   "_etc",
		"a b/c":    "a_b_c",
		"..hidden": "hidden",
	} {
		if got := safePrefix(in); got != want {
			t.Errorf("safePrefix(%q) = %q, want %q", in, got, want)
		}
	}
}
