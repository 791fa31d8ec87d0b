package egress

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"
)

// Decision is a person's answer about a host.
type Decision string

const (
	Allow  Decision = "allow"  // this connection, and the session's later ones to the host
	Deny   Decision = "deny"   // refused, for the rest of the session
	Always Decision = "always" // allowed, and remembered for the root (Options.Remember)
)

// Request is one attempt to reach a host, and who made it.
type Request struct {
	Host      string // normalised: lower case, no trailing dot, IPv6 without brackets
	Port      int
	Command   string // the command line of the session
	SessionID string
}

// Asker asks a person about a host the rules do not settle. Ask is called
// once per host and session while connections to it wait; ctx ends when
// every waiting client has gone away or the listener closes, and the
// question is then withdrawn: Ask must return soon after. An error is a
// refusal.
type Asker interface {
	Ask(ctx context.Context, r Request) (Decision, error)
}

// Options are the rules of one helper's proxy.
type Options struct {
	// Allow and Deny are host patterns (see CheckPattern). Deny wins over
	// Allow, over remembered hosts and over any answer.
	Allow, Deny []string
	// Remembered lists the hosts "always" allowed for this root; read at
	// each judgement that Allow does not settle (the caller caches).
	Remembered func() []string
	// Remember persists an "always"; the proxy also keeps it for its own
	// life, so a failure to persist costs only the next helper.
	Remember func(host string) error
	// Dial reaches a host once it is allowed; nil is a net.Dialer that
	// gives up after DialTimeout. Names are resolved here and only here.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	Log  *slog.Logger
}

// DialTimeout bounds a connection attempt to an allowed host.
const DialTimeout = 30 * time.Second

// ErrClosed is returned by Listen after Close.
var ErrClosed = errors.New("egress proxy closed")

// Proxy is one helper's egress proxy: the rules, and a listener per
// session. New opens no socket; each Listen opens one.
type Proxy struct {
	allow, deny portRules
	opts        Options
	log         *slog.Logger

	mu        sync.Mutex
	always    map[string]bool // "always" answers of this helper's life, by ruleKey
	listeners map[*Listener]bool
	ahead     net.Listener // opened for the next session (see listen)
	closed    bool
}

// New reads the rules. A pattern it cannot read is an error, never skipped.
func New(o Options) (*Proxy, error) {
	allow, err := compilePorts(o.Allow)
	if err != nil {
		return nil, fmt.Errorf("network_allow: %w", err)
	}
	deny, err := compilePorts(o.Deny)
	if err != nil {
		return nil, fmt.Errorf("network_deny: %w", err)
	}
	if o.Dial == nil {
		d := &net.Dialer{Timeout: DialTimeout, KeepAlive: 30 * time.Second}
		o.Dial = d.DialContext
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Proxy{allow: allow, deny: deny, opts: o, log: log,
		always: map[string]bool{}, listeners: map[*Listener]bool{}}, nil
}

// Close ends every listener, every tunnel and every open question, and
// returns when their goroutines have.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	if p.ahead != nil {
		p.ahead.Close()
		p.ahead = nil
	}
	ls := make([]*Listener, 0, len(p.listeners))
	for l := range p.listeners {
		ls = append(ls, l)
	}
	p.mu.Unlock()
	for _, l := range ls {
		l.Close()
	}
}

// ruled is what the rules alone say of a host on a port: deny, allow, or
// ask. An allowed host is allowed on 80 and 443, or on the port its
// entry names. Loopback is let through: the command reaches it directly
// anyway.
func (p *Proxy) ruled(host string, port int) (verdict, bool) {
	if p.deny.match(host, port, everyPort) {
		return verdict{why: "on the network deny list"}, true
	}
	if p.allow.match(host, port, webPorts) || loopback(host) || p.remembered(host, port) {
		return verdict{allow: true}, true
	}
	return verdict{}, false
}

func (p *Proxy) remembered(host string, port int) bool {
	p.mu.Lock()
	ok := p.always[ruleKey(host, port)]
	p.mu.Unlock()
	if ok || p.opts.Remembered == nil {
		return ok
	}
	r := compilePortsLoose(p.opts.Remembered())
	return r.match(host, port, webPorts)
}

// remember keeps an "always" for this proxy's life and hands it to the
// caller to persist: the host, with the port where it is not a web port.
func (p *Proxy) remember(host string, port int) {
	key := ruleKey(host, port)
	p.mu.Lock()
	p.always[key] = true
	p.mu.Unlock()
	if p.opts.Remember == nil {
		return
	}
	if err := p.opts.Remember(key); err != nil {
		p.log.Warn("egress: could not remember an always-allowed host", "host", key, "err", err)
	}
}

func (p *Proxy) add(l *Listener) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrClosed
	}
	p.listeners[l] = true
	return nil
}

func (p *Proxy) drop(l *Listener) {
	p.mu.Lock()
	delete(p.listeners, l)
	p.mu.Unlock()
	p.openAhead()
}

// listen opens a session's loopback socket, or gives the one opened
// ahead: opening one was 70 µs of each confined command's start. A
// connection made to it before it was given meets the session's
// credentials, made after, like any other.
func (p *Proxy) listen() (net.Listener, error) {
	p.mu.Lock()
	ln := p.ahead
	p.ahead = nil
	p.mu.Unlock()
	if ln != nil {
		return ln, nil
	}
	return net.Listen("tcp", "127.0.0.1:0")
}

// openAhead opens the next session's socket, once a session has ended:
// off the next command's start, and not beside this one's answer.
func (p *Proxy) openAhead() {
	p.mu.Lock()
	open := !p.closed && p.ahead == nil
	p.mu.Unlock()
	if !open {
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return // the next session opens its own, and says why it could not
	}
	p.mu.Lock()
	if !p.closed && p.ahead == nil {
		p.ahead, ln = ln, nil
	}
	p.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
}
