package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/policy"
	"github.com/termhelper/termhelper/sandbox"
)

// TestApprovalMatrixSandboxed: the approval matrix with a sandbox in
// force (or none), and a request's own mode. Besides what runs and what
// is asked, each row says the mode the command then runs in: a line that
// leaves the sandbox runs unconfined only once a person approved it.
func TestApprovalMatrixSandboxed(t *testing.T) {
	const ws, ro, off = sandbox.WorkspaceWrite, sandbox.ReadOnly, sandbox.Off
	unknown, leaves, secret, blocked := "make", "git push", "cat .env", "sudo true"
	proxyVar := map[string]*string{"HTTPS_PROXY": new("http://127.0.0.1:1")}
	yes, no := &answer{d: Allow}, &answer{d: Deny}
	for _, tc := range []struct {
		name       string
		command    string
		env        map[string]*string
		inForce    sandbox.Mode // what the machine gives for the config's mode
		requested  string       // the request's sandbox
		trusted    bool
		approver   *answer
		unattended string
		want       outcome
		wantAsked  bool
		wantMode   sandbox.Mode // the mode it runs in, when it runs
	}{
		{"unknown, no sandbox, approver", unknown, nil, off, "", true, yes, "", runs, true, off},
		{"unknown, sandboxed, approver", unknown, nil, ws, "", true, yes, "", runs, false, ws},
		{"unknown, sandboxed, no approver, unattended deny", unknown, nil, ws, "", true, nil, "deny", runs, false, ws},
		{"leaves, sandboxed, approver allows", leaves, nil, ws, "", true, yes, "", runs, true, off},
		{"leaves, sandboxed, approver denies", leaves, nil, ws, "", true, no, "", refuses, true, ""},
		{"leaves, sandboxed, no approver", leaves, nil, ws, "", true, nil, "", runs, false, ws},
		{"leaves, sandboxed, no approver, unattended deny", leaves, nil, ws, "", true, nil, "deny", refuses, false, ""},
		{"secret read, sandboxed, approver", secret, nil, ws, "", true, yes, "", runs, true, ws},
		{"secret read, sandboxed, approver denies", secret, nil, ws, "", true, no, "", refuses, true, ""},
		{"untrusted, sandboxed, approver", "ls", nil, ws, "", false, yes, "", runs, true, ws},
		{"untrusted, sandboxed, no approver", unknown, nil, ws, "", false, nil, "", refuses, false, ""},
		{"hard block, sandboxed, approver", blocked, nil, ws, "", true, yes, "", blocks, false, ""},
		{"proxy variable, no sandbox, approver", "ls", proxyVar, off, "", true, yes, "", runs, true, off},
		{"proxy variable, sandboxed: the proxy's own win", "ls", proxyVar, ws, "", true, yes, "", runs, false, ws},
		{"widen to off, approver allows", "ls", nil, ws, "off", true, yes, "", runs, true, off},
		{"widen to off, approver denies", "ls", nil, ws, "off", true, no, "", refuses, true, ""},
		{"widen to off, no approver", "ls", nil, ws, "off", true, nil, "", refuses, false, ""},
		{"widen from read-only, no approver", "ls", nil, ro, "workspace-write", true, nil, "", refuses, false, ""},
		{"narrow to read-only, no approver", unknown, nil, ws, "read-only", true, nil, "", runs, false, ro},
		{"same mode, no approver", unknown, nil, ws, "workspace-write", true, nil, "", runs, false, ws},
		{"off asked, no sandbox here", "ls", nil, off, "off", true, nil, "", runs, false, off},
		{"narrow asked, no sandbox here", "ls", nil, off, "read-only", true, nil, "", runs, false, off},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			cfg := config.Default()
			if tc.unattended != "" {
				cfg.Unattended = tc.unattended
			}
			st := sandbox.Status{Mode: tc.inForce, Backend: "test", Network: sandbox.NetworkOpen}
			e := New(Options{Root: root, Config: cfg, Policy: policy.New(cfg, root, nil),
				Sandbox: Sandbox{Status: func() sandbox.Status { return st }}})
			t.Cleanup(e.Close)
			h := Host{Trusted: tc.trusted}
			var a *answer
			if tc.approver != nil {
				a = &answer{d: tc.approver.d}
				h.Approver = a
			}
			e.SetHost(h)
			c, err := e.confinementFor(tc.requested)
			if err != nil {
				t.Fatal(err)
			}
			got := decided(e.approve(context.Background(), tc.command, root, tc.env, &c))
			if got != tc.want {
				t.Errorf("%q: %s, want %s", tc.command, got, tc.want)
			}
			if asked := a != nil && a.asked > 0; asked != tc.wantAsked {
				t.Errorf("%q: asked %v, want %v", tc.command, asked, tc.wantAsked)
			}
			if got == runs && c.mode != tc.wantMode {
				t.Errorf("%q: runs in mode %q, want %q", tc.command, c.mode, tc.wantMode)
			}
		})
	}
}

// TestSandboxRequired: with sandbox_required and no sandbox here, every
// command is refused with the probe's reason, and policy/check says deny.
func TestSandboxRequired(t *testing.T) {
	root := t.TempDir()
	cfg := config.Default()
	cfg.Sandbox.Required = true
	st := sandbox.Status{Mode: sandbox.Off, Backend: "none", Network: sandbox.NetworkOpen, Reason: "no Landlock here"}
	e := New(Options{Root: root, Config: cfg, Policy: policy.New(cfg, root, nil),
		Sandbox: Sandbox{Status: func() sandbox.Status { return st }}})
	t.Cleanup(e.Close)
	_, err := e.Run(context.Background(), RunParams{Command: "echo never"})
	var se *SandboxError
	if !errors.As(err, &se) || se.Reason != st.Reason || !errors.Is(err, ErrSandboxRequired) {
		t.Fatalf("got %v, want the sandbox required with the reason", err)
	}
	v, err := e.Check(context.Background(), "ls", "", "")
	if err != nil || v.Decision != policy.Deny || len(v.Reasons) != 1 || !strings.Contains(v.Reasons[0], st.Reason) {
		t.Fatalf("check: %+v %v", v, err)
	}
}

// TestSandboxOffByChoice: a sandbox the config turns off is no shortfall
// to report, and sandbox_required does not refuse what was asked.
func TestSandboxOffByChoice(t *testing.T) {
	root := t.TempDir()
	cfg := config.Default()
	cfg.Sandbox.Required = true
	st := sandbox.Status{Mode: sandbox.Off, Backend: "none", Network: sandbox.NetworkOpen,
		Reason: "With the sandbox off, commands reach the network directly."}
	e := New(Options{Root: root, Config: cfg,
		Sandbox: Sandbox{Asked: sandbox.Off, Status: func() sandbox.Status { return st }}})
	t.Cleanup(e.Close)
	if why := e.SandboxShortfall(); why != "" {
		t.Errorf("shortfall %q, want none", why)
	}
	if _, err := e.confinementFor(""); err != nil {
		t.Fatalf("refused: %v", err)
	}
	e.opts.Sandbox.Asked = sandbox.WorkspaceWrite
	if e.SandboxShortfall() == "" {
		t.Error("a sandbox asked for and missing is a shortfall")
	}
}
