package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/termhelper/termhelper/egress"
	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/sandbox"
	"github.com/termhelper/termhelper/session"
)

// watcher is what a confined session carries besides its process: its
// door to the egress proxy, and the refusals read from its output.
type watcher struct {
	refusals *refusals
	listener *egress.Listener // nil: the network is not proxied
	dotenv   *dotenvCache
	opened   map[string]int // the opens of the .env files when it started
}

// watch makes a confined session's watcher: with a proxy, the session's
// listener, whose variables go over everything else in the command's
// environment, so a request's env cannot take them away.
func (e *Engine) watch(id string, ps *platform.Spec, command string, plan sandbox.Plan, home string,
	proxy *egress.Proxy, ask egress.Asker) (session.Watcher, error) {
	w := &watcher{refusals: newRefusals(plan, home), dotenv: &e.dotenv, opened: e.dotenv.openSnapshot()}
	w.refusals.caps = measuredCaps()
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

func (w *watcher) Line(line string) { w.refusals.line(line) }

// Denied lists the hosts the proxy refused, then the paths read from
// the output.
func (w *watcher) Denied() []sandbox.Denial {
	var out []sandbox.Denial
	if w.listener != nil {
		for _, r := range w.listener.Denied() {
			out = append(out, sandbox.Denial{Kind: "network", Host: r.Host, Port: r.Port})
		}
	}
	return append(out, w.refusals.list()...)
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

// maxRefusals bounds the paths kept from one command's output.
const maxRefusals = 16

// refusals are the paths a confined command's error lines say it was
// refused (see sandbox.RefusedPath), each once.
type refusals struct {
	plan sandbox.Plan
	home string
	caps capsHere

	mu   sync.Mutex
	seen []sandbox.Denial
}

func newRefusals(plan sandbox.Plan, home string) *refusals {
	return &refusals{plan: plan, home: home}
}

func (r *refusals) line(line string) {
	d, ok := sandbox.RefusedPath(line, r.plan, r.home)
	if !ok {
		d, ok = limitRefused(line, r.plan, r.caps)
	}
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.seen {
		if s == d {
			return
		}
	}
	if len(r.seen) < maxRefusals {
		r.seen = append(r.seen, d)
	}
}

func (r *refusals) list() []sandbox.Denial {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]sandbox.Denial(nil), r.seen...)
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
