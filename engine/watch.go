package engine

import (
	"context"
	"fmt"

	"github.com/termhelper/termhelper/egress"
	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/sandbox"
	"github.com/termhelper/termhelper/session"
)

// watcher is what a confined session carries besides its process: its
// door to the egress proxy, and the refusals read from its output.
type watcher struct {
	refusals *sandbox.Refusals
	listener *egress.Listener // nil: the network is not proxied
	dotenv   *dotenvCache
	opened   map[string]int // the opens of the .env files when it started
}

// watch makes a confined session's watcher: with a proxy, the session's
// listener, whose variables go over everything else in the command's
// environment, so a request's env cannot take them away.
func (e *Engine) watch(id string, ps *platform.Spec, command string, plan sandbox.Plan, home string,
	proxy *egress.Proxy, ask egress.Asker) (session.Watcher, error) {
	w := &watcher{refusals: sandbox.NewRefusals(plan, home, sandbox.MeasuredCaps()), dotenv: &e.dotenv, opened: e.dotenv.openSnapshot()}
	if proxy == nil {
		return w, nil
	}
	l, err := proxy.Listen(egress.Request{Command: command, SessionID: id}, ask)
	if err != nil {
		return nil, fmt.Errorf("the egress proxy: %w", err)
	}
	w.listener = l
	vars := map[string]*string{}
	for k, v := range l.Env() {
		vars[k] = &v
	}
	ps.Env = platform.Overlay(ps.Env, platform.FoldEnvCase, vars)
	return w, nil
}

func (w *watcher) Line(line string) { w.refusals.Line(line) }

// Denied lists the hosts the proxy refused, then the paths read from
// the output.
func (w *watcher) Denied() []sandbox.Denial {
	var out []sandbox.Denial
	if w.listener != nil {
		for _, r := range w.listener.Denied() {
			out = append(out, sandbox.Denial{Kind: "network", Host: r.Host, Port: r.Port})
		}
	}
	return append(out, w.refusals.List()...)
}

// Opened lists the project's .env files opened while the command ran:
// by it, or by another program at the same time (inotify does not say
// which process opened a file).
func (w *watcher) Opened() []string { return w.dotenv.openedSince(w.opened) }

func (w *watcher) Close() {
	if w.listener != nil {
		w.listener.Close()
	}
}

// networkAsker asks the host's Approver about a host the proxy's rules do
// not settle, as a network approval request.
type networkAsker struct {
	e *Engine
	a Approver
}

func (n networkAsker) Ask(ctx context.Context, r egress.Request) (egress.Decision, error) {
	req := ApprovalRequest{Kind: KindNetwork, Host: Shown(r.Host), Port: r.Port, Command: Shown(r.Command),
		Reasons: []string{Shown(r.Host) + " is not on the network allow list"}}
	if req.Command != r.Command {
		req.ExactCommand = r.Command
	}
	d, err := n.a.Approve(ctx, req)
	if err != nil {
		n.e.log.Info("network approval not given", "host", r.Host, "err", err)
		return egress.Deny, err
	}
	switch d {
	case Allow:
		return egress.Allow, nil
	case Always:
		return egress.Always, nil
	}
	return egress.Deny, nil
}

// networkAsker is the Asker of a command's egress listener: the approver
// of its request, or of the host; nil where the host cannot be asked
// (the allow list alone then decides).
func (e *Engine) networkAsker(ctx context.Context) egress.Asker {
	a := approverFor(ctx, e.hostFor(ctx))
	if a == nil {
		return nil
	}
	return networkAsker{e: e, a: a}
}
