//go:build unix

package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/policy"
)

// recordingApprover keeps the requests it is shown and declines them.
type recordingApprover struct{ got []ApprovalRequest }

func (a *recordingApprover) Approve(_ context.Context, req ApprovalRequest) (Decision, error) {
	a.got = append(a.got, req)
	return Deny, nil
}

// A command that draws another one over itself (a carriage return, an
// escape sequence that erases the line, a right-to-left override) reaches
// the host's dialog with those characters shown as escapes, and the exact
// line beside them.
func TestApprovalRequestIsSafeToShow(t *testing.T) {
	e, root := newTestEngine(t, false)
	e.opts.Policy = policy.New(config.Default(), root, nil)
	dir := filepath.Join(root, "odd\x1b[2Jdir")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	a := &recordingApprover{}
	e.SetHost(Host{Trusted: true, Approver: a})
	command := "touch pwned\r\x1b[2Kmake test # \u202etset ekam\n\tok"
	if _, err := e.Run(context.Background(), RunParams{Command: command, Cwd: dir}); err == nil {
		t.Fatal("a declined command ran")
	}
	if len(a.got) != 1 {
		t.Fatalf("asked %d times", len(a.got))
	}
	req := a.got[0]
	if want := `touch pwned\r\x1b[2Kmake test # \u202etset ekam` + "\n\tok"; req.Command != want {
		t.Errorf("command %q, want %q", req.Command, want)
	}
	if req.ExactCommand != command || !strings.Contains(req.Cwd, `odd\x1b[2Jdir`) {
		t.Errorf("exact %q cwd %q", req.ExactCommand, req.Cwd)
	}
	for _, text := range append([]string{req.Command, req.Cwd}, req.Reasons...) {
		if strings.ContainsFunc(text, hidden) {
			t.Errorf("a hidden character reached the dialog: %q", text)
		}
	}
	if req.Reasons[len(req.Reasons)-1] != hiddenReason {
		t.Errorf("reasons %q", req.Reasons)
	}
	if ok := newApprovalRequest("npm install", root, nil); ok.ExactCommand != "" || ok.Command != "npm install" || len(ok.Reasons) != 0 {
		t.Errorf("a plain command is changed: %+v", ok)
	}
}

func TestShown(t *testing.T) {
	for in, want := range map[string]string{
		"ls -la\n\techo é €":  "ls -la\n\techo é €",
		"a\rb\x1bc\x00d\x7fe": `a\rb\x1bc\x00d\x7fe`,
		"x\u0085y\u200bz":     `x\u0085y\u200bz`,
		"\u2066rtl\u2069":     `\u2066rtl\u2069`,
		"bad\xffbyte\uFFFD":   `bad\xffbyte` + "\uFFFD",
	} {
		if got := Shown(in); got != want {
			t.Errorf("Shown(%q) = %q, want %q", in, got, want)
		}
	}
}
