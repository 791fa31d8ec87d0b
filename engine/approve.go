package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/policy"
	"github.com/termhelper/termhelper/sandbox"
)

// Decision is a host's answer to an approval request.
type Decision string

// The answers of PROTOCOL.md section 7.
const (
	Allow  Decision = "allow"
	Deny   Decision = "deny"
	Always Decision = "always" // allow, and remember the command's name (and subcommand)
)

// ApprovalRequest is a command the policy asks about, safe to show: a
// host's dialog is a terminal or a web view, where a carriage return or an
// escape sequence in the command could draw another command over it. So
// Command, Cwd and Reasons show every control character as an escape
// (\r, \x1b, \u202e: see Shown); newlines and tabs stay. When that
// changes the command, ExactCommand is the line exactly as it will run,
// and a reason says so.
//
// Kind is KindCommand for a command the policy asks about, KindNetwork
// for a host a running command tries to reach through the egress proxy
// (Host and Port set, Cwd empty).
type ApprovalRequest struct {
	Kind         string
	Command      string
	ExactCommand string // "" when it is Command
	Cwd          string
	Host         string
	Port         int
	Reasons      []string
	// Planted names, by their paths in the root, the files that make
	// another program run code (.vscode/tasks.json, .claude/, .envrc...,
	// a submodule's .git) changed since the last question while commands
	// ran confined.
	Planted []string
}

// The kinds of approval request.
const (
	KindCommand = "command"
	KindNetwork = "network"
)

// hiddenReason is the reason added when the command holds characters a
// dialog would not show as they are.
const hiddenReason = `the command holds control or invisible characters, shown escaped (\r, \x1b, \u202e); exactCommand is the line as it will run`

// newApprovalRequest builds the request for command in dir, with the
// policy's reasons.
func newApprovalRequest(command, dir string, reasons []string) ApprovalRequest {
	req := ApprovalRequest{Kind: KindCommand, Command: Shown(command), Cwd: Shown(dir), Reasons: []string{}}
	for _, r := range reasons {
		req.Reasons = append(req.Reasons, Shown(r))
	}
	if req.Command != command {
		req.ExactCommand = command
		req.Reasons = append(req.Reasons, hiddenReason)
	}
	return req
}

// Shown writes s so that what a terminal or a browser shows is what it
// holds: C0 and C1 controls (but newline and tab), DEL, bytes that are not
// UTF-8, and the characters that reorder or hide text (bidirectional
// controls, zero-width characters, line and paragraph separators) become
// escapes such as \r, \x1b, \x7f, \u0085, \u202e.
func Shown(s string) string {
	if !strings.ContainsFunc(s, hidden) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// hidden reports whether r is drawn as something other than itself.
func hidden(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x061c, r >= 0x200b && r <= 0x200f, r >= 0x2028 && r <= 0x202e,
		r >= 0x2060 && r <= 0x2069, r == 0xfeff:
		return true
	}
	return false
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

// approve decides whether command may run in dir with the request's env,
// confined as c says: hard blocks are refused, harmless lines run, the
// rest is asked of a host that can answer, or follows the config's
// unattended rule. A request for a wider sandbox is asked about too, and
// refused where the host cannot answer. A line that leaves the sandbox
// (Verdict.Leaves) runs unconfined once a person approved it, or the
// user's own lists allow it; with a host that cannot be asked it runs
// confined.
func (e *Engine) approve(ctx context.Context, command, dir string, env map[string]*string, c *confinement) error {
	if e.opts.Policy == nil {
		return e.approveWidening(ctx, command, dir, c)
	}
	h := e.hostFor(ctx)
	h.Approver = approverFor(ctx, h)
	v := e.opts.Policy.Judge(command, dir, policy.Judging{Trusted: h.Trusted, Sandboxed: c.confined(), Env: env})
	reasons := v.Reasons
	if c.widens {
		reasons = append(slices.Clone(reasons), c.wideningReason())
	}
	switch {
	case v.Decision == policy.Deny:
		return blocked(v.Reasons)
	case v.Decision == policy.Allow && h.Trusted && !c.widens:
	case h.Approver != nil:
		if err := e.ask(ctx, h.Approver, command, newApprovalRequest(command, dir, reasons)); err != nil {
			return err
		}
	case c.widens:
		return notApproved("a wider sandbox needs approval, and the host cannot give it", reasons)
	case !h.Trusted:
		return notApproved("an untrusted command needs approval, and the host cannot give it", reasons)
	case e.opts.Config.Unattended == "deny":
		return notApproved(`approval needed (unattended = "deny")`, reasons)
	default:
		return nil // the host approves what it sends, but cannot let a line leave the sandbox
	}
	if v.Leaves {
		c.leave()
	}
	return nil
}

// approveWidening is approve without a policy: only a wider sandbox is
// asked about.
func (e *Engine) approveWidening(ctx context.Context, command, dir string, c *confinement) error {
	if !c.widens {
		return nil
	}
	h := e.hostFor(ctx)
	a := approverFor(ctx, h)
	reasons := []string{c.wideningReason()}
	if a == nil {
		return notApproved("a wider sandbox needs approval, and the host cannot give it", reasons)
	}
	return e.ask(ctx, a, command, newApprovalRequest(command, dir, reasons))
}

func (e *Engine) ask(ctx context.Context, a Approver, command string, req ApprovalRequest) error {
	changed, state := e.planted.Since(e.opts.Root)
	if len(changed) > 0 {
		req.Planted = changed
		req.Reasons = append(req.Reasons, Shown(sandbox.PlantedReason(changed)))
	}
	d, err := a.Approve(ctx, req)
	if ctx.Err() != nil {
		return ErrCancelled // the question is withdrawn with the request
	}
	if err != nil {
		e.log.Info("approval not given", "err", err)
		refused := notApproved(ErrDismissed.Error(), req.Reasons)
		refused.Err = err
		return refused
	}
	e.planted.Answered(state) // a person saw them
	switch d {
	case Allow:
		return nil
	case Always:
		e.remember(command)
		return nil
	case Deny:
		return notApproved(ErrDeclined.Error(), req.Reasons)
	}
	return notApproved(ErrDismissed.Error(), req.Reasons)
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

// CheckResult is what Run would do with a command now: the decision,
// with the sandbox in force, and the mode it would run in (for "ask":
// once approved). A command that leaves the sandbox runs in mode off.
type CheckResult struct {
	Decision policy.Decision
	Reasons  []string
	Sandbox  sandbox.Mode
}

// Check judges a command in cwd, asking for sandbox mode requested ("":
// the config's), without running it. Where the config requires a sandbox
// this machine does not have, the answer is deny with the reason.
func (e *Engine) Check(ctx context.Context, command, cwd, requested string) (CheckResult, error) {
	if err := checkSandbox(requested); err != nil {
		return CheckResult{}, err
	}
	dir, err := platform.ResolveDir(e.opts.Root, cwd)
	if err != nil {
		return CheckResult{}, err
	}
	c, err := e.confinementFor(requested)
	var se *SandboxError
	if errors.As(err, &se) {
		return CheckResult{Decision: policy.Deny, Reasons: []string{se.Error()}, Sandbox: sandbox.Off}, nil
	}
	v := policy.Verdict{Decision: policy.Allow}
	if e.opts.Policy != nil {
		v = e.opts.Policy.Judge(command, dir, policy.Judging{Trusted: e.hostFor(ctx).Trusted, Sandboxed: c.confined()})
	}
	if c.widens && v.Decision == policy.Allow {
		v.Decision = policy.Ask
	}
	if c.widens && v.Decision == policy.Ask {
		v.Reasons = append(v.Reasons, c.wideningReason())
	}
	if v.Leaves && v.Decision != policy.Deny {
		c.leave()
	}
	return CheckResult{Decision: v.Decision, Reasons: nonNil(v.Reasons), Sandbox: c.mode}, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
