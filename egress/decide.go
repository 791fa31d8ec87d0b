package egress

import (
	"context"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// verdict is what was decided about one host.
type verdict struct {
	allow     bool
	why       string // a refusal's reason, said after the host
	withdrawn bool   // nobody waits for the answer any more: nothing was decided
}

// question is one host being asked about, and the connections waiting.
type question struct {
	done    chan struct{} // closed when v is set
	v       verdict
	waiters int // under Listener.mu
	cancel  context.CancelFunc
}

// judge decides whether the session may reach host on port. The deny list comes
// first, then the allow list, loopback and the remembered hosts, then what
// this session was told, then a question, which ctx withdraws when the
// client goes away.
func (l *Listener) judge(ctx context.Context, host string, port int) verdict {
	if v, ok := l.p.ruled(host, port); ok {
		return v
	}
	if l.ask == nil {
		return verdict{why: "not on the network allow list"}
	}
	q, v, ok := l.join(host, port)
	if ok {
		return v
	}
	select {
	case <-q.done:
		return q.v
	case <-ctx.Done():
		l.leave(ruleKey(host, port), q)
		return verdict{why: "the client went away", withdrawn: true}
	}
}

// join returns the session's earlier answer about host on port (one for
// 443 stands for 80 too), or the question to wait for, asking it if
// nobody has yet.
func (l *Listener) join(host string, port int) (*question, verdict, bool) {
	key := ruleKey(host, port)
	l.mu.Lock()
	defer l.mu.Unlock()
	if v, ok := l.decided[key]; ok {
		return nil, v, true
	}
	q := l.asking[key]
	if q == nil {
		ctx, cancel := context.WithCancel(l.ctx)
		q = &question{done: make(chan struct{}), cancel: cancel}
		l.asking[key] = q
		r := l.who
		r.Host, r.Port = host, port
		l.wg.Go(func() { l.settle(ctx, q, r) })
	}
	q.waiters++
	return q, verdict{}, false
}

// leave is a waiting client gone: the last one withdraws the question, and
// the next attempt asks again.
func (l *Listener) leave(key string, q *question) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if q.waiters--; q.waiters > 0 {
		return
	}
	if l.asking[key] == q {
		delete(l.asking, key)
	}
	q.cancel()
}

// settle asks, and keeps the answer for the session.
func (l *Listener) settle(ctx context.Context, q *question, r Request) {
	d, err := l.ask.Ask(ctx, r)
	v := l.verdictOf(ctx, r, d, err)
	key := ruleKey(r.Host, r.Port)
	l.mu.Lock()
	if l.asking[key] == q {
		delete(l.asking, key)
	}
	if !v.withdrawn {
		l.decided[key] = v
	}
	q.v = v
	l.mu.Unlock()
	q.cancel()
	close(q.done)
}

// verdictOf reads an answer. One given after the question was withdrawn
// still counts: the person did answer.
func (l *Listener) verdictOf(ctx context.Context, r Request, d Decision, err error) verdict {
	switch {
	case err != nil && ctx.Err() != nil:
		return verdict{why: "the question was withdrawn", withdrawn: true}
	case err != nil:
		l.p.log.Warn("egress: asking failed", "host", r.Host, "port", r.Port, "err", err)
		return verdict{why: "could not be asked about (" + oneLine(err.Error()) + ")"}
	case d == Always:
		l.p.remember(r.Host, r.Port)
		return verdict{allow: true}
	case d == Allow:
		return verdict{allow: true}
	}
	return verdict{why: "refused when asked"}
}

// refused records a refusal for Denied, once per host and port.
func (l *Listener) refused(host string, port int, why string) {
	key := net.JoinHostPort(host, strconv.Itoa(port))
	l.mu.Lock()
	if !l.seen[key] {
		l.seen[key] = true
		r := l.who
		r.Host, r.Port = host, port
		l.denied = append(l.denied, r)
	}
	l.mu.Unlock()
	l.p.log.Info("egress: refused", "host", host, "port", port, "why", why, "session", l.who.SessionID)
}

// loopback: the command reaches these without the proxy (0.0.0.0 and ::
// are loopback to connect), so going through it changes nothing.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && (a.IsLoopback() || a.IsUnspecified())
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
