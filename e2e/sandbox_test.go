//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sandboxStatus is initialize's sandbox field.
type sandboxStatus struct {
	Mode    string   `json:"mode"`
	Backend string   `json:"backend"`
	Network string   `json:"network"`
	Reason  *string  `json:"reason"`
	Limits  []string `json:"limits"`
}

// confined is a helper for a fresh root under a fake home, with the
// sandbox in force, and its folders.
type confined struct {
	c                   *client
	root, home, outside string
	status              sandboxStatus
}

// python is the system's Python, not a user's shim: under a fake home a
// version manager's shim finds nothing.
const python = "/usr/bin/python3"

// startConfined starts a helper for a fresh root with HOME in a fresh
// folder beside it, and skips where this machine has no sandbox.
func startConfined(t *testing.T, framing string, opts ...opt) confined {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	s := confined{root: filepath.Join(base, "proj"), home: filepath.Join(base, "home"), outside: filepath.Join(base, "outside")}
	for _, d := range []string{s.root, s.home, s.outside} {
		must(t, os.Mkdir(d, 0o755))
	}
	s.c = start(t, framing, s.root, nil, append([]opt{withEnv("HOME=" + s.home)}, opts...)...)
	s.status = initSandbox(t, s.c)
	if s.status.Mode == "off" {
		t.Skipf("no sandbox on this machine: %v", deref(s.status.Reason))
	}
	return s
}

// initSandbox sends initialize and returns its sandbox field.
func initSandbox(t *testing.T, c *client) sandboxStatus {
	t.Helper()
	raw, rerr := c.call("initialize", map[string]any{})
	if rerr != nil {
		t.Fatalf("initialize: %v", rerr.Message)
	}
	var ans struct {
		Sandbox *sandboxStatus `json:"sandbox"`
	}
	must(t, json.Unmarshal(raw, &ans))
	if ans.Sandbox == nil {
		t.Fatalf("initialize has no sandbox field: %s", raw)
	}
	return *ans.Sandbox
}

func deref(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

// TestSandboxWritesStayInside: a command writes in the root and its
// TMPDIR; writes outside the root (directly, through a symlink in the
// root, from Python, to the shell's start-up file) and to git's hooks
// leave nothing, and the answer names the path it stopped.
func TestSandboxWritesStayInside(t *testing.T) {
	s := startConfined(t, "ndjson")
	rc := filepath.Join(s.home, ".bashrc")
	must(t, os.WriteFile(rc, []byte("# the user's own\n"), 0o644))
	if out, err := exec.Command("git", "init", "-q", s.root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	direct := filepath.Join(s.outside, "direct")
	r := s.c.exec(map[string]any{"command": "echo x > " + direct})
	if !slices.Contains(r.denied(), "write "+direct) {
		t.Errorf("denied %v, want the write to %s named (output %q)", r.denied(), direct, r.Output)
	}
	for _, cmd := range []string{
		"ln -s " + s.outside + " link && echo x > link/via-link",
		python + ` -c "open('` + s.outside + `/py', 'w').write('x')"`,
		python + ` -c "import os; open(os.path.expanduser('~/.bashrc'), 'a').write('evil')"`,
		python + ` -c "import os; os.makedirs('.git/hooks', exist_ok=True); open('.git/hooks/pre-commit', 'w').write('evil')"`,
	} {
		r := s.c.exec(map[string]any{"command": cmd})
		if r.ExitCode == nil || *r.ExitCode == 0 {
			t.Errorf("%q: exit %s, want a failure (output %q)", cmd, exitOf(r), r.Output)
		}
	}
	if entries, _ := os.ReadDir(s.outside); len(entries) > 0 {
		t.Errorf("files appeared outside the root: %v", entries)
	}
	if b, _ := os.ReadFile(rc); string(b) != "# the user's own\n" {
		t.Errorf("~/.bashrc changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(s.root, ".git", "hooks", "pre-commit")); err == nil {
		t.Error(".git/hooks/pre-commit was created")
	}
	r = s.c.exec(map[string]any{"command": `echo in-root > made && echo in-tmp > "$TMPDIR/t" && cat "$TMPDIR/t" && echo "$TMPDIR"`})
	if r.ExitCode == nil || *r.ExitCode != 0 || !strings.Contains(r.Output, "in-tmp") {
		t.Fatalf("the root and TMPDIR should be writable: exit %s %q", exitOf(r), r.Output)
	}
	if b, _ := os.ReadFile(filepath.Join(s.root, "made")); string(b) != "in-root\n" {
		t.Errorf("the file in the root: %q", b)
	}
	if tmp := lastLine(r.Output); !strings.Contains(tmp, "termhelper-") {
		t.Errorf("TMPDIR is %q, want the helper's own folder", tmp)
	}
}

// exitOf is a finished answer's exit code, or its state.
func exitOf(r result) string {
	if r.ExitCode == nil {
		return r.State
	}
	return strconv.Itoa(*r.ExitCode)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// TestSandboxHidesSecrets: a key in ~/.ssh reads as nothing, and another
// process's environment cannot be read.
func TestSandboxHidesSecrets(t *testing.T) {
	s := startConfined(t, "ndjson")
	const key = "PRIVATE-KEY-" + "c0ffee"
	must(t, os.MkdirAll(filepath.Join(s.home, ".ssh"), 0o700))
	must(t, os.WriteFile(filepath.Join(s.home, ".ssh", "id_rsa"), []byte(key+"\n"), 0o600))
	r := s.c.exec(map[string]any{"command": python + ` -c "import os; print(open(os.path.expanduser('~/.ssh/id_rsa')).read())"; cat ~/.ssh/id_rsa`})
	if strings.Contains(r.Output, key) {
		t.Fatalf("the key was read: %q", r.Output)
	}
	const mark = "ENV-SECRET-" + "5ca1ab1e"
	other := exec.Command("sleep", "1000")
	other.Env = append(os.Environ(), "TH_TEST_SECRET="+mark)
	must(t, other.Start())
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })
	env := "/proc/" + strconv.Itoa(other.Process.Pid) + "/environ"
	r = s.c.exec(map[string]any{"command": python + ` -c "print(open('` + env + `', 'rb').read())"`})
	if strings.Contains(r.Output, mark) || r.ExitCode == nil || *r.ExitCode == 0 {
		t.Fatalf("another process's environment was read: exit %s %q", exitOf(r), r.Output)
	}
	if b, err := os.ReadFile(env); err != nil || !strings.Contains(string(b), mark) {
		t.Fatalf("the test itself should read it (so the check above means something): %v", err)
	}
}

// TestSandboxKeepsPromptsKillsAndTrash: confined, a read still answers
// waiting, a password read still secret, a kill still ends the whole
// tree, and rm still moves to the trash.
func TestSandboxKeepsPromptsKillsAndTrash(t *testing.T) {
	s := startConfined(t, "ndjson")
	r := s.c.exec(map[string]any{"command": `read -p "name: " x; echo "got $x"`})
	if r.State != "waiting" || r.Prompt == nil || r.Prompt.Secret {
		t.Fatalf("a read: %+v, prompt %+v", r, r.Prompt)
	}
	r = s.c.run("session/write", map[string]any{"sessionId": r.SessionID, "input": "bob\n", "yieldMs": 30000})
	if !strings.Contains(r.Output, "got bob") {
		t.Fatalf("the answer: %q", r.Output)
	}
	r = s.c.exec(map[string]any{"command": `bash -c 'read -s -p "Password: " pw; echo "length ${#pw}"'`})
	if r.State != "waiting" || r.Prompt == nil || !r.Prompt.Secret {
		t.Fatalf("a password read: %+v, prompt %+v", r, r.Prompt)
	}
	s.c.run("session/kill", map[string]any{"sessionId": r.SessionID, "signal": "SIGKILL"})

	m := marker()
	r = s.c.exec(map[string]any{"command": "sleep " + m + " & sleep " + m + " & wait", "background": true, "yieldMs": 200})
	waitFor(t, "the confined tree", func() bool { return len(pidsWith(m)) >= 3 }) // the shell and two sleeps
	s.c.run("session/kill", map[string]any{"sessionId": r.SessionID})
	noneLeft(t, m)

	r = s.c.exec(map[string]any{"command": "echo keep > doomed && rm doomed"})
	if r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("rm: %+v", r)
	}
	raw, rerr := s.c.call("trash/list", nil)
	if rerr != nil {
		t.Fatal(rerr.Message)
	}
	if !strings.Contains(string(raw), filepath.Join(s.root, "doomed")) {
		t.Fatalf("the trash holds %s, want doomed", raw)
	}
}

// checkIn is policy/check with a sandbox mode ("" for the config's).
func checkIn(t *testing.T, c *client, command, sandbox string) (decision, mode string, reasons []string) {
	t.Helper()
	raw, rerr := c.call("policy/check", map[string]any{"command": command, "sandbox": sandbox})
	if rerr != nil {
		t.Fatalf("policy/check %q: %s", command, rerr.Message)
	}
	var a struct {
		Decision, Sandbox string
		Reasons           []string
	}
	must(t, json.Unmarshal(raw, &a))
	return a.Decision, a.Sandbox, a.Reasons
}

// TestSandboxPolicyCheck: policy/check answers what exec/run would do
// now, the sandbox included, and judges another mode when asked.
func TestSandboxPolicyCheck(t *testing.T) {
	s := startConfined(t, "ndjson")
	for _, tc := range []struct{ command, sandbox, decision, mode, reason string }{
		{"cat ../outside", "", "allow", "workspace-write", ""},
		{"make", "read-only", "allow", "read-only", ""},
		{"cat ../outside", "off", "ask", "off", "wider"},
		{"cat .env", "", "ask", "workspace-write", "protected"},
		{"git push", "", "ask", "off", "leaves the sandbox"},
		{"sudo true", "", "deny", "workspace-write", "sudo"},
	} {
		d, m, reasons := checkIn(t, s.c, tc.command, tc.sandbox)
		if d != tc.decision || m != tc.mode || !strings.Contains(strings.Join(reasons, "\n"), tc.reason) {
			t.Errorf("%q in %q: %s, %s, %q; want %s, %s, a reason with %q", tc.command, tc.sandbox, d, m, reasons,
				tc.decision, tc.mode, tc.reason)
		}
	}
	_, rerr := s.c.call("policy/check", map[string]any{"command": "ls", "sandbox": "none"})
	if rerr == nil || rerr.Code != -32602 || !strings.Contains(rerr.Message, `"sandbox"`) {
		t.Fatalf("a bad mode: %+v", rerr)
	}
}

// TestSandboxRequestNarrowsAndWidens: a request's read-only mode holds
// the root too; a request for no sandbox is refused by a host that cannot
// be asked, and once approved runs unconfined.
func TestSandboxRequestNarrowsAndWidens(t *testing.T) {
	s := startConfined(t, "ndjson")
	made := filepath.Join(s.root, "made")
	r := s.c.exec(map[string]any{"command": "echo x > " + made, "sandbox": "read-only"})
	if _, err := os.Stat(made); err == nil || !slices.Contains(r.denied(), "write "+made) {
		t.Fatalf("read-only: the file is there (%v) or not named: %v", err, r.denied())
	}
	wide := filepath.Join(s.outside, "wide")
	cmd := "echo x > " + wide
	_, rerr := s.c.call("exec/run", map[string]any{"command": cmd, "sandbox": "off"})
	if rerr == nil || rerr.Code != -32004 || !strings.Contains(rerr.Message, "wider sandbox") {
		t.Fatalf("widening without a way to ask: %+v", rerr)
	}
	var reasons []string
	s.c.onRequest = func(m message) any {
		var p struct{ Reasons []string }
		json.Unmarshal(m.Params, &p)
		reasons = p.Reasons
		return map[string]string{"decision": "allow"}
	}
	s.c.call("initialize", map[string]any{"capabilities": map[string]any{"approval": true}})
	r = s.c.exec(map[string]any{"command": cmd, "sandbox": "off"})
	if _, err := os.Stat(wide); err != nil || !strings.Contains(strings.Join(reasons, "\n"), `"off"`) {
		t.Fatalf("approved, it runs unconfined: %v (exit %s, reasons %q)", err, exitOf(r), reasons)
	}
}

// TestSandboxLeavingLine: a line that must leave the sandbox (git push)
// runs unconfined once approved, confined where the host cannot be
// asked, and not at all when declined. The git here is a stand-in that
// writes outside the root, which only an unconfined run can.
func TestSandboxLeavingLine(t *testing.T) {
	bin := t.TempDir()
	out := filepath.Join(t.TempDir(), "pushed")
	must(t, os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\necho pushed > "+out+"\n"), 0o755))
	s := startConfined(t, "ndjson", withEnv("PATH="+bin+":"+os.Getenv("PATH")))
	r := s.c.exec(map[string]any{"command": "git push"})
	if _, err := os.Stat(out); err == nil {
		t.Fatal("without a way to ask, git push ran unconfined")
	}
	if r.ExitCode == nil || *r.ExitCode == 0 {
		t.Fatalf("confined, the stand-in cannot write: exit %s", exitOf(r))
	}
	decision := "deny"
	var asked []string
	s.c.onRequest = func(m message) any {
		var p struct{ Reasons []string }
		json.Unmarshal(m.Params, &p)
		asked = append(asked, strings.Join(p.Reasons, "; "))
		return map[string]string{"decision": decision}
	}
	s.c.call("initialize", map[string]any{"capabilities": map[string]any{"approval": true}})
	if _, rerr := s.c.call("exec/run", map[string]any{"command": "git push"}); rerr == nil || rerr.Code != -32004 {
		t.Fatalf("declined: %+v", rerr)
	}
	decision = "allow"
	s.c.exec(map[string]any{"command": "git push"})
	if b, err := os.ReadFile(out); err != nil || string(b) != "pushed\n" {
		t.Fatalf("approved, git push should run unconfined: %v", err)
	}
	if len(asked) != 2 || !strings.Contains(asked[1], "leaves the sandbox") {
		t.Fatalf("asked %q", asked)
	}
}

// TestSandboxTempDirOfAKilledHelperIsRemoved: a helper removes its
// temporary folder at exit; one killed with SIGKILL cannot, and the next
// helper removes it once it has answered. The commands share the folder
// on disk where it is not capped (temp_mib = 0); capped, each has a tmpfs
// of its own over it, and the folder holds the owner file alone.
func TestSandboxTempDirOfAKilledHelperIsRemoved(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	s := startCapped(t, 0, 0, withEnv("TMPDIR="+tmp))
	dir := lastLine(s.c.exec(map[string]any{"command": `echo left > "$TMPDIR/work"; echo "$TMPDIR"`}).Output)
	if !strings.HasPrefix(dir, tmp+"/termhelper-") {
		t.Fatalf("TMPDIR %q, want a folder in %s", dir, tmp)
	}
	must(t, s.c.cmd.Process.Kill())
	<-s.c.exited
	if _, err := os.Stat(filepath.Join(dir, "work")); err != nil {
		t.Fatalf("the killed helper's folder should still be there: %v", err)
	}
	next := start(t, "ndjson", s.root, nil, withEnv("HOME="+s.home, "TMPDIR="+tmp))
	next.exec(map[string]any{"command": "true"})
	waitFor(t, "the killed helper's folder to be removed", func() bool {
		_, err := os.Stat(dir)
		return os.IsNotExist(err)
	})
	next.stop()
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		if e.Name() != "termhelper-spill" { // the spill files' folder, kept for a week
			t.Errorf("left in TMPDIR after both helpers: %s", e.Name())
		}
	}
}

// A command started in a folder the sandbox makes read-only or hides,
// by the plan's first command (a trampoline) and by the spare, sees the
// folder as the sandbox shows it: it writes no hook from within
// .git/hooks, and does not run at all within a secret place.
func TestSandboxCwdIsSeenAsTheSandboxShowsIt(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	root := filepath.Join(base, "proj")
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	must(t, os.MkdirAll(filepath.Join(root, ".git", "hooks"), 0o755))
	must(t, os.MkdirAll(filepath.Join(root, "vault", "inner"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "vault", "inner", "key"), []byte("VAULT-"+"SECRET\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(root, ".termhelper.toml"), []byte("hide = [\"vault\"]\n"), 0o644))
	c := start(t, "ndjson", root, nil, withEnv("HOME="+base))
	if st := initSandbox(t, c); st.Mode == "off" {
		t.Skipf("no sandbox on this machine: %v", deref(st.Reason))
	}
	s := confined{c: c, root: root, home: base}
	for _, which := range []string{"the plan's first command", "a command on the spare"} {
		if which != "the plan's first command" {
			settled(t, s)
		}
		// PWD naming the folder by a magic link must not lead back to it.
		for _, env := range []map[string]any{{"PWD": "/proc/self/cwd"}, {}} {
			r := c.exec(map[string]any{"command": python + ` -c "open('pre-commit', 'w').write('evil')"`, "cwd": ".git/hooks", "env": env})
			if _, err := os.Stat(filepath.Join(root, ".git", "hooks", "pre-commit")); err == nil {
				t.Fatalf("%s (env %v) wrote a hook from within .git/hooks: %s %q", which, env, describe(r), r.Output)
			}
		}
		settled(t, s)
		r := c.exec(map[string]any{"command": "cat key; echo ran", "cwd": "vault/inner"})
		if strings.Contains(r.Output, "SECRET") || strings.Contains(r.Output, "ran") || r.ExitCode == nil || *r.ExitCode != 126 {
			t.Errorf("%s within a secret place: %s %q, want it not run (exit 126)", which, describe(r), r.Output)
		}
	}
}
