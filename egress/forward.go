package egress

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// forward serves one absolute-form request (GET http://host/path): judged
// on its own host, whatever the connection's earlier requests went to,
// then sent on over a connection of its own with the hop-by-hop headers
// removed, and its answer streamed back. False ends the client connection.
func (c *conn) forward(req *http.Request) bool {
	host, port, err := absoluteTarget(req)
	if err != nil {
		return c.reply(req, http.StatusBadRequest, err.Error())
	}
	ctx, cancel := context.WithCancel(c.l.ctx)
	defer cancel()
	stop := c.watch(cancel)
	defer stop()
	v := c.l.judge(ctx, host, port)
	if req.Body != http.NoBody {
		stop() // the body is read from br from here on
	}
	if !v.allow {
		stop()
		return c.refuse(req, host, port, v)
	}
	far, err := c.l.dial(ctx, host, port)
	if err != nil {
		return c.unreachable(req, host, port, err)
	}
	defer c.l.untrack(far)
	defer context.AfterFunc(ctx, func() { far.Close() })() // the client went away
	return c.exchange(req, far, host, port)
}

// exchange sends the request to the origin while it reads the answer (an
// origin may answer before it has read the whole body), relays the answer,
// and reports whether the client connection can go on: only if the
// request's body was read to its end.
func (c *conn) exchange(req *http.Request, far net.Conn, host string, port int) bool {
	out, body := outgoing(req, host, port, c.nc)
	sent := make(chan error, 1)
	c.l.wg.Go(func() {
		err := out.Write(far)
		if err != nil {
			far.Close() // the origin would wait for the rest of the body
		}
		sent <- err
	})
	resp, err := readResponse(bufio.NewReader(far), out)
	body.answered()
	ok := err == nil && c.respond(req, resp)
	far.Close()
	<-sent // the body is no longer read from the client's connection
	if err != nil {
		ok = c.reply(req, http.StatusBadGateway, hostPort(host, port)+" gave no answer: "+oneLine(err.Error()))
	}
	return ok && body.whole()
}

// readResponse reads the origin's final answer: interim ones (103 Early
// Hints) are dropped, and a switch of protocol is refused, since Upgrade
// is never sent on.
func readResponse(br *bufio.Reader, req *http.Request) (*http.Response, error) {
	for {
		resp, err := http.ReadResponse(br, req)
		switch {
		case err != nil:
			return nil, err
		case resp.StatusCode == http.StatusSwitchingProtocols:
			return nil, errString("the origin switched protocols unasked")
		case resp.StatusCode >= 200:
			return resp, nil
		}
	}
}

// absoluteTarget reads an absolute-form request's host and port. Only
// http URLs are forwarded: https clients tunnel with CONNECT, and anything
// else is for an origin server, not a proxy.
func absoluteTarget(req *http.Request) (string, int, error) {
	u := req.URL
	if !u.IsAbs() || u.Host == "" {
		return "", 0, errString("this is a proxy: send CONNECT host:port, or a request with a whole URL (GET http://host/path)")
	}
	port := u.Port()
	switch {
	case u.Scheme == "https":
		return "", 0, errString("https goes through CONNECT host:443 (the proxy makes no TLS connections)")
	case u.Scheme != "http":
		return "", 0, errString("only http URLs are forwarded, not " + u.Scheme)
	case port == "":
		port = "80"
	}
	return target(u.Hostname(), port)
}

// outgoing is the request as the origin gets it. The Host header is the
// URL's authority, as RFC 9112 asks of a proxy: a Host naming another site
// would reach it on the allowed host's address.
func outgoing(req *http.Request, host string, port int, client io.Writer) (*http.Request, *reqBody) {
	out := req.Clone(req.Context())
	out.RequestURI = ""
	out.Host = req.URL.Host
	out.URL.Host = net.JoinHostPort(host, strconv.Itoa(port))
	out.Close = false
	stripHop(out.Header)
	out.Header.Del("Proxy-Authorization")
	if _, ok := out.Header["User-Agent"]; !ok {
		out.Header["User-Agent"] = []string{""} // not Go's own
	}
	if req.Body == http.NoBody {
		return out, nil
	}
	b := &reqBody{r: req.Body}
	if strings.EqualFold(out.Header.Get("Expect"), "100-continue") {
		out.Header.Del("Expect")
		b.client = client
	}
	out.Body = b
	return out, b
}

// respond streams resp to the client; false when the connection cannot
// carry another request.
func (c *conn) respond(req *http.Request, resp *http.Response) bool {
	stripHop(resp.Header)
	resp.ProtoMajor, resp.ProtoMinor = 1, 1 // this hop's version, not the origin's
	if req.Close {
		resp.Close = true
	}
	if !req.ProtoAtLeast(1, 1) { // no chunked encoding for HTTP/1.0: the end is the close
		resp.TransferEncoding = nil
		resp.Close = true
	}
	bw := bufio.NewWriter(c.nc)
	resp.Body = flushBefore{resp.Body, bw}
	if err := resp.Write(writeOnly{bw}); err != nil {
		return false
	}
	return bw.Flush() == nil && !resp.Close
}

// hopByHop are the headers that describe one connection, not the message
// (RFC 9110, section 7.6.1), and so never pass a proxy.
var hopByHop = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func stripHop(h http.Header) {
	for _, v := range h.Values("Connection") {
		for _, name := range strings.Split(v, ",") {
			h.Del(strings.TrimSpace(name))
		}
	}
	for _, name := range hopByHop {
		h.Del(name)
	}
}

// reqBody is a request body on its way from the client to the origin. It
// answers Expect: 100-continue at the first read (the origin wants the
// body), and tells whether it was read whole: only then does the client's
// next request start where it ended.
type reqBody struct {
	r   io.ReadCloser
	eof atomic.Bool

	mu     sync.Mutex
	client io.Writer // set while a 100 Continue is owed
}

func (b *reqBody) Read(p []byte) (int, error) {
	if err := b.sendContinue(); err != nil {
		return 0, err
	}
	n, err := b.r.Read(p)
	if err == io.EOF {
		b.eof.Store(true)
	}
	return n, err
}

// Close leaves the client's body where it is: reading the rest would be
// unbounded (http's own Close of a request body does that).
func (b *reqBody) Close() error { return nil }

func (b *reqBody) sendContinue() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.client == nil {
		return nil
	}
	_, err := io.WriteString(b.client, "HTTP/1.1 100 Continue\r\n\r\n")
	b.client = nil
	return err
}

// answered: the origin's answer goes out now, and a 100 Continue no longer
// may (it would land inside the answer). A nil body owes nothing.
func (b *reqBody) answered() {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.client = nil
	b.mu.Unlock()
}

// whole: a bodiless request, or a body read to its end.
func (b *reqBody) whole() bool { return b == nil || b.eof.Load() }

// flushBefore sends what is buffered before it waits for more of the body:
// a streamed answer (server-sent events, a progress log) reaches the
// client as it comes, and a fast one goes out in full buffers.
type flushBefore struct {
	io.ReadCloser
	w *bufio.Writer
}

func (f flushBefore) Read(p []byte) (int, error) {
	if f.w.Buffered() > 0 {
		if err := f.w.Flush(); err != nil {
			return 0, err
		}
	}
	return f.ReadCloser.Read(p)
}

// writeOnly hides bufio.Writer's ReadFrom, which would read the body into
// the buffer that flushBefore flushes.
type writeOnly struct{ w io.Writer }

func (w writeOnly) Write(p []byte) (int, error) { return w.w.Write(p) }

type errString string

func (e errString) Error() string { return string(e) }
