//go:build unix

package persist

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckFolder(t *testing.T) {
	base := t.TempDir()
	mk := func(name string, mode os.FileMode) string {
		dir := filepath.Join(base, name)
		if err := os.Mkdir(dir, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	ok := mk("ok", 0o700)
	link := filepath.Join(base, "link")
	if err := os.Symlink(ok, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{
		ok:                          "",
		mk("group", 0o750):          "mode 0750",
		mk("others", 0o701):         "mode 0701",
		link:                        "symbolic link",
		file:                        "not a folder",
		filepath.Join(base, "none"): "no such file",
	} {
		err := CheckFolder(dir)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: got %v, want %q", filepath.Base(dir), err, want)
		}
	}
}

func TestPlaceIsTheRootsOwn(t *testing.T) {
	a, b := PlaceOf("/r", "/home/u/a"), PlaceOf("/r", "/home/u/b")
	if a == b || a != PlaceOf("/r", "/home/u/a") {
		t.Fatalf("places: %+v %+v", a, b)
	}
	if strings.Contains(a.Socket, "home") || filepath.Dir(a.Socket) != "/r" {
		t.Fatalf("the socket's name shows the root or leaves the folder: %s", a.Socket)
	}
}
