package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// These run on the macOS job of the workflow: a command under
// sandbox-exec, judged by what it could not do.

func darwinRun(t *testing.T, p Plan, env []string, script string) string {
	t.Helper()
	argv := []string{"/bin/sh", "-c", script}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	l, err := Prepare(p, argv)
	if err != nil {
		t.Fatal(err)
	}
	l.Apply(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	g, _ := l.Started()
	defer g.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Fatalf("the command did not end: %s", out.String())
	}
	return out.String()
}

func TestSeatbeltConfinesACommand(t *testing.T) {
	if st := Probe(WorkspaceWrite, NetworkProxy); st.Backend != "seatbelt" {
		t.Skip("no sandbox-exec here: " + st.Reason)
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, root, out, tmp := filepath.Join(base, "home"), filepath.Join(base, "home", "proj"), filepath.Join(base, "out"), filepath.Join(base, "tmp")
	for _, d := range []string{root, out, tmp, filepath.Join(home, ".ssh"), filepath.Join(root, ".git", "hooks"), filepath.Join(home, "odd\nname")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("SECRET-KEY\n"), 0o600)
	os.WriteFile(filepath.Join(home, "odd\nname", "key"), []byte("SECRET-ODD\n"), 0o600)
	p := Defaults(root, home, func(string) string { return "" })
	p.Mode, p.Network, p.TempDir = WorkspaceWrite, NetworkProxy, tmp
	p.Hide = append(p.Hide, filepath.Join(home, "odd\nname"))
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + home, "TMPDIR=" + tmp, "ROOT=" + root, "OUT=" + out}
	got := darwinRun(t, p, env, `
cat "$HOME/.ssh/id_rsa"; cat "$HOME"/odd*/key
echo x > "$OUT/escaped"; echo x > "$ROOT/.git/hooks/pre-commit"; echo x >> "$HOME/.zshrc"
echo x > "$ROOT/made"; echo x > "$TMPDIR/made"; echo done`)
	if strings.Contains(got, "SECRET") {
		t.Errorf("a secret was read: %s", got)
	}
	for _, f := range []string{filepath.Join(out, "escaped"), filepath.Join(root, ".git", "hooks", "pre-commit"), filepath.Join(home, ".zshrc")} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s was written", f)
		}
	}
	for _, f := range []string{filepath.Join(root, "made"), filepath.Join(tmp, "made")} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s could not be written: %s", f, got)
		}
	}
	if !strings.Contains(got, "done") {
		t.Errorf("the command did not run to its end: %s", got)
	}
}
