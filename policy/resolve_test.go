package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/termhelper/termhelper/config"
)

// linkedRoot is a root holding up -> <outside>/dir, with outside.txt next
// to dir, outside the root.
func linkedRoot(t *testing.T) (root, outside string) {
	t.Helper()
	root, outside = scratchRoot(t), scratchRoot(t)
	if err := os.MkdirAll(outside+"/dir", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside+"/outside.txt", []byte("OUTSIDE-SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(root+"/outside.txt", []byte("inside\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside+"/dir", root+"/up"); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if _, err := os.Stat(root + "/up/"); err != nil {
		// Wine reports success and makes no link.
		t.Skip("no working symbolic links here: os.Symlink succeeded, but ", err)
	}
	return root, outside
}

// output runs line with /bin/sh in dir and returns what it printed.
func output(t *testing.T, dir, line string) string {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", line)
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// TestDotDotAfterALink: up/.. is the folder above where up points, as the
// kernel resolves it, not the root.
func TestDotDotAfterALink(t *testing.T) {
	needUnix(t)
	root, _ := linkedRoot(t)
	p := newPosix(config.Default(), root, nil)
	for line, shows := range map[string]string{
		"cat up/../outside.txt":       "OUTSIDE-SECRET",
		"ls up/..":                    "outside.txt",
		"head -n 1 up/../outside.txt": "OUTSIDE-SECRET",
		"cd up && cat ../outside.txt": "OUTSIDE-SECRET",
	} {
		if out := output(t, root, line); !strings.Contains(out, shows) {
			t.Fatalf("%q printed %q, not %q: the test proves nothing", line, out, shows)
		}
		if v := p.Check(line, true); v.Decision != Ask || !containsReason(v, "outside the project root") {
			t.Errorf("%q reads outside the root: %+v", line, v)
		}
	}
	if v := p.Check("cat outside.txt", true); v.Decision != Allow {
		t.Errorf("the root's own outside.txt: %+v", v)
	}
}

// TestWritesThroughALink: a repository's link into .git makes an ordinary
// looking write a write into a protected path.
func TestWritesThroughALink(t *testing.T) {
	needUnix(t)
	root := scratchRoot(t)
	if err := os.MkdirAll(root+"/.git/hooks", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".git/hooks", root+"/hooks"); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	p := newPosix(config.Default(), root, nil)
	line := "echo 'touch PWNED' > hooks/pre-commit"
	v := p.Check(line, true)
	output(t, root, line)
	if !exists(root + "/.git/hooks/pre-commit") {
		t.Fatal("the write did not reach .git/hooks: the test proves nothing")
	}
	if v.Decision != Deny {
		t.Errorf("%q writes into .git: %+v", line, v)
	}
	for _, l := range []string{"cp x hooks/pre-push", "rm hooks/pre-commit", "tee hooks/x"} {
		if v := p.Check(l, true); v.Decision != Deny {
			t.Errorf("%q: %+v", l, v)
		}
	}
}

// TestDeleteThroughALink: rm -rf link/* deletes what the link points to,
// here a scratch home folder.
func TestDeleteThroughALink(t *testing.T) {
	needUnix(t)
	root, home := scratchRoot(t), scratchRoot(t)
	t.Setenv("HOME", home)
	if err := os.WriteFile(home+"/notes", []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(home, filepath.Join(root, "homelink")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	p := newPosix(config.Default(), root, nil)
	v := p.Check("rm -rf homelink/*", true)
	output(t, root, "rm -rf homelink/*")
	if exists(home + "/notes") {
		t.Fatal("rm did not reach the home folder: the test proves nothing")
	}
	if v.Decision != Deny {
		t.Errorf("rm -rf homelink/*: %+v", v)
	}
	for line, want := range map[string]Decision{"rm -rf homelink/": Deny, "rm homelink": Ask, "rm -rf homelink": Ask} {
		if v := p.Check(line, true); v.Decision != want {
			t.Errorf("%q: got %s %q, want %s", line, v.Decision, v.Reasons, want)
		}
	}
}

func TestKernelPath(t *testing.T) {
	root, outside := linkedRoot(t)
	cases := map[string]string{
		"up":                   outside + "/dir",
		"up/..":                outside,
		"up/../outside.txt":    outside + "/outside.txt",
		"./up/./../x":          outside + "/x",
		"missing/../up/..":     outside,
		"missing/deeper":       root + "/missing/deeper",
		"outside.txt":          root + "/outside.txt",
		"../../../../../../..": filepath.ToSlash(filepath.VolumeName(root)) + "/",
	}
	for in, want := range cases {
		if got := kernelPath(root, in); got != want {
			t.Errorf("kernelPath(root, %q) = %q, want %q", in, got, want)
		}
	}
	if err := os.Symlink("loop", root+"/loop"); err != nil {
		t.Fatal(err)
	}
	if got := kernelPath(root, "loop/x"); got != root+"/loop/x" {
		t.Errorf("a link loop: %q", got)
	}
}
