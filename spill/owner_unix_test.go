//go:build unix

package spill

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// nobody is the uid of another user for the ownership tests.
const nobody = 65534

// takenByNobody makes base/name as another user would: owned by nobody,
// open to all. It needs root to give the folder away.
func takenByNobody(t *testing.T, base, name string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("giving a folder to another user needs root")
	}
	dir := filepath.Join(base, name)
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil { // past the umask
		t.Fatal(err)
	}
	if err := os.Chown(dir, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	return dir
}

func assertPrivate(t *testing.T, dir string) {
	t.Helper()
	fi, err := os.Lstat(dir)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || fi.Mode().Perm() != 0o700 || int(st.Uid) != os.Geteuid() {
		t.Errorf("%s: mode %v, uid %d; want a 0700 folder of uid %d", dir, fi.Mode(), st.Uid, os.Geteuid())
	}
}

// spillInto writes one spill file through Lazy and returns its path.
func spillInto(t *testing.T, base string) string {
	t.Helper()
	l := NewFileIn(base, "s")
	defer l.Close()
	w, path, err := l.Open()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, "secret output\n"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("spill file %s: %v, %v; want mode 0600", path, fi.Mode(), err)
	}
	return path
}

func TestDirTakenByAnotherUser(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	theirs := takenByNobody(t, base, DirName)
	path := spillInto(t, base)
	dir := filepath.Dir(path)
	if dir == theirs {
		t.Fatalf("spilled into the folder of uid %d", nobody)
	}
	assertPrivate(t, dir)
	if entries, _ := os.ReadDir(theirs); len(entries) != 0 {
		t.Errorf("wrote into the other user's folder: %v", entries)
	}
	if fi, _ := os.Stat(theirs); fi.Mode().Perm() != 0o777 {
		t.Errorf("changed the other user's folder: %v", fi.Mode())
	}
	again, err := DirIn(base)
	if err != nil || again != dir {
		t.Errorf("second DirIn = %s, %v; want %s", again, err, dir)
	}
}

func TestBothNamesTakenByAnotherUser(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	theirs := takenByNobody(t, base, DirName)
	theirs2 := takenByNobody(t, base, DirName+"-"+userTag())
	dir, err := DirIn(base)
	if err != nil {
		t.Fatal(err)
	}
	if dir == theirs || dir == theirs2 {
		t.Fatalf("DirIn chose %s, a folder of uid %d", dir, nobody)
	}
	assertPrivate(t, dir)
	if again, err := DirIn(base); err != nil || again != dir {
		t.Errorf("second DirIn = %s, %v; want the same fresh folder %s", again, err, dir)
	}
	if filepath.Dir(spillInto(t, base)) != dir {
		t.Error("a spill file left the fresh folder")
	}
}

func TestDirInOpenFolderOfOurs(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, DirName)
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	got, err := DirIn(base)
	if err != nil || got != dir {
		t.Fatalf("DirIn = %s, %v; want our own %s", got, err, dir)
	}
	assertPrivate(t, dir)
}

func TestDirInPassesOverSymlink(t *testing.T) {
	t.Parallel()
	base, target := t.TempDir(), t.TempDir()
	if err := os.Symlink(target, filepath.Join(base, DirName)); err != nil {
		t.Skip("no symlinks:", err)
	}
	dir, err := DirIn(base)
	if err != nil {
		t.Fatal(err)
	}
	if dir == filepath.Join(base, DirName) {
		t.Error("DirIn used a symbolic link")
	}
	assertPrivate(t, dir)
	if entries, _ := os.ReadDir(target); len(entries) != 0 {
		t.Errorf("wrote into the link's target: %v", entries)
	}
}
