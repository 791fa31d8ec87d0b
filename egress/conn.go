package egress

import (
	"bufio"
	"context"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

const (
	// maxHeader bounds a request's head, so a client cannot grow the
	// helper's memory by never ending one.
	maxHeader = 64 << 10
	// idleTimeout ends a client connection that sends no next request.
	idleTimeout = 2 * time.Minute
	// user is the proxy user name in Env's URLs; the token is the password.
	user = "termhelper"
)

// aLongTimeAgo is a deadline in the past: it wakes a blocked read.
var aLongTimeAgo = time.Unix(1, 0)

// conn is one client connection to a session's listener.
type conn struct {
	l  *Listener
	nc net.Conn
	lr *io.LimitedReader // what br may read: maxHeader while a head is read
	br *bufio.Reader
}

func newConn(l *Listener, nc net.Conn) *conn {
	lr := &io.LimitedReader{R: nc, N: math.MaxInt64}
	return &conn{l: l, nc: nc, lr: lr, br: bufio.NewReader(lr)}
}

// serve answers requests until the client leaves, a tunnel ends, or a
// request leaves the connection unusable.
func (c *conn) serve() {
	for c.l.ctx.Err() == nil {
		req, err := c.readRequest()
		if err != nil {
			c.malformed(err)
			return
		}
		if !c.handle(req) {
			return
		}
	}
}

// handle answers one request; false ends the connection.
func (c *conn) handle(req *http.Request) bool {
	if !c.authorized(req) {
		return c.reply(req, http.StatusProxyAuthRequired,
			"proxy credentials missing or wrong: use the proxy address this command was given (HTTP_PROXY)")
	}
	if req.Method == http.MethodConnect {
		return c.connect(req)
	}
	return c.forward(req)
}

func (c *conn) readRequest() (*http.Request, error) {
	c.nc.SetReadDeadline(time.Now().Add(idleTimeout))
	c.lr.N = maxHeader
	req, err := http.ReadRequest(c.br)
	if err != nil && c.lr.N <= 0 {
		err = errTooLarge
	}
	c.lr.N = math.MaxInt64
	c.nc.SetReadDeadline(time.Time{})
	return req, err
}

var errTooLarge = errors.New("request head over 64 KiB")

// malformed answers a request that could not be read, unless the client
// simply left or went quiet.
func (c *conn) malformed(err error) {
	if err == errTooLarge {
		c.reply(nil, http.StatusRequestHeaderFieldsTooLarge, err.Error())
		return
	}
	if errors.Is(err, io.EOF) || errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, net.ErrClosed) {
		return
	}
	c.reply(nil, http.StatusBadRequest, "malformed request: "+oneLine(err.Error()))
}

// authorized checks the listener's token, sent as the password of the
// proxy URL: Proxy-Authorization: Basic.
func (c *conn) authorized(req *http.Request) bool {
	v := req.Header.Get("Proxy-Authorization")
	scheme, cred, ok := strings.Cut(v, " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred))
	if err != nil {
		return false
	}
	_, pass, ok := strings.Cut(string(raw), ":")
	return ok && subtle.ConstantTimeCompare([]byte(pass), []byte(c.l.token)) == 1
}

// refuse answers a request for a host that may not be reached, and
// records it; a withdrawn question has nobody left to answer.
func (c *conn) refuse(req *http.Request, host string, port int, v verdict) bool {
	if v.withdrawn {
		return false
	}
	c.l.refused(host, port, v.why)
	msg := fmt.Sprintf("%s refused: %s", hostPort(host, port), v.why)
	return c.reply(req, http.StatusForbidden, msg)
}

// reply writes a short answer of the proxy's own: one line of text that
// clients show. The connection stays open when the request's body could
// be read to its end first.
func (c *conn) reply(req *http.Request, code int, msg string) bool {
	body := "termhelper: " + msg + "\n"
	keep := req != nil && !req.Close && c.discard(req)
	resp := &http.Response{StatusCode: code, ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"text/plain; charset=utf-8"}},
		Body:          io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)), Close: !keep, Request: req}
	if code == http.StatusProxyAuthRequired {
		resp.Header.Set("Proxy-Authenticate", `Basic realm="termhelper"`)
	}
	bw := bufio.NewWriter(c.nc)
	if resp.Write(bw) != nil || bw.Flush() != nil {
		return false
	}
	if !keep {
		c.hangUp()
	}
	return keep
}

// lingerDelay is how long a connection that ends after an answer goes on
// reading what the client still sends (net/http waits as long).
const lingerDelay = 500 * time.Millisecond

// hangUp ends a connection after an answer: closing a socket with input
// still unread sends a reset (Windows always, Linux too), which can reach
// the client before it has read the answer, and then the answer is lost
// (a head over the limit, a body not read). So the write half is closed
// first, and what the client still sends is read away until it closes or
// lingerDelay passes.
func (c *conn) hangUp() {
	if cw, ok := c.nc.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
	c.nc.SetReadDeadline(time.Now().Add(lingerDelay))
	io.Copy(io.Discard, io.LimitReader(c.nc, maxDiscard))
}

// maxDiscard is how much of an unwanted request body is read so that the
// client gets the answer (and the connection goes on) instead of a reset.
const maxDiscard = 256 << 10

// discard reads the rest of a body the proxy will not send on; false when
// it is too long, stalls, or is not sent yet (a client waiting for 100
// Continue may or may not send it after a refusal, so the connection
// cannot go on).
func (c *conn) discard(req *http.Request) bool {
	if req.Body == http.NoBody {
		return true
	}
	if strings.EqualFold(req.Header.Get("Expect"), "100-continue") {
		return false
	}
	c.nc.SetReadDeadline(time.Now().Add(idleTimeout))
	defer c.nc.SetReadDeadline(time.Time{})
	_, err := io.CopyN(io.Discard, req.Body, maxDiscard+1)
	return err == io.EOF
}

// watch notices a client that hangs up while its request is held (a
// question open, a dial under way) and calls gone, so that the question
// is withdrawn and the dial dropped. It reads ahead into br; stop, which
// must be called before br is read again, hands br back intact. A client
// that sends more (a pipelined request, early data) is not watched further.
func (c *conn) watch(gone context.CancelFunc) (stop func()) {
	done := make(chan struct{})
	c.l.wg.Go(func() {
		defer close(done)
		_, err := c.br.Peek(1)
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			gone()
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			c.nc.SetReadDeadline(aLongTimeAgo)
			<-done
			c.nc.SetReadDeadline(time.Time{})
		})
	}
}

func hostPort(host string, port int) string {
	return net.JoinHostPort(host, fmt.Sprint(port))
}
