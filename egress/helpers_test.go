package egress

import (
	"bufio"
	"context"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// watchdog bounds every wait in these tests; nothing is expected to take
// it, it only stops a hung test.
const watchdog = 20 * time.Second

// askerFunc is an Asker made of a function.
type askerFunc func(ctx context.Context, r Request) (Decision, error)

func (f askerFunc) Ask(ctx context.Context, r Request) (Decision, error) { return f(ctx, r) }

// never is an Asker that must not be called.
func never(t *testing.T) Asker {
	return askerFunc(func(_ context.Context, r Request) (Decision, error) {
		t.Errorf("asked about %s:%d, which the rules settle", r.Host, r.Port)
		return Deny, nil
	})
}

// answering answers every question with d and counts them.
type answering struct {
	d     Decision
	calls atomic.Int32
	mu    sync.Mutex
	asked []Request
}

func (a *answering) Ask(_ context.Context, r Request) (Decision, error) {
	a.calls.Add(1)
	a.mu.Lock()
	a.asked = append(a.asked, r)
	a.mu.Unlock()
	return a.d, nil
}

// hosts stands for DNS: each name leads to a loopback origin, whatever the
// port asked; other names do not exist. It is the "outside" of the tests.
func hosts(names map[string]string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		h, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		to, ok := names[h]
		if !ok {
			return nil, &net.DNSError{Err: "no such host", Name: h, IsNotFound: true}
		}
		var d net.Dialer
		return d.DialContext(ctx, network, to)
	}
}

func newProxy(t *testing.T, o Options) *Proxy {
	t.Helper()
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

func listen(t *testing.T, p *Proxy, ask Asker) *Listener {
	t.Helper()
	l, err := p.Listen(Request{Command: "curl https://example.com", SessionID: "7"}, ask)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}

// origin is an HTTP server on loopback that answers with its path, and
// reports the requests it got.
func origin(t *testing.T) (*httptest.Server, chan *http.Request) {
	t.Helper()
	got := make(chan *http.Request, 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r
		io.WriteString(w, "path "+r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

// echo is a TCP server that sends back what it reads, and half-closes its
// side when the client has.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				io.Copy(c, c)
				c.(*net.TCPConn).CloseWrite()
			})
		}
	})
	return ln.Addr().String()
}

// client is a raw connection to a listener, speaking HTTP by hand so that
// a test sees exactly what goes over it.
type client struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
	l  *Listener
}

func dialListener(t *testing.T, l *Listener) *client {
	t.Helper()
	nc, err := net.DialTimeout("tcp", l.Addr(), watchdog)
	if err != nil {
		t.Fatal(err)
	}
	nc.SetDeadline(time.Now().Add(watchdog))
	t.Cleanup(func() { nc.Close() })
	return &client{t: t, nc: nc, br: bufio.NewReader(nc), l: l}
}

// auth is the Proxy-Authorization header line a command would send.
func auth(l *Listener) string {
	cred := base64.StdEncoding.EncodeToString([]byte(user + ":" + l.token))
	return "Proxy-Authorization: Basic " + cred + "\r\n"
}

func (c *client) send(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.nc, s); err != nil {
		c.t.Fatal(err)
	}
}

// connect sends CONNECT and returns the answer's status and body.
func (c *client) connect(hostport string) (int, string) {
	c.t.Helper()
	c.send("CONNECT " + hostport + " HTTP/1.1\r\nHost: " + hostport + "\r\n" + auth(c.l) + "\r\n")
	return c.answer("CONNECT")
}

// get sends an absolute-form GET and returns the answer's status and body.
func (c *client) get(rawURL string, headers ...string) (int, string) {
	c.t.Helper()
	u, _ := url.Parse(rawURL)
	c.send("GET " + rawURL + " HTTP/1.1\r\nHost: " + u.Host + "\r\n" + auth(c.l) + strings.Join(headers, "") + "\r\n")
	return c.answer("GET")
}

// answer reads one response; a 200 to CONNECT has no body to read.
func (c *client) answer(method string) (int, string) {
	c.t.Helper()
	resp, err := http.ReadResponse(c.br, &http.Request{Method: method})
	if err != nil {
		c.t.Fatalf("reading the answer: %v", err)
	}
	if method == "CONNECT" && resp.StatusCode == 200 {
		return 200, ""
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("reading the answer's body: %v", err)
	}
	return resp.StatusCode, string(b)
}

// proxied is a Go HTTP client set up from a listener's Env, as a command
// would be.
func proxied(t *testing.T, l *Listener) *http.Client {
	t.Helper()
	u, err := url.Parse(l.Env()["HTTPS_PROXY"])
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{Proxy: http.ProxyURL(u), DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: watchdog}
}

// waitFor polls cond until it holds; the deadline is only a watchdog.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(watchdog)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// noLeak waits for the goroutine count to come back to before.
func noLeak(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(watchdog)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines left running (%d before):\n%s", n-before, before, buf[:runtime.Stack(buf, true)])
	}
}

// waiters is how many connections wait on the open question about host.
func (l *Listener) waiters(host string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if q := l.asking[host]; q != nil {
		return q.waiters
	}
	return 0
}

func timeAfter() <-chan time.Time { return time.After(watchdog) }
