package version

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestNumberPrefersTheStamp(t *testing.T) {
	defer func(n, f string) { number, fallback = n, f }(number, fallback)
	number, fallback = "", ""
	if got := Number(); got != "unknown" {
		t.Errorf("nothing known: Number() = %q, want unknown", got)
	}
	Default("0.2.0\n")
	if got := Number(); got != "0.2.0" {
		t.Errorf("VERSION file only: Number() = %q, want 0.2.0", got)
	}
	number = "1.4.0"
	if got := Number(); got != "1.4.0" {
		t.Errorf("stamped: Number() = %q, want 1.4.0", got)
	}
}

func TestRevision(t *testing.T) {
	full := "0123456789abcdef0123456789abcdef01234567"
	settings := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: full}}
	if got := revision(settings); got != full[:12] {
		t.Errorf("revision = %q, want %q", got, full[:12])
	}
	if got := revision(settings[:1]); got != "unknown" {
		t.Errorf("no revision recorded: %q, want unknown", got)
	}
}

// exe is what executables' names end in here.
var exe = map[bool]string{true: ".exe"}[runtime.GOOS == "windows"]

// TestBinary builds termhelper as a plain go build and as make stamps it,
// and checks what --version prints in each.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	// A test binary can run where no Go is installed: cross-built and
	// copied to Windows (or Wine), say.
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command:", err)
	}
	file, err := os.ReadFile("../VERSION")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(string(file))
	goVer := runtime.Version()
	pkg := "github.com/termhelper/termhelper/version"
	cases := []struct{ name, ldflags, want string }{
		{"plain", "", "termhelper " + want + " (unknown, " + goVer + ")"},
		{"stamped", "-X " + pkg + ".number=7.8.9 -X " + pkg + ".commit=feedbeef", "termhelper 7.8.9 (feedbeef, " + goVer + ")"},
	}
	for _, c := range cases {
		bin := filepath.Join(t.TempDir(), "termhelper"+exe)
		build := exec.Command("go", "build", "-buildvcs=false", "-ldflags", c.ldflags, "-o", bin, "..")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("%s build: %v\n%s", c.name, err, out)
		}
		out, err := exec.Command(bin, "--version").Output()
		if err != nil {
			t.Fatalf("%s: --version: %v", c.name, err)
		}
		if got := strings.TrimSpace(string(out)); got != c.want {
			t.Errorf("%s: --version printed %q, want %q", c.name, got, c.want)
		}
	}
}
