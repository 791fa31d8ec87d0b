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

	"github.com/sourcegraph/jsonrpc2"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/engine"
)

// The request every fuzz input ends with: whatever came before, it must
// be read, and answered.
const (
	sentinelID  = "fuzz-sentinel-7f3a"
	sentinel    = `{"jsonrpc":"2.0","id":"` + sentinelID + `","method":"fuzz/sentinel"}`
	fuzzTimeout = 20 * time.Second
)

// fuzzInput is the garbage, a newline that ends any line it left open,
// and the sentinel in the framing the mode byte picks, then a newline. In
// auto mode either framing must be read, however the garbage was
// detected: when a good line in the garbage fixed NDJSON, the LSP
// sentinel's body is a line of its own.
func fuzzInput(garbage []byte, mode byte) (Framing, []byte) {
	f := []Framing{Auto, LSP, NDJSON}[mode%3]
	lsp := f == LSP || f == Auto && mode&4 != 0
	in := append(append([]byte{}, garbage...), '\n')
	if lsp {
		return f, append(in, lspFrame(sentinel)+"\n"...)
	}
	return f, append(in, sentinel+"\n"...)
}

// bindsBody tells the inputs whose garbage may announce a body: a header
// block's Content-Length is a promise about the bytes that follow, and
// may rightly take the sentinel in.
func bindsBody(garbage []byte) bool {
	return bytes.Contains(bytes.ToLower(garbage), []byte("content-length"))
}

func addSeeds(f *testing.F) {
	good := `{"jsonrpc":"2.0","id":1,"method":"session/list"}`
	seeds := []string{"", good, lspFrame(good), "[1]\n{", "Content-Length: 2\r\n\r\n{}",
		`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":{"outputStream":true}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"exec/run","params":{"command":"echo hi"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"session/read","params":{"sessionId":5}}`}
	for _, g := range garbage {
		seeds = append(seeds, g.in)
	}
	for i, s := range seeds {
		f.Add([]byte(s), byte(i))
	}
}

// FuzzReader: after any bytes, a newline and one valid request, the reader
// reads that request last, and never panics.
func FuzzReader(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, garbage []byte, mode byte) {
		framing, in := fuzzInput(garbage, mode)
		rw := &pipeRW{r: bytes.NewReader(in)}
		s := newStream(rw, framing)
		var last jsonrpc2.Request
		for range len(in) + 2 { // each message takes at least one byte
			var req jsonrpc2.Request
			if s.ReadObject(&req) != nil {
				break
			}
			last = req
		}
		if bindsBody(garbage) {
			return
		}
		if last.Method != "fuzz/sentinel" || last.ID.Str != sentinelID {
			t.Fatalf("%v: the last message read was %q, not the sentinel; answers %q", framing, last.Method, rw.w.String())
		}
	})
}

// FuzzServe: the whole server, fed any bytes then a valid request over a
// pipe, answers that request.
func FuzzServe(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, garbage []byte, mode byte) {
		framing, in := fuzzInput(garbage, mode)
		if bindsBody(garbage) || asksToExit(garbage, framing) {
			return
		}
		host, helper := net.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			fuzzServe(t, helper, framing)
		}()
		go host.Write(in)
		answered := awaitAnswer(host, `"id":"`+sentinelID+`"`)
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
func asksToExit(garbage []byte, f Framing) bool {
	s := newStream(&pipeRW{r: bytes.NewReader(append(garbage, '\n'))}, f)
	for range len(garbage) + 2 {
		var req jsonrpc2.Request
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
func fuzzServe(t *testing.T, rwc io.ReadWriteCloser, f Framing) {
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
