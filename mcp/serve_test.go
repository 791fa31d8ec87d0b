package mcp

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/policy"
)

const watchdog = 30 * time.Second

// pipes is the helper's end of two pipes: it reads what the test writes.
type pipes struct {
	r *os.File
	w *os.File
}

func (p pipes) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipes) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipes) Close() error                { return p.r.Close() }

// client is the test's end: it writes lines and reads the answers.
type client struct {
	t     *testing.T
	in    io.WriteCloser
	lines chan string
	done  chan struct{} // closed when Serve has returned
}

func serveOverPipes(t *testing.T) *client {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	c := &client{t: t, in: inW, lines: make(chan string, 64), done: make(chan struct{})}
	open := func(root string) (*engine.Engine, func(), error) {
		cfg := config.Default()
		cfg.LoginEnv = false
		return engine.New(engine.Options{Root: root, Config: cfg, Policy: policy.New(cfg, root, nil)}), nil, nil
	}
	go func() {
		defer close(c.done)
		Serve(context.Background(), pipes{inR, outW}, Options{Version: "test", Root: root, Open: open})
		outW.Close()
	}()
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-c.done:
		case <-time.After(watchdog):
			t.Error("Serve did not return after the input ended")
		}
		outR.Close()
	})
	return c
}

func (c *client) send(lines ...string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, strings.Join(lines, "\n")+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// next is the next line the helper wrote; "" once it closed its output.
func (c *client) next() string {
	c.t.Helper()
	select {
	case l := <-c.lines:
		return l
	case <-time.After(watchdog):
		c.t.Fatal("no message within the watchdog")
	}
	return ""
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func toolCall(id, args string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"terminal","arguments":` + args + `}}`
}

// TestInputEndAnswersTheCallsInHand: a client that sends its calls and
// closes its input still gets their answers, then the helper ends.
func TestInputEndAnswersTheCallsInHand(t *testing.T) {
	needShell(t)
	c := serveOverPipes(t)
	c.send(initialize, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		toolCall("2", `{"command":"sleep 0.5; echo finished"}`))
	c.in.Close()
	if l := c.next(); !strings.Contains(l, `"id":1`) {
		t.Fatalf("initialize: %s", l)
	}
	if l := c.next(); !strings.Contains(l, `"id":2`) || !strings.Contains(l, `finished`) {
		t.Fatalf("the call in hand at the end of the input: %s", l)
	}
	<-c.done
}

// TestCancelledCallGetsNoAnswer: the SDK answers every request; a request
// the client cancelled must not be, and the next one is. The input ends
// after them, and the helper's output ends only once every call read is
// done: all it wrote is then in hand.
func TestCancelledCallGetsNoAnswer(t *testing.T) {
	c := serveOverPipes(t)
	c.send(initialize, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.next()
	c.send(toolCall("2", `{"command":"sleep 30.7301"}`),
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"stop"}}`,
		toolCall("3", `{"command":"echo after"}`))
	c.in.Close()
	answered3 := false
	for l := range c.lines {
		if strings.Contains(l, `"id":2`) {
			t.Fatalf("the cancelled call was answered: %s", l)
		}
		answered3 = answered3 || strings.Contains(l, `"id":3`)
	}
	if !answered3 {
		t.Fatal("the call after the cancelled one was not answered")
	}
}

// TestGarbageIsAnsweredAndSkipped: the SDK's own transport would close at
// the first bad line; termhelper's answers it and reads on.
func TestGarbageIsAnsweredAndSkipped(t *testing.T) {
	needShell(t)
	c := serveOverPipes(t)
	c.send("garbage first", initialize, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		"more garbage", toolCall("2", `{"command":"echo ok"}`))
	var got []string
	for len(got) < 4 {
		got = append(got, c.next())
	}
	all := strings.Join(got, "\n")
	if strings.Count(all, `"code":-32700`) != 2 || !strings.Contains(all, `"id":1`) || !strings.Contains(all, `ok\n`) {
		t.Fatalf("answers:\n%s", all)
	}
}
