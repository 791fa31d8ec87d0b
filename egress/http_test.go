package egress

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Without the listener's credentials, or with another session's, the
// proxy answers 407 with a Basic challenge and keeps the connection, so a
// client that authenticates only when challenged (libcurl's anyauth, as
// git uses it) goes on over it.
func TestProxyCredentials(t *testing.T) {
	srv, _ := origin(t)
	p := newProxy(t, Options{Allow: []string{"web.test"}, Dial: hosts(map[string]string{"web.test": srv.Listener.Addr().String()})})
	l := listen(t, p, never(t))
	other := listen(t, p, never(t))
	c := dialListener(t, l)
	for _, cred := range []string{"", auth(other), "Proxy-Authorization: Bearer " + l.token + "\r\n"} {
		c.send("GET http://web.test/x HTTP/1.1\r\nHost: web.test\r\n" + cred + "\r\n")
		resp, err := http.ReadResponse(c.br, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != 407 || resp.Header.Get("Proxy-Authenticate") != `Basic realm="termhelper"` || resp.Close {
			t.Fatalf("credentials %q: %d, %q, close %v", cred, resp.StatusCode, resp.Header.Get("Proxy-Authenticate"), resp.Close)
		}
	}
	if code, body := c.get("http://web.test/x"); code != 200 || body != "path /x" {
		t.Fatalf("with the credentials, after the challenges: %d %q", code, body)
	}
	if code, _ := c.connect("web.test:80"); code != 200 {
		t.Fatalf("CONNECT with the credentials: %d", code)
	}
}

// An answer streams through as the origin writes it: the client reads the
// first part while the origin still holds the rest back.
func TestPlainHTTPStreams(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "data: first\n\n")
		w.(http.Flusher).Flush()
		<-release
		io.WriteString(w, "data: last\n\n")
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	p := newProxy(t, Options{Allow: []string{"events.test"}, Dial: hosts(map[string]string{"events.test": srv.Listener.Addr().String()})})
	l := listen(t, p, never(t))
	c := dialListener(t, l)
	c.send("GET http://events.test/ HTTP/1.1\r\nHost: events.test\r\n" + auth(l) + "\r\n")
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	if line, err := br.ReadString('\n'); line != "data: first\n" {
		t.Fatalf("first event: %q, %v", line, err)
	}
	close(release)
	rest, err := io.ReadAll(br)
	if err != nil || string(rest) != "\ndata: last\n\n" {
		t.Fatalf("the rest: %q, %v", rest, err)
	}
}

// A body sent only after 100 Continue: the proxy says 100 when the origin
// wants the body, and the upload arrives whole.
func TestPlainHTTPExpectContinue(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		io.WriteString(w, "got "+string(b))
	}))
	t.Cleanup(srv.Close)
	p := newProxy(t, Options{Allow: []string{"up.test"}, Dial: hosts(map[string]string{"up.test": srv.Listener.Addr().String()})})
	l := listen(t, p, never(t))
	c := dialListener(t, l)
	c.send("POST http://up.test/ HTTP/1.1\r\nHost: up.test\r\n" + auth(l) + "Content-Length: 5\r\nExpect: 100-continue\r\n\r\n")
	line, err := c.br.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "HTTP/1.1 100 ") {
		t.Fatalf("before the body: %q, %v", line, err)
	}
	if blank, _ := c.br.ReadString('\n'); blank != "\r\n" {
		t.Fatalf("after 100: %q", blank)
	}
	c.send("hello")
	if code, body := c.answer("POST"); code != 200 || body != "got hello" {
		t.Fatalf("%d %q", code, body)
	}
	// The connection goes on after a body read to its end.
	if code, body := c.get("http://up.test/"); code != 200 || body != "got " {
		t.Fatalf("next request: %d %q", code, body)
	}
}

// An HTTP/1.0 client gets no chunked encoding: the body as it is, ended
// by the close.
func TestPlainHTTPForHTTP10Client(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "one ")
		w.(http.Flusher).Flush() // chunked from here
		io.WriteString(w, "two")
	}))
	t.Cleanup(srv.Close)
	p := newProxy(t, Options{Allow: []string{"old.test"}, Dial: hosts(map[string]string{"old.test": srv.Listener.Addr().String()})})
	l := listen(t, p, never(t))
	c := dialListener(t, l)
	c.send("GET http://old.test/ HTTP/1.0\r\n" + auth(l) + "\r\n")
	raw, err := io.ReadAll(c.br)
	if err != nil {
		t.Fatal(err)
	}
	head, body, _ := strings.Cut(string(raw), "\r\n\r\n")
	if body != "one two" || strings.Contains(strings.ToLower(head), "chunked") {
		t.Fatalf("answer:\n%s", raw)
	}
}

// What is not a proxy request gets a clear answer, and the helper goes on.
func TestBadRequests(t *testing.T) {
	p := newProxy(t, Options{Dial: hosts(nil)})
	l := listen(t, p, nil)
	for _, c := range []struct{ req, want string }{
		{"GET /path HTTP/1.1\r\nHost: x.test\r\n" + auth(l) + "\r\n", "400 Bad Request"},
		{"GET ftp://x.test/f HTTP/1.1\r\n" + auth(l) + "\r\n", "only http URLs"},
		{"GET https://x.test/f HTTP/1.1\r\n" + auth(l) + "\r\n", "https goes through CONNECT"},
		{"CONNECT x.test HTTP/1.1\r\n" + auth(l) + "\r\n", "CONNECT needs host:port"},
		{"CONNECT x.test:0 HTTP/1.1\r\n" + auth(l) + "\r\n", "not a port"},
		{"CONNECT 2130706433:443 HTTP/1.1\r\n" + auth(l) + "\r\n", "not a host name"},
		{"GET http://x.test/ HTTP/1.1\r\n" + strings.Repeat("X-Long: "+strings.Repeat("a", 1000)+"\r\n", 100) + "\r\n", "431"},
		{"NOT HTTP AT ALL\r\n\r\n", "400 Bad Request"},
	} {
		cl := dialListener(t, l)
		cl.send(c.req)
		resp, err := http.ReadResponse(cl.br, nil)
		if err != nil {
			t.Errorf("%.40q: %v", c.req, err)
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		if got := resp.Status + " " + string(b); !strings.Contains(got, c.want) {
			t.Errorf("%.40q: got %q, want %q", c.req, got, c.want)
		}
	}
	if d := l.Denied(); len(d) != 0 {
		t.Errorf("Denied: %v", d)
	}
}

// Loopback needs no question: the command could reach it directly.
func TestLoopbackThroughProxyUnasked(t *testing.T) {
	srv, _ := origin(t)
	p := newProxy(t, Options{})
	l := listen(t, p, never(t))
	c := dialListener(t, l)
	if code, body := c.get(srv.URL + "/local"); code != 200 || body != "path /local" {
		t.Fatalf("%d %q", code, body)
	}
}

// An origin that answers before it has read the upload (a refusal of its
// own, 413) neither hangs the proxy nor leaves anything behind: the
// client gets the answer, or at least the end of its connection.
func TestOriginAnswersBeforeBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		w.WriteHeader(http.StatusRequestEntityTooLarge)
	}))
	t.Cleanup(srv.Close)
	before := runtime.NumGoroutine()
	p := newProxy(t, Options{Allow: []string{"up.test"}, Dial: hosts(map[string]string{"up.test": srv.Listener.Addr().String()})})
	l := listen(t, p, nil)
	c := dialListener(t, l)
	const size = 8 << 20
	c.send("POST http://up.test/ HTTP/1.1\r\nHost: up.test\r\n" + auth(l) + "Content-Length: " + strconv.Itoa(size) + "\r\n\r\n")
	go c.nc.Write(make([]byte, size)) // ends with the connection
	got, _ := io.ReadAll(c.br)
	if len(got) > 0 && !strings.HasPrefix(string(got), "HTTP/1.1 413") {
		t.Errorf("answer: %.80q", got)
	}
	c.nc.Close()
	p.Close()
	noLeak(t, before)
}
