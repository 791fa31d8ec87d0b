package egress

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// A tunnel to an allowed host carries bytes both ways and passes on the
// end of each direction: the client half-closes and still reads the whole
// echo, then the end.
func TestConnectTunnelsToAllowedHost(t *testing.T) {
	far := echo(t)
	p := newProxy(t, Options{Allow: []string{"echo.test"}, Dial: hosts(map[string]string{"echo.test": far})})
	l := listen(t, p, never(t))
	c := dialListener(t, l)
	if code, body := c.connect("echo.test:443"); code != 200 {
		t.Fatalf("CONNECT: %d %q", code, body)
	}
	msg := strings.Repeat("through the tunnel ", 10000)
	go func() {
		io.WriteString(c.nc, msg)
		c.nc.(*net.TCPConn).CloseWrite()
	}()
	got, err := io.ReadAll(c.br)
	if err != nil || string(got) != msg {
		t.Fatalf("echo: %d bytes, %v; want %d bytes", len(got), err, len(msg))
	}
	if d := l.Denied(); len(d) != 0 {
		t.Errorf("Denied: %v", d)
	}
}

// TLS inside the tunnel is the client's own: a Go client reaches an HTTPS
// origin by name, with the name checked against the origin's certificate.
func TestConnectCarriesTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "secure "+r.Host)
	}))
	t.Cleanup(srv.Close)
	p := newProxy(t, Options{Allow: []string{"example.com"}, Dial: hosts(map[string]string{"example.com": srv.Listener.Addr().String()})})
	l := listen(t, p, never(t))
	hc := proxied(t, l)
	hc.Transport.(*http.Transport).TLSClientConfig = &tls.Config{RootCAs: srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}
	resp, err := hc.Get("https://example.com/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if string(b) != "secure example.com" {
		t.Fatalf("got %q", b)
	}
}

// Every request on a keep-alive connection is judged on its own host: one
// to a denied host is refused and the connection goes on serving.
func TestPlainHTTPJudgesEachRequest(t *testing.T) {
	srv, got := origin(t)
	p := newProxy(t, Options{Allow: []string{"allowed.test"}, Deny: []string{"denied.test"},
		Dial: hosts(map[string]string{"allowed.test": srv.Listener.Addr().String(), "denied.test": srv.Listener.Addr().String()})})
	l := listen(t, p, never(t))
	c := dialListener(t, l)

	code, body := c.get("http://allowed.test/a", "Connection: keep-alive, X-Hop\r\n", "X-Hop: 1\r\n", "Proxy-Connection: keep-alive\r\n", "X-Kept: 1\r\n")
	if code != 200 || body != "path /a" {
		t.Fatalf("first request: %d %q", code, body)
	}
	r := <-got
	if r.Host != "allowed.test" || r.Header.Get("X-Kept") != "1" {
		t.Errorf("origin got Host %q, X-Kept %q", r.Host, r.Header.Get("X-Kept"))
	}
	for _, h := range []string{"Proxy-Authorization", "Proxy-Connection", "X-Hop", "User-Agent"} {
		if v, ok := r.Header[h]; ok {
			t.Errorf("origin got %s: %q", h, v)
		}
	}

	code, body = c.get("http://denied.test/b")
	if code != 403 || !strings.Contains(body, "denied.test:80") || !strings.Contains(body, "deny list") {
		t.Fatalf("request to a denied host: %d %q", code, body)
	}
	c.send("POST http://denied.test/upload HTTP/1.1\r\nHost: denied.test\r\n" + auth(l) + "Content-Length: 11\r\n\r\nsecret data")
	if code, body = c.answer("POST"); code != 403 {
		t.Fatalf("a refused upload: %d %q", code, body)
	}
	code, body = c.get("http://allowed.test/c")
	if code != 200 || body != "path /c" {
		t.Fatalf("request after the refusal: %d %q", code, body)
	}
	if r := <-got; r.URL.Path != "/c" {
		t.Errorf("the origin got %s, want /c", r.URL.Path)
	}
	want := []Request{{Host: "denied.test", Port: 80, Command: "curl https://example.com", SessionID: "7"}}
	if d := l.Denied(); !slices.Equal(d, want) {
		t.Errorf("Denied: %v, want %v", d, want)
	}
	if len(got) != 0 {
		t.Errorf("the denied request reached the origin")
	}
}

// Deny wins over the allow list, over hosts remembered as always allowed,
// and nobody is asked.
func TestDenyWinsOverAllowAndRemembered(t *testing.T) {
	far := echo(t)
	p := newProxy(t, Options{Allow: []string{"*.example.com"}, Deny: []string{"evil.example.com"},
		Remembered: func() []string { return []string{"evil.example.com"} },
		Dial:       hosts(map[string]string{"evil.example.com": far, "good.example.com": far})})
	l := listen(t, p, never(t))
	if code, body := dialListener(t, l).connect("EVIL.example.com.:443"); code != 403 || !strings.Contains(body, "evil.example.com:443 refused: on the network deny list") {
		t.Fatalf("denied host: %d %q", code, body)
	}
	if code, body := dialListener(t, l).connect("good.example.com:443"); code != 200 {
		t.Fatalf("allowed host: %d %q", code, body)
	}
	if d := l.Denied(); len(d) != 1 || d[0].Host != "evil.example.com" || d[0].Port != 443 {
		t.Errorf("Denied: %v", d)
	}
}

// Without an Asker (the host cannot be asked) only the allow list gets
// through; each refusal is recorded once per host and port.
func TestNoAskerRefusesAndRecords(t *testing.T) {
	p := newProxy(t, Options{Dial: hosts(nil)})
	l := listen(t, p, nil)
	c := dialListener(t, l)
	code, body := c.connect("unknown.test:443")
	if code != 403 || !strings.Contains(body, "unknown.test:443 refused: not on the network allow list") {
		t.Fatalf("CONNECT: %d %q", code, body)
	}
	c.connect("unknown.test:443")
	if code, _ := c.get("http://unknown.test/x"); code != 403 {
		t.Fatalf("GET: %d", code)
	}
	d := l.Denied()
	if len(d) != 2 || d[0].Port != 443 || d[1].Port != 80 || d[0].Host != "unknown.test" {
		t.Errorf("Denied: %v", d)
	}
}

// One question however many connections wait for the host; its answer
// lets them all through or refuses them all, and holds for the session.
func TestOneQuestionForManyConnections(t *testing.T) {
	for _, d := range []Decision{Allow, Deny} {
		t.Run(string(d), func(t *testing.T) {
			far := echo(t)
			answer := make(chan Decision)
			var calls sync.Map
			ask := askerFunc(func(ctx context.Context, r Request) (Decision, error) {
				if _, again := calls.LoadOrStore(r.Host, r); again {
					t.Errorf("asked twice about %s", r.Host)
				}
				select {
				case d := <-answer:
					return d, nil
				case <-ctx.Done():
					return Deny, ctx.Err()
				}
			})
			p := newProxy(t, Options{Dial: hosts(map[string]string{"unknown.test": far})})
			l := listen(t, p, ask)
			const n = 10
			codes := make(chan int, n)
			for range n {
				c := dialListener(t, l)
				go func() {
					code, _ := c.connect("unknown.test:443")
					codes <- code
				}()
			}
			waitFor(t, "ten connections waiting on one question", func() bool { return l.waiters("unknown.test") == n })
			answer <- d
			want := map[Decision]int{Allow: 200, Deny: 403}[d]
			for range n {
				if code := <-codes; code != want {
					t.Errorf("status %d, want %d", code, want)
				}
			}
			if code, _ := dialListener(t, l).connect("unknown.test:80"); code != want {
				t.Errorf("a later connection: %d, want %d without a question", code, want)
			}
			r, _ := calls.Load("unknown.test")
			if r.(Request).Command != "curl https://example.com" || r.(Request).SessionID != "7" || r.(Request).Port != 443 {
				t.Errorf("the question: %+v", r)
			}
			if d == Deny && len(l.Denied()) != 2 { // 443, then 8443
				t.Errorf("Denied: %v", l.Denied())
			}
		})
	}
}

// "always" is handed to Remember; a proxy started later with it in
// Remembered lets the host through without asking.
func TestAlwaysIsRemembered(t *testing.T) {
	far := echo(t)
	dial := hosts(map[string]string{"tools.example": far})
	var mu sync.Mutex
	var saved []string
	p := newProxy(t, Options{Dial: dial, Remember: func(h string) error {
		mu.Lock()
		defer mu.Unlock()
		saved = append(saved, h)
		return nil
	}})
	ask := &answering{d: Always}
	if code, _ := dialListener(t, listen(t, p, ask)).connect("Tools.Example:443"); code != 200 {
		t.Fatalf("first connection: %d", code)
	}
	// Another session of the same helper needs no question either.
	if code, _ := dialListener(t, listen(t, p, never(t))).connect("tools.example:443"); code != 200 {
		t.Fatalf("another session: %d", code)
	}
	p.Close()
	mu.Lock()
	if !slices.Equal(saved, []string{"tools.example"}) {
		t.Fatalf("Remember got %v", saved)
	}
	mu.Unlock()

	next := newProxy(t, Options{Dial: dial, Remembered: func() []string { return saved }})
	if code, body := dialListener(t, listen(t, next, never(t))).connect("tools.example:443"); code != 200 {
		t.Fatalf("after a restart: %d %q", code, body)
	}
}

// A name that does not resolve is asked about before any lookup, named in
// the refusal, and named again when allowed and not found.
func TestUnresolvableHostIsAskedAndNamed(t *testing.T) {
	const name = "no-such-host.termhelper.invalid"
	for _, d := range []Decision{Deny, Allow} {
		t.Run(string(d), func(t *testing.T) {
			p := newProxy(t, Options{}) // the real resolver
			ask := &answering{d: d}
			l := listen(t, p, ask)
			code, body := dialListener(t, l).connect(name + ":443")
			if ask.calls.Load() != 1 || ask.asked[0].Host != name {
				t.Fatalf("asked %v", ask.asked)
			}
			if !strings.Contains(body, name+":443") {
				t.Errorf("the answer does not name the host: %q", body)
			}
			switch d {
			case Deny:
				if code != 403 || len(l.Denied()) != 1 || l.Denied()[0].Host != name {
					t.Errorf("%d %q, Denied %v", code, body, l.Denied())
				}
			case Allow:
				if code != 502 || !strings.Contains(body, "does not resolve") {
					t.Errorf("%d %q", code, body)
				}
			}
		})
	}
}

// A client that hangs up while its host is asked about withdraws the
// question: the Asker's context ends, nothing is recorded or kept, and
// the next attempt asks again.
func TestClientLeavingWithdrawsQuestion(t *testing.T) {
	before := runtime.NumGoroutine()
	asked, withdrawn := make(chan Request, 2), make(chan struct{}, 2)
	ask := askerFunc(func(ctx context.Context, r Request) (Decision, error) {
		asked <- r
		<-ctx.Done()
		withdrawn <- struct{}{}
		return Deny, ctx.Err()
	})
	p := newProxy(t, Options{Dial: hosts(nil)})
	l := listen(t, p, ask)
	for round := range 2 {
		c := dialListener(t, l)
		c.send("CONNECT slow.test:443 HTTP/1.1\r\n" + auth(l) + "\r\n")
		waitOn(t, asked, "the question")
		c.nc.Close()
		waitOn(t, withdrawn, "the question to be withdrawn")
		waitFor(t, "the question to be forgotten", func() bool { return l.waiters("slow.test") == 0 })
		if d := l.Denied(); len(d) != 0 {
			t.Fatalf("round %d: Denied %v", round, d)
		}
	}
	p.Close()
	noLeak(t, before)
}

// A client that goes away in the middle of a request head, of a request
// body or of an answer leaves nothing behind, and the origin sees the end.
func TestClientLeavingMidRequest(t *testing.T) {
	before := runtime.NumGoroutine()
	bodyErr, writeErr := make(chan error, 1), make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/upload":
			_, err := io.Copy(io.Discard, r.Body)
			bodyErr <- err
		case "/download":
			chunk := make([]byte, 64<<10)
			for {
				if _, err := w.Write(chunk); err != nil {
					writeErr <- err
					return
				}
			}
		}
	}))
	p := newProxy(t, Options{Allow: []string{"origin.test"}, Dial: hosts(map[string]string{"origin.test": srv.Listener.Addr().String()})})
	l := listen(t, p, nil)

	c := dialListener(t, l)
	c.send("GET http://origin.test/ HTTP/1.1\r\nHost: orig")
	c.nc.Close()

	c = dialListener(t, l)
	c.send("POST http://origin.test/upload HTTP/1.1\r\nHost: origin.test\r\n" + auth(l) + "Content-Length: 1048576\r\n\r\n")
	c.send(strings.Repeat("x", 1024))
	c.nc.Close()
	if err := waitOn(t, bodyErr, "the origin to see the upload cut"); err == nil {
		t.Error("the origin read a whole body that was cut short")
	}

	c = dialListener(t, l)
	c.send("GET http://origin.test/download HTTP/1.1\r\nHost: origin.test\r\n" + auth(l) + "\r\n")
	if _, err := io.ReadFull(c.br, make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	c.nc.Close()
	waitOn(t, writeErr, "the origin to see the download's reader gone")

	p.Close()
	srv.Close()
	noLeak(t, before)
}

// Closing the proxy ends open tunnels, idle connections and questions,
// refuses new listeners, and leaves no goroutine.
func TestCloseEndsEverything(t *testing.T) {
	far := echo(t)
	before := runtime.NumGoroutine()
	asked := make(chan Request, 1)
	ask := askerFunc(func(ctx context.Context, r Request) (Decision, error) {
		asked <- r
		<-ctx.Done()
		return Deny, ctx.Err()
	})
	p := newProxy(t, Options{Allow: []string{"echo.test"}, Dial: hosts(map[string]string{"echo.test": far})})
	l := listen(t, p, ask)
	var open []*client
	for range 5 {
		c := dialListener(t, l)
		if code, _ := c.connect("echo.test:443"); code != 200 {
			t.Fatalf("CONNECT: %d", code)
		}
		open = append(open, c)
	}
	idle := dialListener(t, l)
	waiting := dialListener(t, l)
	waiting.send("CONNECT other.test:443 HTTP/1.1\r\n" + auth(l) + "\r\n")
	waitOn(t, asked, "the question")

	closed := make(chan struct{})
	go func() {
		p.Close()
		close(closed)
	}()
	waitOn(t, closed, "Close to return")
	for _, c := range append(open, idle, waiting) {
		if _, err := io.ReadAll(c.br); err != nil && !errors.Is(err, net.ErrClosed) && !isReset(err) {
			t.Errorf("after Close: %v", err)
		}
	}
	if _, err := p.Listen(Request{}, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Listen after Close: %v", err)
	}
	for _, c := range append(open, idle, waiting) {
		c.nc.Close()
	}
	noLeak(t, before)
}

// Many clients at once, tunnels and plain requests mixed, all served.
func TestManyConcurrentConnections(t *testing.T) {
	far := echo(t)
	srv, _ := origin(t)
	p := newProxy(t, Options{Allow: []string{"echo.test", "web.test"},
		Dial: hosts(map[string]string{"echo.test": far, "web.test": srv.Listener.Addr().String()})})
	l := listen(t, p, never(t))
	hc := proxied(t, l)
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := range 100 {
		wg.Go(func() {
			if i%2 == 0 {
				errs <- tunnelEcho(t, l, "echo.test:443")
				return
			}
			resp, err := hc.Get("http://web.test/n")
			if err != nil {
				errs <- err
				return
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err == nil && string(b) != "path /n" {
				err = errors.New("wrong body " + string(b))
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func tunnelEcho(t *testing.T, l *Listener, to string) error {
	c := dialListener(t, l)
	defer c.nc.Close()
	c.send("CONNECT " + to + " HTTP/1.1\r\n" + auth(l) + "\r\n")
	resp, err := http.ReadResponse(c.br, &http.Request{Method: "CONNECT"})
	if err != nil || resp.StatusCode != 200 {
		return errors.Join(err, errors.New("CONNECT not established"))
	}
	io.WriteString(c.nc, "ping\n")
	line, err := c.br.ReadString('\n')
	if line != "ping\n" {
		return errors.Join(err, errors.New("echo: "+line))
	}
	return nil
}

func waitOn[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-timeAfter():
		t.Fatalf("still waiting for %s", what)
	}
	var zero T
	return zero
}

func isReset(err error) bool {
	return err != nil && strings.Contains(err.Error(), "connection reset")
}

// Once a session has ended, the next one's socket is opened ahead. A
// connection made to it before it was given meets the next session's
// credentials, and an ended session's are refused there; once the proxy
// is closed, nothing is left listening.
func TestTheNextSessionsSocketIsOpenedAhead(t *testing.T) {
	far := echo(t)
	p, err := New(Options{Allow: []string{"echo.test"}, Dial: hosts(map[string]string{"echo.test": far})})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ended := listen(t, p, never(t))
	ended.Close()
	ahead := openedAhead(t, p)
	early := &client{t: t, l: ended}
	early.nc, err = net.DialTimeout("tcp", ahead.Addr().String(), watchdog)
	if err != nil {
		t.Fatal(err)
	}
	defer early.nc.Close()
	early.nc.SetDeadline(time.Now().Add(watchdog))
	early.br = bufio.NewReader(early.nc)

	next := listen(t, p, never(t))
	if next.Addr() != ahead.Addr().String() {
		t.Fatalf("the next session listens on %s, not on the socket opened ahead %s", next.Addr(), ahead.Addr())
	}
	if code, _ := early.connect("echo.test:443"); code != 407 {
		t.Errorf("an ended session's credentials: %d, want 407", code)
	}
	if code, body := dialListener(t, next).connect("echo.test:443"); code != 200 {
		t.Errorf("the next session's own: %d %q", code, body)
	}
	next.Close()
	again := openedAhead(t, p)
	p.Close()
	for _, addr := range []string{again.Addr().String(), ahead.Addr().String(), ended.Addr()} {
		if c, err := net.DialTimeout("tcp", addr, watchdog); err == nil {
			c.Close()
			t.Errorf("%s still listens after the proxy closed", addr)
		}
	}
}

// openedAhead is the socket p opened for the next session.
func openedAhead(t *testing.T, p *Proxy) net.Listener {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ahead == nil {
		t.Fatal("no socket was opened ahead")
	}
	return p.ahead
}

// An allowed host is reached on 80 and 443 only, unless its entry names
// a port (or every port): CONNECT github.com:22 is refused without a
// question where nobody can be asked. A deny entry without a port denies
// every port.
func TestAllowedHostsOnWebPortsOnly(t *testing.T) {
	far := echo(t)
	names := map[string]string{}
	for _, h := range []string{"echo.test", "alt.test", "wide.test", "shut.test"} {
		names[h] = far
	}
	p := newProxy(t, Options{Allow: []string{"echo.test", "alt.test:8443", "wide.test:*", "shut.test:*"},
		Deny: []string{"shut.test"}, Dial: hosts(names)})
	l := listen(t, p, nil)
	for target, want := range map[string]int{
		"echo.test:443": 200, "echo.test:80": 200, "echo.test:22": 403, "echo.test:8443": 403,
		"alt.test:8443": 200, "alt.test:443": 403, "alt.test:22": 403,
		"wide.test:22": 200, "wide.test:443": 200, "shut.test:443": 403, "shut.test:22": 403,
	} {
		if code, body := dialListener(t, l).connect(target); code != want {
			t.Errorf("CONNECT %s: %d %q, want %d", target, code, body, want)
		}
	}
	if code, body := dialListener(t, l).connect("echo.test:22"); !strings.Contains(body, "not on the network allow list") {
		t.Errorf("the refusal of echo.test:22 says %d %q", code, body)
	}
}
