package egress

import (
	"context"
	"crypto/rand"
	"errors"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Listener is one session's door to the proxy, on 127.0.0.1 with a port
// of its own. Every connection to it is the session's command: it carries
// the listener's credentials (Env), which no other process is given, so
// one session can neither use another's answers nor ask in its name.
type Listener struct {
	p     *Proxy
	who   Request // Command and SessionID
	ask   Asker
	ln    net.Listener
	token string

	ctx    context.Context // ends at Close: every question, dial and request
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
	closed chan struct{}

	mu      sync.Mutex
	conns   map[net.Conn]bool    // clients and tunnels' far ends, to end at Close
	decided map[string]verdict   // by ruleKey (host, and a port but 80 and 443), for the rest of the session
	asking  map[string]*question // by ruleKey, while a person is asked
	denied  []Request
	seen    map[string]bool // host:port already in denied
}

// Listen opens a listener for one session: who names its Command and
// SessionID (Host and Port are not read). With a nil ask, hosts that the
// rules do not allow are refused.
func (p *Proxy) Listen(who Request, ask Asker) (*Listener, error) {
	ln, err := p.listen()
	if err != nil {
		return nil, err
	}
	l := &Listener{p: p, who: Request{Command: who.Command, SessionID: who.SessionID}, ask: ask,
		ln: ln, token: rand.Text(), closed: make(chan struct{}),
		conns: map[net.Conn]bool{}, decided: map[string]verdict{},
		asking: map[string]*question{}, seen: map[string]bool{}}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	if err := p.add(l); err != nil {
		ln.Close()
		return nil, err
	}
	l.wg.Go(l.accept)
	return l, nil
}

// Addr is "127.0.0.1:PORT".
func (l *Listener) Addr() string { return l.ln.Addr().String() }

// Denied lists the hosts refused in this session, each host and port once,
// in the order they were first refused.
func (l *Listener) Denied() []Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.denied)
}

// Close ends the session's tunnels, requests and questions, and returns
// when every goroutine they used has ended.
func (l *Listener) Close() {
	l.once.Do(func() {
		l.cancel()
		l.ln.Close()
		l.mu.Lock()
		for c := range l.conns {
			c.Close()
		}
		l.mu.Unlock()
		l.wg.Wait()
		l.p.drop(l)
		close(l.closed)
	})
	<-l.closed
}

func (l *Listener) accept() {
	for pause := time.Duration(0); ; {
		c, err := l.ln.Accept()
		if err != nil {
			if l.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of descriptors, most likely: wait for some to be freed,
			// as net/http does, rather than spin.
			pause = min(max(2*pause, 5*time.Millisecond), time.Second)
			time.Sleep(pause)
			continue
		}
		pause = 0
		if !l.track(c) {
			c.Close()
			return
		}
		l.wg.Go(func() {
			defer l.untrack(c)
			newConn(l, c).serve()
		})
	}
}

// track keeps c to be closed by Close; false once Close has begun.
func (l *Listener) track(c net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ctx.Err() != nil {
		return false
	}
	l.conns[c] = true
	return true
}

func (l *Listener) untrack(c net.Conn) {
	c.Close()
	l.mu.Lock()
	delete(l.conns, c)
	l.mu.Unlock()
}

// dial reaches an allowed host: a tunnel's far end or a plain request's
// origin, tracked so that Close ends it. Whatever Options.Dial is, an
// attempt ends after DialTimeout, or when the client or the session goes.
func (l *Listener) dial(ctx context.Context, host string, port int) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, DialTimeout)
	defer cancel()
	nc, err := l.p.opts.Dial(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return nil, err
	}
	if !l.track(nc) {
		nc.Close()
		return nil, ErrClosed
	}
	return nc, nil
}
