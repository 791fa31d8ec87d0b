package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/policy"
)

// answer is an Approver with a fixed answer that counts its questions.
type answer struct {
	d     Decision
	err   error
	asked int
}

func (a *answer) Approve(context.Context, ApprovalRequest) (Decision, error) {
	a.asked++
	return a.d, a.err
}

// outcome is what approve decided.
type outcome string

const (
	runs    outcome = "runs"
	blocks  outcome = "blocked" // a hard block: no approval lifts it
	refuses outcome = "refused" // not approved, or approval not available
)

// TestApprovalMatrix: what runs, what is asked and what is refused, for
// every kind of host. A row per case; add a column (a sandbox, say) by
// adding a field and the rows it changes.
func TestApprovalMatrix(t *testing.T) {
	allowed, asks, blocked := "ls", "touch x", "sudo true"
	yes, no := &answer{d: Allow}, &answer{d: Deny}
	for _, tc := range []struct {
		name       string
		command    string
		trusted    bool
		approver   *answer // nil: the host has no approval capability
		unattended string  // config unattended: "allow" (default) or "deny"
		want       outcome
		wantAsked  bool
	}{
		{"harmless, trusted", allowed, true, nil, "", runs, false},
		{"harmless, trusted, approver", allowed, true, yes, "", runs, false},
		{"harmless, untrusted, approver", allowed, false, yes, "", runs, true},
		{"harmless, untrusted, no approver", allowed, false, nil, "", refuses, false},
		{"ask, trusted, approver allows", asks, true, yes, "", runs, true},
		{"ask, trusted, approver denies", asks, true, no, "", refuses, true},
		{"ask, trusted, no approver", asks, true, nil, "", runs, false},
		{"ask, trusted, no approver, unattended deny", asks, true, nil, "deny", refuses, false},
		{"ask, untrusted, approver allows", asks, false, yes, "", runs, true},
		{"ask, untrusted, no approver", asks, false, nil, "", refuses, false},
		{"hard block, trusted, approver", blocked, true, yes, "", blocks, false},
		{"hard block, untrusted, no approver", blocked, false, nil, "", blocks, false},
		{"hard block, unattended deny", blocked, true, nil, "deny", blocks, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			cfg := config.Default()
			if tc.unattended != "" {
				cfg.Unattended = tc.unattended
			}
			e := New(Options{Root: root, Config: cfg, Policy: policy.New(cfg, root, nil)})
			t.Cleanup(e.Close)
			h := Host{Trusted: tc.trusted}
			if tc.approver != nil {
				a := *tc.approver
				tc.approver = &a
				h.Approver = tc.approver
			}
			e.SetHost(h)
			got := decided(e.approve(context.Background(), tc.command, root, nil))
			if got != tc.want {
				t.Errorf("%q: %s, want %s", tc.command, got, tc.want)
			}
			if asked := tc.approver != nil && tc.approver.asked > 0; asked != tc.wantAsked {
				t.Errorf("%q: asked %v, want %v", tc.command, asked, tc.wantAsked)
			}
		})
	}
}

func decided(err error) outcome {
	var re *RefusedError
	switch {
	case err == nil:
		return runs
	case errors.As(err, &re) && re.Blocked:
		return blocks
	case errors.As(err, &re):
		return refuses
	}
	return outcome("error: " + err.Error())
}

// TestApprovalCancelled: a question whose request is cancelled while the
// person decides is withdrawn: the command does not run, and the error
// says cancelled, not declined.
func TestApprovalCancelled(t *testing.T) {
	root := t.TempDir()
	cfg := config.Default()
	e := New(Options{Root: root, Config: cfg, Policy: policy.New(cfg, root, nil)})
	t.Cleanup(e.Close)
	ctx, cancel := context.WithCancel(context.Background())
	e.SetHost(Host{Trusted: true, Approver: approverFunc(func(ctx context.Context) (Decision, error) {
		cancel()
		<-ctx.Done()
		return Deny, ctx.Err()
	})})
	if err := e.approve(ctx, "touch x", root, nil); !errors.Is(err, ErrCancelled) {
		t.Fatalf("got %v, want ErrCancelled", err)
	}
}

type approverFunc func(context.Context) (Decision, error)

func (f approverFunc) Approve(ctx context.Context, _ ApprovalRequest) (Decision, error) {
	return f(ctx)
}
