package platform

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestWinClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{`C:\proj`, `C:\proj`},
		{`c:/proj/sub/`, `C:\proj\sub`},
		{`C:\proj\.\sub\..\other`, `C:\proj\other`},
		{`C:\..\..\x`, `C:\x`},
		{`C:\`, `C:\`},
		{`C:`, `C:`},
		{`C:proj\..\x`, `C:x`},
		{`\\server\share\dir\..\x`, `\\server\share\x`},
		{`//server/share/dir`, `\\server\share\dir`},
		{`\\server\share\..`, `\\server\share\`},
		{`\\?\C:\proj\sub`, `C:\proj\sub`},
		{`\\?\UNC\server\share\dir`, `\\server\share\dir`},
		{`\??\C:\proj`, `C:\proj`},
		{`a\..\..\b`, `..\b`},
		{`a\..`, `.`},
		{`C:\a\\b`, `C:\a\b`},
	}
	for _, tt := range tests {
		if got := WinClean(tt.in); got != tt.want {
			t.Errorf("WinClean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWithinFold(t *testing.T) {
	tests := []struct {
		root, path string
		want       bool
	}{
		{`C:\proj`, `C:\proj`, true},
		{`C:\proj`, `C:\proj\sub\deeper`, true},
		{`C:\Proj`, `c:\pROJ\Sub`, true},
		{`C:\proj\`, `C:/proj/sub`, true},
		{`C:\proj`, `C:\proj2`, false},
		{`C:\proj`, `C:\pro`, false},
		{`C:\proj`, `C:\`, false},
		{`C:\proj`, `D:\proj`, false},
		{`C:\proj`, `C:\proj\..\other`, false},
		{`C:\proj`, `C:\proj\sub\..\..\proj\x`, true},
		{`C:\proj`, `\\?\C:\proj\x`, true},
		{`\\?\c:\proj`, `C:\PROJ`, true},
		{`C:\`, `C:\anything\at\all`, true},
		{`\\Server\Share\proj`, `\\server\share\PROJ\x`, true},
		{`\\server\share\proj`, `\\server\other\proj`, false},
		{`\\server\share\proj`, `\\?\UNC\SERVER\share\proj\x`, true},
		{`\\server\share\proj`, `C:\proj`, false},
		{`C:\proj`, `proj\x`, false},
		{`proj`, `proj\x`, false},
		{`C:\proj`, `C:proj\x`, false},
		{`C:\ÜBER`, `c:\über\x`, true},
		// NTFS upper-cases letter by letter: the Kelvin sign is not K.
		{"C:\\proj\\K", "C:\\proj\\\u212a", false},
	}
	for _, tt := range tests {
		if got := WithinFold(tt.root, tt.path); got != tt.want {
			t.Errorf("WithinFold(%q, %q) = %v, want %v", tt.root, tt.path, got, tt.want)
		}
	}
}

func TestPathWithinHere(t *testing.T) {
	if runtime.GOOS == "windows" {
		if !PathWithin(`C:\Proj`, `c:\proj\x`) {
			t.Error("PathWithin should fold case on Windows")
		}
		return
	}
	if !PathWithin("/a/b", "/a/b/c") || PathWithin("/a/b", "/a/bc") || PathWithin("/a/B", "/a/b") {
		t.Error("PathWithin should follow Within outside Windows")
	}
}

func TestRealPathFollowsLinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows: see TestRealPathJunction")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	got, err := RealPath(link)
	want, _ := filepath.EvalSymlinks(target)
	if err != nil || got != want {
		t.Errorf("RealPath(link) = %q, %v; want %q", got, err, want)
	}
}
