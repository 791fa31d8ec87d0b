//go:build unix

package platform

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestResolveDir(t *testing.T) {
	root, err := RealRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(root, "a", "b"), 0o755)
	os.Symlink(outside, filepath.Join(root, "escape"))
	os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "alias"))
	os.WriteFile(filepath.Join(root, "file"), nil, 0o644)
	for cwd, want := range map[string]string{
		"": root, ".": root, "a": filepath.Join(root, "a"), "a/b/..": filepath.Join(root, "a"),
		"alias/b": filepath.Join(root, "a", "b"), filepath.Join(root, "a"): filepath.Join(root, "a"),
	} {
		got, err := ResolveDir(root, cwd)
		if err != nil || got != want {
			t.Errorf("ResolveDir(%q) = %q, %v; want %q", cwd, got, err, want)
		}
	}
	for cwd, want := range map[string]error{
		"..": ErrOutsideRoot, "a/../..": ErrOutsideRoot, "/": ErrOutsideRoot, outside: ErrOutsideRoot,
		"escape": ErrOutsideRoot, "escape/": ErrOutsideRoot, "missing": ErrNotDir, "file": ErrNotDir,
	} {
		if _, err := ResolveDir(root, cwd); !errors.Is(err, want) {
			t.Errorf("ResolveDir(%q) error = %v, want %v", cwd, err, want)
		}
	}
}

func TestWithinIsNotAPrefixTest(t *testing.T) {
	if Within("/p/root", "/p/root2") || Within("/p/root", "/p") || !Within("/p/root", "/p/root/..x") {
		t.Fatal("Within must compare path elements, not strings")
	}
}

func TestMergeEnv(t *testing.T) {
	v := func(s string) *string { return &s }
	base := []string{"A=1", "PAGER=less", "HOME=/h", "LANG=fr_FR.UTF-8"}
	got := MergeEnv(base, false, DefaultsFor(base), map[string]*string{"HOME": nil, "B": v("x=y")})
	want := []string{"A=1", "B=x=y", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "LANG=fr_FR.UTF-8", "PAGER=cat", "TERM=xterm-256color"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	if got := MergeEnv(nil, false, DefaultsFor(nil)); !slices.Contains(got, "LANG=C.UTF-8") {
		t.Fatalf("no UTF-8 locale by default: %v", got)
	}
	folded := MergeEnv([]string{"Path=a"}, true, map[string]*string{"PATH": v("b")})
	if !slices.Equal(folded, []string{"Path=b"}) {
		t.Fatalf("case-folded merge: %v", folded)
	}
}

func TestParseSignal(t *testing.T) {
	for in, want := range map[string]Signal{"SIGTERM": SIGTERM, "term": SIGTERM, "KILL": SIGKILL, "SIGINT": SIGINT, "hup": SIGHUP} {
		if got, ok := ParseSignal(in); !ok || got != want {
			t.Errorf("ParseSignal(%q) = %v, %v", in, got, ok)
		}
	}
	if _, ok := ParseSignal("SIGSTOP"); ok {
		t.Error("SIGSTOP is not a signal hosts may send")
	}
}

func TestOverlayMatchesMergeEnv(t *testing.T) {
	v := func(s string) *string { return &s }
	base := MergeEnv([]string{"A=1", "B=2", "PATH=/bin", "C=3"}, false)
	layers := []map[string]*string{{"PATH": v("/shim:/bin"), "X": v("1")}, {"B": nil, "X": v("2"), "D": v("4")}}
	got := Overlay(base, false, layers...)
	want := MergeEnv(base, false, layers...)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("Overlay = %v\nMergeEnv = %v", got, want)
	}
	if got := Overlay(base, false); !slices.Equal(got, base) {
		t.Fatalf("no layers: %v", got)
	}
	folded := Overlay([]string{"Path=a", "x=1"}, true, map[string]*string{"PATH": v("b")})
	if !slices.Equal(folded, []string{"x=1", "PATH=b"}) {
		t.Fatalf("case-folded overlay: %v", folded)
	}
}
