package trash

import (
	"bytes"
	"crypto/rand"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// env is a project folder, its trash and the shim, for running real sh.
type env struct {
	t                    *testing.T
	proj, trash, shimDir string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the rm shim is a POSIX sh script")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	base := t.TempDir()
	base, _ = filepath.EvalSymlinks(base) // macOS: /var is /private/var
	e := &env{t: t, proj: filepath.Join(base, "proj"), trash: filepath.Join(base, "trash")}
	if err := os.Mkdir(e.proj, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := Shim(filepath.Join(base, "shim"))
	if err != nil {
		t.Fatal(err)
	}
	e.shimDir = dir
	return e
}

// sh runs command in the project with the shim first on PATH, as the
// helper does, and returns its combined output and exit code.
func (e *env) sh(command string, extraEnv ...string) (string, int) {
	e.t.Helper()
	c := exec.Command("sh", "-c", command)
	c.Dir = e.proj
	c.Env = append(os.Environ(),
		"PATH="+e.shimDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"TERMHELPER_TRASH_DIR="+e.trash,
		"TERMHELPER_COMMAND="+command)
	c.Env = append(c.Env, extraEnv...)
	out, err := c.CombinedOutput()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return string(out), code
}

func (e *env) write(rel string, data []byte) {
	e.t.Helper()
	p := filepath.Join(e.proj, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) exists(rel string) bool {
	_, err := os.Lstat(filepath.Join(e.proj, rel))
	return err == nil
}

func (e *env) list() []Entry {
	e.t.Helper()
	l, err := List(e.trash)
	if err != nil {
		e.t.Fatal(err)
	}
	return l
}

func randomBytes(t *testing.T, n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

func TestRmRestoreRoundTrip(t *testing.T) {
	e := newEnv(t)
	files := map[string][]byte{
		"build/a.txt":       []byte("hello\n"),
		"build/sub/b.bin":   randomBytes(t, 70000),
		"build/sub/.hidden": {},
	}
	for rel, data := range files {
		e.write(rel, data)
	}
	if out, code := e.sh("rm -rf build"); code != 0 || out != "" {
		t.Fatalf("rm -rf build: exit %d, %q", code, out)
	}
	if e.exists("build") {
		t.Fatal("build is still there")
	}
	l := e.list()
	if len(l) != 1 {
		t.Fatalf("entries: %+v", l)
	}
	en := l[0]
	if en.Path != filepath.Join(e.proj, "build") || !en.IsDir || en.Command != "rm -rf build" ||
		en.Size != 6+70000 || time.Since(en.DeletedAt) > time.Minute {
		t.Fatalf("entry: %+v", en)
	}
	if _, err := Restore(e.trash, e.proj, en.ID); err != nil {
		t.Fatal(err)
	}
	for rel, want := range files {
		got, err := os.ReadFile(filepath.Join(e.proj, rel))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s not restored byte for byte (%v)", rel, err)
		}
	}
	if len(e.list()) != 0 {
		t.Fatal("a restored entry must leave the trash")
	}
	if _, err := Restore(e.trash, e.proj, en.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("restoring twice: %v", err)
	}

	// Delete again, put something new in its place: restore refuses.
	e.sh("rm -rf build")
	e.write("build/new.txt", []byte("new"))
	id := e.list()[0].ID
	if _, err := Restore(e.trash, e.proj, id); !errors.Is(err, ErrExists) {
		t.Fatalf("restore over an existing path: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(e.proj, "build/new.txt")); string(got) != "new" {
		t.Fatal("the refused restore touched the new file")
	}
	if len(e.list()) != 1 {
		t.Fatal("a refused restore must keep the entry")
	}
}

func TestRestoreRecreatesParents(t *testing.T) {
	e := newEnv(t)
	e.write("a/b/c.txt", []byte("c"))
	e.sh("rm a/b/c.txt && rm -r a")
	l := e.list()
	if len(l) != 2 {
		t.Fatalf("entries: %+v", l)
	}
	var file Entry
	for _, en := range l {
		if !en.IsDir {
			file = en
		}
	}
	if _, err := Restore(e.trash, e.proj, file.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(e.proj, "a/b/c.txt")); string(got) != "c" {
		t.Fatal("file not back under recreated folders")
	}
}

func TestXargsAndChildScriptsMeetTheShim(t *testing.T) {
	e := newEnv(t)
	for _, f := range []string{"x1", "x2", "s1", "f1.tmp", "f2.tmp"} {
		e.write(f, []byte(f))
	}
	e.write("clean.sh", []byte("rm s1\n"))
	if out, code := e.sh("printf 'x1\\nx2\\n' | xargs rm && sh clean.sh && find . -name '*.tmp' -exec rm {} +"); code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	if n := len(e.list()); n != 5 {
		t.Fatalf("want 5 entries, got %d", n)
	}
	for _, f := range []string{"x1", "x2", "s1", "f1.tmp"} {
		if e.exists(f) {
			t.Errorf("%s still there", f)
		}
	}
}

func TestRmMessagesAndStatus(t *testing.T) {
	e := newEnv(t)
	e.write("dir/f", []byte("f"))
	e.write("-weird", []byte("w"))
	os.Mkdir(filepath.Join(e.proj, "empty"), 0o755)
	cases := []struct {
		cmd      string
		code     int
		contains string
	}{
		{"rm nope", 1, "rm: cannot remove 'nope': No such file or directory"},
		{"rm -f nope", 0, ""},
		{"rm -rf nope other", 0, ""},
		{"rm dir", 1, "rm: cannot remove 'dir': Is a directory"},
		{"rm -d dir", 1, "Directory not empty"},
		{"rm -d empty", 0, ""},
		{"rm", 1, "rm: missing operand"},
		{"rm -f", 0, ""},
		{"rm -z x", 1, "invalid option -- 'z'"},
		{"rm --bogus x", 1, "unrecognized option '--bogus'"},
		{"rm -rf .", 1, "refusing to remove '.' or '..'"},
		{"rm -- -weird", 0, ""},
		{"rm -v nope2 -f", 0, ""},
	}
	for _, c := range cases {
		out, code := e.sh(c.cmd)
		if code != c.code || c.contains == "" && out != "" || !strings.Contains(out, c.contains) {
			t.Errorf("%s: exit %d, %q; want exit %d with %q", c.cmd, code, out, c.code, c.contains)
		}
	}
	if !e.exists("dir/f") {
		t.Fatal("rm dir without -r must leave it")
	}
	if e.exists("-weird") || e.exists("empty") {
		t.Fatal("rm -- -weird / rm -d empty did not remove")
	}
}

func TestRmMovesSymlinkNotTarget(t *testing.T) {
	e := newEnv(t)
	e.write("target", []byte("t"))
	os.Symlink("target", filepath.Join(e.proj, "link"))
	os.Symlink("missing", filepath.Join(e.proj, "dangling"))
	if out, code := e.sh("rm link dangling"); code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	if !e.exists("target") || e.exists("link") || e.exists("dangling") {
		t.Fatal("rm of a link must move the link only")
	}
}

// TestRealRmOutOfReach documents the shim's limit: a path to the real rm
// deletes for good. It also checks that without TERMHELPER_TRASH_DIR the
// shim behaves as the real rm.
func TestRealRmOutOfReach(t *testing.T) {
	e := newEnv(t)
	e.write("gone", []byte("x"))
	e.write("gone2", []byte("x"))
	real := "/bin/rm"
	if _, err := os.Stat(real); err != nil {
		real = "/usr/bin/rm"
	}
	e.sh(real + " gone")
	e.sh("rm gone2", "TERMHELPER_TRASH_DIR=")
	if e.exists("gone") || e.exists("gone2") || len(e.list()) != 0 {
		t.Fatal("the real rm deletes without trash")
	}
}

func TestPrune(t *testing.T) {
	e := newEnv(t)
	e.write("old", []byte("o"))
	e.write("new", []byte("n"))
	e.sh("rm old new")
	l := e.list()
	for _, en := range l {
		if strings.HasSuffix(en.Path, "old") {
			past := time.Now().Add(-8 * 24 * time.Hour).UTC().Format(time.RFC3339)
			os.WriteFile(filepath.Join(e.trash, en.ID, "time"), []byte(past+"\n"), 0o600)
		}
	}
	// An entry an interrupted rm left without its item, two hours old.
	broken := filepath.Join(e.trash, "broken")
	os.Mkdir(broken, 0o700)
	os.Chtimes(broken, time.Now().Add(-2*time.Hour), time.Now().Add(-2*time.Hour))
	// A read-only folder inside an entry must not stop pruning.
	os.MkdirAll(filepath.Join(e.proj, "ro/sub"), 0o755)
	e.sh("chmod 555 ro/sub && rm -r ro")
	for _, en := range e.list() {
		if strings.HasSuffix(en.Path, "/ro") {
			past := time.Now().Add(-30 * 24 * time.Hour).UTC().Format(time.RFC3339)
			os.WriteFile(filepath.Join(e.trash, en.ID, "time"), []byte(past), 0o600)
		}
	}
	if err := Prune(e.trash, MaxAge); err != nil {
		t.Fatal(err)
	}
	l = e.list()
	if len(l) != 1 || !strings.HasSuffix(l[0].Path, "new") {
		t.Fatalf("after prune: %+v", l)
	}
	if _, err := os.Stat(broken); !os.IsNotExist(err) {
		t.Fatal("incomplete entry not pruned")
	}
}

func TestShimIdempotent(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the rm shim is a POSIX sh script")
	}
	dir := t.TempDir()
	for i := 0; i < 2; i++ {
		if got, err := Shim(dir); err != nil || got != dir {
			t.Fatalf("Shim: %q %v", got, err)
		}
	}
	fi, err := os.Stat(filepath.Join(dir, "rm"))
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("rm shim: %v %v", fi, err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".rm-*")); len(m) != 0 {
		t.Fatalf("temporary files left: %v", m)
	}
}

func TestDirPerRoot(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	a, err := Dir("/p/one")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Dir("/p/two")
	a2, _ := Dir("/p/one/")
	if a == b || a != a2 {
		t.Fatalf("Dir: %s %s %s", a, b, a2)
	}
	if fi, err := os.Stat(a); err != nil || !fi.IsDir() {
		t.Fatal("Dir must create the folder")
	}
}

func TestRestoreRejectsBadIDs(t *testing.T) {
	dir := t.TempDir()
	for _, id := range []string{"", ".", "..", "../x", "a/b"} {
		if _, err := Restore(dir, dir, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Restore(%q): %v", id, err)
		}
	}
}

// A folder on the way back replaced by a link out of the root: restore
// refuses, and nothing appears where the link points.
func TestRestoreFollowsNoLink(t *testing.T) {
	e := newEnv(t)
	outside := t.TempDir()
	e.write("a/b/secret.txt", []byte("s"))
	e.sh("rm a/b/secret.txt")
	for _, link := range []string{"a", "a/b"} {
		os.RemoveAll(filepath.Join(e.proj, "a"))
		os.MkdirAll(filepath.Dir(filepath.Join(e.proj, link)), 0o755)
		if err := os.Symlink(outside, filepath.Join(e.proj, link)); err != nil {
			t.Fatal(err)
		}
		if _, err := Restore(e.trash, e.proj, e.list()[0].ID); !errors.Is(err, ErrOutside) {
			t.Fatalf("link at %s: %v", link, err)
		}
		if des, _ := os.ReadDir(outside); len(des) != 0 {
			t.Fatalf("link at %s: restored outside the root", link)
		}
	}
	if len(e.list()) != 1 {
		t.Fatal("a refused restore must keep the entry")
	}
}

// The trash is written by commands: an entry naming a path outside the
// root, or an entry folder that is a link, is not restored.
func TestRestoreStaysInsideTheRoot(t *testing.T) {
	e := newEnv(t)
	outside := t.TempDir()
	e.write("f", []byte("f"))
	e.sh("rm f")
	id := e.list()[0].ID
	for _, forged := range []string{filepath.Join(outside, "planted"), e.proj, filepath.Join(e.proj, "..", "x"), "relative/x"} {
		os.WriteFile(filepath.Join(e.trash, id, "path"), []byte(forged), 0o600)
		if _, err := Restore(e.trash, e.proj, id); !errors.Is(err, ErrOutside) {
			t.Errorf("path %q: %v", forged, err)
		}
	}
	if des, _ := os.ReadDir(outside); len(des) != 0 {
		t.Fatal("restored outside the root")
	}
	elsewhere := filepath.Join(t.TempDir(), "entry")
	os.Rename(filepath.Join(e.trash, id), elsewhere)
	os.WriteFile(filepath.Join(elsewhere, "path"), []byte(filepath.Join(e.proj, "f")), 0o600)
	os.Symlink(elsewhere, filepath.Join(e.trash, "linked"))
	if _, err := Restore(e.trash, e.proj, "linked"); !errors.Is(err, ErrNotFound) || e.exists("f") {
		t.Fatalf("an entry folder that is a link: %v", err)
	}
}
