package rpc

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/wire"
	"github.com/termhelper/termhelper/wire/wiretest"
)

const fuzzTimeout = 20 * time.Second

// FuzzServe: the whole server, fed any bytes then a valid request over a
// pipe, answers that request.
func FuzzServe(f *testing.F) {
	wiretest.AddSeeds(f)
	f.Fuzz(func(t *testing.T, garbage []byte, mode byte) {
		name, in := wiretest.FuzzInput(garbage, mode)
		framing, _ := wire.ParseFraming(name)
		if wiretest.BindsBody(garbage) || asksToExit(garbage, framing) {
			return
		}
		host, helper := net.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			fuzzServe(t, helper, framing)
		}()
		go host.Write(in)
		answered := awaitAnswer(host, `"id":"`+wiretest.SentinelID+`"`)
		host.Close()
		select {
		case <-done:
		case <-time.After(fuzzTimeout):
			t.Fatalf("Serve did not return after the host went away")
		}
		if answered != nil {
			t.Fatalf("%v: %v", framing, answered)
		}
	})
}

// asksToExit tells the garbage that holds an exit notification: the
// helper rightly stops before the sentinel.
func asksToExit(garbage []byte, f wire.Framing) bool {
	s := wire.NewStream(readOnly{bytes.NewReader(append(garbage, '\n'))}, f)
	for range len(garbage) + 2 {
		var req struct{ Method string }
		if s.ReadObject(&req) != nil {
			return false
		}
		if req.Method == "exit" {
			return true
		}
	}
	return false
}

// awaitAnswer reads the helper's output until it holds want; it returns
// an error naming what came instead.
func awaitAnswer(conn net.Conn, want string) error {
	conn.SetReadDeadline(time.Now().Add(fuzzTimeout))
	var out bytes.Buffer
	buf := make([]byte, 32<<10)
	for {
		n, err := conn.Read(buf)
		out.Write(buf[:n])
		if bytes.Contains(out.Bytes(), []byte(want)) {
			return nil
		}
		if err != nil {
			return &noAnswer{err: err, out: clip(out.String())}
		}
		if out.Len() > 1<<20 { // only the tail can hold the answer still to come
			out.Next(out.Len() - len(want))
		}
	}
}

type noAnswer struct {
	err error
	out string
}

func (e *noAnswer) Error() string {
	return "the valid request was not answered (" + e.err.Error() + "); output began " + e.out
}

// fuzzServe serves one connection as the helper does, with a shell that
// runs nothing: fuzzed bytes may well hold an exec/run of anything.
func fuzzServe(t *testing.T, rwc io.ReadWriteCloser, f wire.Framing) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Shell = "/bin/true"
	cfg.LoginEnv = false
	eng := engine.New(engine.Options{Root: root, Config: cfg,
		BaseEnv: func() []string { return []string{"PATH=" + os.Getenv("PATH")} }})
	New(eng, Options{}).Serve(context.Background(), rwc, f)
}

// readOnly is a fixed input whose answers are dropped.
type readOnly struct{ io.Reader }

func (readOnly) Write(b []byte) (int, error) { return len(b), nil }
func (readOnly) Close() error                { return nil }

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
