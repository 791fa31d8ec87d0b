package egress

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
)

// connect serves CONNECT host:port: judged, dialled, then a byte tunnel
// (no TLS interception: what the client sends inside is its own). After a
// refusal the connection may carry another request; after a tunnel, not.
func (c *conn) connect(req *http.Request) bool {
	host, port, err := connectTarget(req.URL.Host)
	if err != nil {
		return c.reply(req, http.StatusBadRequest, err.Error())
	}
	ctx, cancel := context.WithCancel(c.l.ctx)
	defer cancel()
	stop := c.watch(cancel)
	v := c.l.judge(ctx, host, port)
	if !v.allow {
		stop()
		return c.refuse(req, host, port, v)
	}
	far, err := c.l.dial(ctx, host, port)
	stop()
	if err != nil {
		return c.unreachable(req, host, port, err)
	}
	defer c.l.untrack(far)
	if _, err := io.WriteString(c.nc, "HTTP/1.1 200 Connection established\r\n\r\n"); err == nil {
		c.l.tunnel(c.nc, c.br, far)
	}
	return false
}

// tunnel copies both ways until both ends have finished sending. Each
// direction half-closes its destination at the end of its source, so a
// client that shuts down its sending side still reads the whole answer;
// an error in either direction ends both. Between TCP connections on
// Linux the copy is splice(2): the bytes never enter the helper's memory.
func (l *Listener) tunnel(client net.Conn, pending *bufio.Reader, far net.Conn) {
	up := make(chan struct{})
	l.wg.Go(func() {
		defer close(up)
		pipe(far, client, pending)
	})
	pipe(client, far, nil)
	<-up
}

func pipe(dst, src net.Conn, pending *bufio.Reader) {
	var err error
	if pending != nil && pending.Buffered() > 0 {
		_, err = io.CopyN(dst, pending, int64(pending.Buffered()))
	}
	if err == nil {
		_, err = io.Copy(dst, src)
	}
	if err != nil {
		dst.Close()
		src.Close()
		return
	}
	if cw, ok := dst.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
}

// unreachable answers a dial that failed: 502, or 504 for a timeout, with
// a line that says which and names the host.
func (c *conn) unreachable(req *http.Request, host string, port int, err error) bool {
	code, why := http.StatusBadGateway, "cannot be reached: "+oneLine(err.Error())
	var dnsErr *net.DNSError
	var netErr net.Error
	switch {
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		why = "does not resolve (no such host)"
	case errors.As(err, &netErr) && netErr.Timeout():
		code = http.StatusGatewayTimeout
	}
	c.l.p.log.Info("egress: unreachable", "host", host, "port", port, "err", err)
	return c.reply(req, code, fmt.Sprintf("%s %s", hostPort(host, port), why))
}

// connectTarget reads CONNECT's authority: a host and a port, both needed.
func connectTarget(authority string) (string, int, error) {
	h, p, err := net.SplitHostPort(authority)
	if err != nil {
		return "", 0, fmt.Errorf("CONNECT needs host:port, got %q", authority)
	}
	return target(h, p)
}

// target checks a host and a port as a client wrote them, and returns the
// host as the rules read it.
func target(h, p string) (string, int, error) {
	host, err := normHost(h)
	if err != nil {
		return "", 0, fmt.Errorf("%q: %w", h, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 1 || port > 65535 {
		return "", 0, fmt.Errorf("%q: not a port", p)
	}
	return host, port, nil
}
