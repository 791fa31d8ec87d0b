package engine

import (
	"context"

	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/policy"
)

// Decision is a host's answer to an approval request.
type Decision string

// The answers of PROTOCOL.md section 7.
const (
	Allow  Decision = "allow"
	Deny   Decision = "deny"
	Always Decision = "always" // allow, and remember the command's name (and subcommand)
)

// ApprovalRequest is a command the policy asks about.
type ApprovalRequest struct {
	Command string
	Cwd     string
	Reasons []string
}

// Approver asks the person behind the host. An error (the host is gone,
// ctx ended) counts as deny. Approve may block as long as a person
// decides: ctx ends when the request is cancelled or the helper stops.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Decision, error)
}

type approverKey struct{}

// WithApprover returns a context under which a is asked in place of the
// host's Approver: for a front end that asks per call (MCP's multi round
// trip, where the answer comes with a retried call).
func WithApprover(ctx context.Context, a Approver) context.Context {
	return context.WithValue(ctx, approverKey{}, a)
}

func approverFor(ctx context.Context, h Host) Approver {
	if a, ok := ctx.Value(approverKey{}).(Approver); ok {
		return a
	}
	return h.Approver
}

// approve decides whether command may run in dir with the request's env:
// hard blocks are refused, harmless lines run, the rest is asked of a host
// that can answer, or follows the config's unattended rule.
func (e *Engine) approve(ctx context.Context, command, dir string, env map[string]*string) error {
	if e.opts.Policy == nil {
		return nil
	}
	h := e.currentHost()
	h.Approver = approverFor(ctx, h)
	v := e.opts.Policy.Judge(command, dir, policy.Judging{Trusted: h.Trusted, Env: env})
	switch {
	case v.Decision == policy.Deny:
		return blocked(v.Reasons)
	case v.Decision == policy.Allow && h.Trusted:
		return nil
	case h.Approver != nil:
		return e.ask(ctx, h.Approver, ApprovalRequest{Command: command, Cwd: dir, Reasons: nonNil(v.Reasons)})
	case !h.Trusted:
		return notApproved("an untrusted command needs approval, and the host cannot give it", v.Reasons)
	case e.opts.Config.Unattended == "deny":
		return notApproved(`approval needed (unattended = "deny")`, v.Reasons)
	}
	return nil // the host approves what it sends: it has its own dialog
}

func (e *Engine) ask(ctx context.Context, a Approver, req ApprovalRequest) error {
	d, err := a.Approve(ctx, req)
	if err != nil {
		e.log.Info("approval not given", "err", err)
		refused := notApproved(ErrDeclined.Error(), req.Reasons)
		refused.Err = err
		return refused
	}
	switch d {
	case Allow:
		return nil
	case Always:
		e.remember(req.Command)
		return nil
	}
	return notApproved(ErrDeclined.Error(), req.Reasons)
}

// remember adds an "always" answer to the persisted allow list.
func (e *Engine) remember(command string) {
	name := policy.AlwaysName(command)
	if name == "" || e.opts.Store == nil {
		return
	}
	if err := e.opts.Store.Add(name); err != nil {
		e.log.Warn("could not persist the always-allow entry", "name", name, "err", err)
	}
}

// Check judges a command in cwd without running it.
func (e *Engine) Check(command, cwd string) (policy.Verdict, error) {
	dir, err := platform.ResolveDir(e.opts.Root, cwd)
	if err != nil {
		return policy.Verdict{}, err
	}
	if e.opts.Policy == nil {
		return policy.Verdict{Decision: policy.Allow, Reasons: []string{}}, nil
	}
	v := e.opts.Policy.CheckDir(command, dir, e.currentHost().Trusted)
	v.Reasons = nonNil(v.Reasons)
	return v, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
