package policy

import (
	"os"
	"os/exec"
	"testing"

	"github.com/termhelper/termhelper/config"
)

// Lines that bash reads as one echo of a string, and dash (the /bin/sh of
// Debian and Ubuntu) as an echo followed by a command.
const (
	dashTouch = "echo $'a\\'; touch PWNED\n#'"
	dashSudo  = "echo $'a\\'; sudo ls\n#'"
)

func shellPath(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skip("no " + name + " here")
	}
	return p
}

func policyWithShell(t *testing.T, root, shell string) *Policy {
	t.Helper()
	cfg := config.Default()
	cfg.Shell = shell
	return newPosix(cfg, root, nil)
}

// TestReadAsBashRunByDash: the line is judged in every way the shell that
// runs it could read it. dash makes the marker, so /bin/sh (which may be
// dash) and dash must not allow the line; bash makes none, and allows it.
func TestReadAsBashRunByDash(t *testing.T) {
	needUnix(t)
	dash, bash := shellPath(t, "dash"), shellPath(t, "bash")
	root := scratchRoot(t)
	runIn(t, root, nil, bash, "-c", dashTouch)
	if exists(root + "/PWNED") {
		t.Fatal("bash ran the touch: the line is not what this test is about")
	}
	runIn(t, root, nil, dash, "-c", dashTouch)
	if !exists(root + "/PWNED") {
		t.Fatal("dash did not run the touch: the test proves nothing")
	}
	for shell, want := range map[string]Decision{"": Ask, "/bin/sh": Ask, dash: Ask, bash: Allow} {
		if v := policyWithShell(t, root, shell).Check(dashTouch, true); v.Decision != want {
			t.Errorf("shell %q: %q: got %s %q, want %s", shell, dashTouch, v.Decision, v.Reasons, want)
		}
	}
}

// TestSudoHiddenFromBash: the same trick around sudo is denied wherever
// dash may run the line, also when it is handed to sh -c.
func TestSudoHiddenFromBash(t *testing.T) {
	needUnix(t)
	dash, bash := shellPath(t, "dash"), shellPath(t, "bash")
	root := scratchRoot(t)
	writeScript(t, root+"/bin/sudo", "touch "+root+"/SUDO")
	path := []string{"PATH=" + root + "/bin:" + os.Getenv("PATH")}
	runIn(t, root, path, bash, "-c", dashSudo)
	if exists(root + "/SUDO") {
		t.Fatal("bash ran sudo: the line is not what this test is about")
	}
	runIn(t, root, path, dash, "-c", dashSudo)
	if !exists(root + "/SUDO") {
		t.Fatal("dash did not run sudo: the test proves nothing")
	}
	// A line dash cannot parse further down still runs what comes before.
	partly := "echo $'a\\'; sudo ls\ncat <(ls) #'"
	if err := os.Remove(root + "/SUDO"); err != nil {
		t.Fatal(err)
	}
	runIn(t, root, path, dash, "-c", partly)
	if !exists(root + "/SUDO") {
		t.Fatal("dash did not run the first line: the test proves nothing")
	}
	cases := []struct {
		shell, line string
		want        Decision
	}{
		{"", partly, Deny},
		{"", dashSudo, Deny},
		{dash, dashSudo, Deny},
		{bash, dashSudo, Allow},
		{bash, "sh -c " + shQuote(dashSudo), Deny},
		{bash, "dash -c " + shQuote(dashSudo), Deny},
		{bash, "bash -c " + shQuote(dashSudo), Ask}, // bash never runs the sudo
		{bash, "eval " + shQuote(dashSudo), Ask},
		{"", "eval " + shQuote(dashSudo), Deny},
		{bash, "sh <<'EOF'\n" + dashSudo + "\nEOF", Deny},
	}
	for _, c := range cases {
		if v := policyWithShell(t, root, c.shell).Check(c.line, true); v.Decision != c.want {
			t.Errorf("shell %q: %q: got %s %q, want %s", c.shell, c.line, v.Decision, v.Reasons, c.want)
		}
	}
}

// TestDialects: bash-only syntax under a shell that may be dash is asked
// about; a line every reading splits alike is judged as usual.
func TestDialects(t *testing.T) {
	cases := []struct {
		shell, line string
		want        Decision
	}{
		{"", "echo $'a\\tb'", Allow},
		{"", "[[ -f go.mod ]] && cat go.mod", Allow},
		{"", "ls |& cat", Ask},
		{"", "cat <(ls)", Ask},
		{"", "cat <(sudo ls)", Deny},
		{"/bin/bash", "cat <(ls)", Allow},
		{"/bin/dash", "cat <(ls)", Ask},
		{"/bin/zsh", "ls *(e:'touch PWNED':)", Ask},
		{"/bin/zsh", "ls *.go", Allow},
		{"/usr/bin/fish", "ls src", Allow},
		{"/usr/bin/fish", "echo 'a\\'; ls", Ask},
		{"/usr/bin/fish", "sudo ls", Deny},
		{"/bin/mksh", "ls", Allow},
		// dash runs the first line before it meets the second, which it
		// cannot parse; on one line it would run none of it.
		{"", "echo $'a\\'; sudo ls\ncat <(ls) #'", Deny},
		{"", "echo $'a\\'; sudo ls; cat <(ls) #'", Ask},
		{"", "ls\nls |& cat", Ask},
	}
	for _, c := range cases {
		p := policyWithShell(t, testRoot, c.shell)
		if v := p.Check(c.line, true); v.Decision != c.want {
			t.Errorf("shell %q: %q: got %s %q, want %s", c.shell, c.line, v.Decision, v.Reasons, c.want)
		}
	}
}
