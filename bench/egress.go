//go:build linux

package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/termhelper/termhelper/egress"
)

// egressPath is how a download is made: straight from the origin, as a
// plain HTTP request through the proxy, or inside a CONNECT tunnel.
type egressPath string

const (
	pathDirect egressPath = "direct"
	pathPlain  egressPath = "plain HTTP"
	pathTunnel egressPath = "CONNECT tunnel"
)

// benchEgress downloads through the egress proxy and straight from the
// same loopback origin, alternating, in the same run; the proxy runs in a
// child process of its own, whose peak RSS at a small and a large size
// shows whether memory follows the body.
func benchEgress(e *env) (result, error) {
	var res result
	src, err := startBlaster()
	if err != nil {
		return res, err
	}
	defer src.Close()
	sizes := []int64{20 << 20, 200 << 20}
	if e.quick {
		sizes = []int64{4 << 20, 20 << 20}
	}
	var peaks []int64
	for _, n := range sizes {
		speeds, peak, err := egressRuns(e, src.Addr().String(), n)
		if err != nil {
			return res, err
		}
		peaks = append(peaks, peak)
		if n == sizes[len(sizes)-1] {
			addEgressRows(&res, n, speeds)
		}
	}
	small, big := peaks[0], peaks[1]
	res.add(row{fmt.Sprintf("egress proxy peak RSS, %s then %s", fmtSize(sizes[0]), fmtSize(sizes[1])),
		"", fmt.Sprintf("%s, %s", fmtMiB(small), fmtMiB(big)), "", "flat",
		verdict(big <= small+small/10+1024)})
	res.note("egress: a Go client downloads N bytes from a loopback HTTP origin straight, then through the proxy as a plain HTTP request and inside a CONNECT tunnel (HTTP in the tunnel), %d runs each, alternating, after one untimed 1 MiB download each way; MB/s of body bytes, medians. The proxy is `egress.New` in a child process of this bench (`bench child egress`), a fresh one per size; its peak RSS is its `VmHWM` after the size's runs.", e.reps(3, 1))
	return res, nil
}

func addEgressRows(res *result, n int64, speeds map[egressPath][]time.Duration) {
	direct := mbps(n, samples(speeds[pathDirect]).median())
	for _, p := range []egressPath{pathPlain, pathTunnel} {
		through := mbps(n, samples(speeds[p]).median())
		res.add(row{fmt.Sprintf("egress proxy, %s, %s download", p, fmtSize(n)),
			fmt.Sprintf("%.0f MB/s", direct), fmt.Sprintf("%.0f MB/s", through),
			fmt.Sprintf("%.0f%%", 100*through/direct), "", ""})
	}
}

// egressRuns starts a proxy child, times the three ways of downloading n
// bytes, and returns the timings and the child's peak RSS in KiB.
func egressRuns(e *env, origin string, n int64) (map[egressPath][]time.Duration, int64, error) {
	child, proxyURL, err := startEgressChild(e)
	if err != nil {
		return nil, 0, err
	}
	defer child.stop()
	// One untimed download each way first, so that no path pays for the
	// first connection's warm-up.
	for _, p := range []egressPath{pathDirect, pathPlain, pathTunnel} {
		if _, err := download(p, proxyURL, origin, 1<<20); err != nil {
			return nil, 0, fmt.Errorf("egress, %s, warm-up: %w", p, err)
		}
	}
	speeds := map[egressPath][]time.Duration{}
	for range e.reps(3, 1) {
		for _, p := range []egressPath{pathDirect, pathPlain, pathTunnel} {
			d, err := download(p, proxyURL, origin, n)
			if err != nil {
				return nil, 0, fmt.Errorf("egress, %s, %s: %w", p, fmtSize(n), err)
			}
			speeds[p] = append(speeds[p], d)
		}
	}
	peak, err := statusKiB(child.cmd.Process.Pid, "VmHWM")
	return speeds, peak, err
}

// download fetches n bytes one way and checks that all of them came.
func download(p egressPath, proxyURL *url.URL, origin string, n int64) (time.Duration, error) {
	target := fmt.Sprintf("http://%s/?n=%d", origin, n)
	t0 := time.Now()
	var body io.ReadCloser
	var err error
	switch p {
	case pathTunnel:
		body, err = tunnelGet(proxyURL, origin, target)
	default:
		tr := &http.Transport{DisableCompression: true}
		if p == pathPlain {
			tr.Proxy = http.ProxyURL(proxyURL)
		}
		defer tr.CloseIdleConnections()
		var resp *http.Response
		if resp, err = (&http.Client{Transport: tr, Timeout: answerTimeout}).Get(target); err == nil {
			body = resp.Body
		}
	}
	if err != nil {
		return 0, err
	}
	defer body.Close()
	// Big reads, the same on every path: io.Discard's own ReadFrom would
	// read 8 KiB at a time.
	got, err := io.CopyBuffer(discard{}, body, make([]byte, 256<<10))
	if err == nil && got != n {
		err = fmt.Errorf("%d bytes of %d", got, n)
	}
	return time.Since(t0), err
}

// discard is io.Discard without ReadFrom.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// tunnelGet opens a CONNECT tunnel to origin through the proxy and sends
// a GET inside it.
func tunnelGet(proxyURL *url.URL, origin, target string) (io.ReadCloser, error) {
	nc, err := net.DialTimeout("tcp", proxyURL.Host, answerTimeout)
	if err != nil {
		return nil, err
	}
	nc.SetDeadline(time.Now().Add(answerTimeout))
	pass, _ := proxyURL.User.Password()
	req, _ := http.NewRequest(http.MethodConnect, "", nil)
	req.Host = origin
	req.SetBasicAuth(proxyURL.User.Username(), pass)
	req.Header["Proxy-Authorization"] = req.Header["Authorization"]
	delete(req.Header, "Authorization")
	br := bufio.NewReader(nc)
	if err := req.Write(nc); err != nil {
		nc.Close()
		return nil, err
	}
	if resp, err := http.ReadResponse(br, req); err != nil || resp.StatusCode != 200 {
		nc.Close()
		return nil, fmt.Errorf("CONNECT: %v %v", resp, err)
	}
	get, _ := http.NewRequest(http.MethodGet, target, nil)
	get.Close = true
	if err := get.Write(nc); err != nil {
		nc.Close()
		return nil, err
	}
	resp, err := http.ReadResponse(br, get)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{resp.Body, nc}, nil
}

// startBlaster serves GET /?n=N: N bytes from one buffer, with their length.
func startBlaster() (net.Listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	buf := []byte(strings.Repeat("a", 256<<10))
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.ParseInt(r.URL.Query().Get("n"), 10, 64)
		w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
		for n > 0 {
			k, err := w.Write(buf[:min(n, int64(len(buf)))])
			if err != nil {
				return
			}
			n -= int64(k)
		}
	}))
	return ln, nil
}

// egressChild is the proxy in a process of its own.
type egressChild struct {
	cmd   *exec.Cmd
	stdin io.Closer
}

func startEgressChild(e *env) (*egressChild, *url.URL, error) {
	cmd := exec.Command(e.self, "child", "egress")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	c := &egressChild{cmd: cmd, stdin: stdin}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		c.stop()
		return nil, nil, fmt.Errorf("the proxy child said nothing: %w", err)
	}
	u, err := url.Parse(strings.TrimSpace(line))
	if err != nil {
		c.stop()
		return nil, nil, err
	}
	return c, u, nil
}

// stop ends the child: its stdin closing is its signal to close the proxy.
func (c *egressChild) stop() {
	c.stdin.Close()
	c.cmd.Wait()
}

// childEgress runs a proxy that lets loopback through (as every proxy
// does, unasked), prints its URL, and serves until its stdin ends.
func childEgress() int {
	p, err := egress.New(egress.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer p.Close()
	l, err := p.Listen(egress.Request{Command: "bench"}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(l.Env()["HTTP_PROXY"])
	io.Copy(io.Discard, os.Stdin)
	return 0
}
