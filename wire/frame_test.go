package wire

import (
	"bytes"
	"encoding/json"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/termhelper/termhelper/wire/wiretest"
)

// pipeRW is a fixed input and a recording output.
type pipeRW struct {
	r io.Reader
	w bytes.Buffer
}

func (p *pipeRW) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p *pipeRW) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p *pipeRW) Close() error                { return nil }

// message is what the tests read of a request.
type message struct {
	Method string `json:"method"`
	ID     ID     `json:"id"`
}

// readAll reads messages until EOF and returns their methods.
func readAll(t *testing.T, input string, f Framing) ([]string, string, *Stream) {
	t.Helper()
	rw := &pipeRW{r: strings.NewReader(input)}
	s := NewStream(rw, f)
	var methods []string
	for {
		var req message
		if err := s.ReadObject(&req); err != nil {
			if err != io.EOF && err != io.ErrUnexpectedEOF {
				t.Fatalf("read: %v", err)
			}
			return methods, rw.w.String(), s
		}
		methods = append(methods, req.Method)
	}
}

func TestDetectsFraming(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"method":"a"}`
	lsp := "Content-Length: " + itoa(len(msg)) + "\r\n\r\n" + msg + "Content-Length: " + itoa(len(msg)) + "\r\nContent-Type: application/json\r\n\r\n" + msg
	methods, _, s := readAll(t, lsp, Auto)
	if len(methods) != 2 || s.framing != LSP {
		t.Fatalf("lsp: got %v, framing %v", methods, s.framing)
	}
	methods, _, s = readAll(t, "\n  "+msg+"\n\n"+msg+"\n", Auto)
	if len(methods) != 2 || s.framing != NDJSON {
		t.Fatalf("ndjson: got %v, framing %v", methods, s.framing)
	}
	// A last line without a newline still counts.
	methods, _, _ = readAll(t, msg, NDJSON)
	if len(methods) != 1 {
		t.Fatalf("unterminated line: got %v", methods)
	}
}

func TestBadMessagesAreAnsweredAndSkipped(t *testing.T) {
	good := `{"jsonrpc":"2.0","id":9,"method":"ok"}`
	cases := []struct {
		name, in string
		code     int64
		id       string
	}{
		{"not json", `{"id":1,`, CodeParseError, "null"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"a"}]`, CodeInvalidRequest, "null"},
		{"scalar", `42`, CodeInvalidRequest, "null"},
		{"no method", `{"jsonrpc":"2.0","id":3}`, CodeInvalidRequest, "3"},
		{"method not a string", `{"jsonrpc":"2.0","id":4,"method":5}`, CodeInvalidRequest, "4"},
		{"params a string", `{"jsonrpc":"2.0","id":5,"method":"a","params":"x"}`, CodeInvalidRequest, "5"},
		{"id an object", `{"jsonrpc":"2.0","id":{},"method":"a"}`, CodeInvalidRequest, "null"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			methods, out, _ := readAll(t, tc.in+"\n"+good+"\n", NDJSON)
			if len(methods) != 1 || methods[0] != "ok" {
				t.Fatalf("the good message after it was not read: %v", methods)
			}
			var resp struct {
				ID    json.RawMessage
				Error struct{ Code int64 }
			}
			if err := json.Unmarshal([]byte(out), &resp); err != nil {
				t.Fatalf("answer %q: %v", out, err)
			}
			if resp.Error.Code != tc.code || string(resp.ID) != tc.id {
				t.Fatalf("answer %s: want code %d id %s", out, tc.code, tc.id)
			}
		})
	}
}

func TestOversizedMessagesAreSkipped(t *testing.T) {
	good := `{"jsonrpc":"2.0","id":9,"method":"ok"}`
	big := `{"jsonrpc":"2.0","id":1,"method":"a","params":{"x":"` + strings.Repeat("y", MaxMessage) + `"}}`
	for _, f := range []Framing{NDJSON, LSP} {
		in := big + "\n" + good + "\n"
		if f == LSP {
			in = "Content-Length: " + itoa(len(big)) + "\r\n\r\n" + big + "Content-Length: " + itoa(len(good)) + "\r\n\r\n" + good
		}
		methods, out, _ := readAll(t, in, f)
		if len(methods) != 1 || methods[0] != "ok" {
			t.Fatalf("%v: the next message was not read: %v", f, methods)
		}
		if !strings.Contains(out, `"code":-32600`) || !strings.Contains(out, "over the limit") {
			t.Fatalf("%v: answer %q", f, out)
		}
	}
}

func lspFrame(msg string) string { return wiretest.LSPFrame(msg) }

// TestGarbageLocksNothing: garbage before the first good message, in any
// framing mode, is answered with -32700 and the next message is read.
func TestGarbageLocksNothing(t *testing.T) {
	good := `{"jsonrpc":"2.0","id":9,"method":"ok"}`
	for _, g := range wiretest.Garbage {
		for _, mode := range []Framing{Auto, LSP, NDJSON} {
			for _, next := range []Framing{LSP, NDJSON} {
				if mode != Auto && mode != next {
					continue
				}
				in := g.In + "\n" + good + "\n"
				if next == LSP {
					in = g.In + "\n" + lspFrame(good)
				}
				methods, out, s := readAll(t, in, mode)
				if len(methods) != 1 || methods[0] != "ok" {
					t.Errorf("%s, %v then %v: the good message was not read: %v; answers %q", g.Name, mode, next, methods, out)
					continue
				}
				if !strings.Contains(out, `"code":-32`) && !(g.Headers && next == LSP) {
					t.Errorf("%s, %v then %v: garbage not answered: %q", g.Name, mode, next, out)
				}
				if s.framing != next {
					t.Errorf("%s, %v then %v: framing %v after the good message", g.Name, mode, next, s.framing)
				}
			}
		}
	}
}

func TestGarbageIsAnsweredInTheHostsFraming(t *testing.T) {
	good := `{"jsonrpc":"2.0","id":9,"method":"ok"}`
	// Before any good message: a line, whatever the garbage looked like.
	_, out, _ := readAll(t, "hello: world\n"+good+"\n", Auto)
	if !strings.HasPrefix(out, `{"error":{"code":-32700`) || !strings.Contains(out, `"id":null`) {
		t.Fatalf("garbage first: %q", out)
	}
	// A header block that named a length is an LSP host's message.
	_, out, _ = readAll(t, "Content-Length: 3\r\nno colon\r\n"+lspFrame(good), Auto)
	if !strings.HasPrefix(out, "Content-Length: ") || !strings.Contains(out, `"code":-32700`) {
		t.Fatalf("broken LSP block first: %q", out)
	}
	// After a good message, its framing holds for the answers to garbage.
	_, out, s := readAll(t, lspFrame(good)+"hello world\r\n"+lspFrame(good), Auto)
	if s.framing != LSP || !strings.HasPrefix(out, "Content-Length: ") || strings.Contains(out, "}\n") {
		t.Fatalf("garbage after an LSP message: framing %v, %q", s.framing, out)
	}
}

// TestFramingHoldsAfterTheFirstGoodMessage: a host that sent one good line
// keeps NDJSON; a header block is garbage to it from then on.
func TestFramingHoldsAfterTheFirstGoodMessage(t *testing.T) {
	good := `{"jsonrpc":"2.0","id":9,"method":"ok"}`
	methods, out, s := readAll(t, good+"\nX-Header: 1\r\n\r\n"+good+"\n", Auto)
	if len(methods) != 2 || s.framing != NDJSON || strings.Count(out, "\n") != 1 || !strings.Contains(out, `"code":-32700`) {
		t.Fatalf("got %v, framing %v, answers %q", methods, s.framing, out)
	}
}

func TestBadHeaderIsAParseError(t *testing.T) {
	good := `{"jsonrpc":"2.0","id":9,"method":"ok"}`
	in := "Content-Length: x\r\n\r\n" + lspFrame(good)
	methods, out, _ := readAll(t, in, LSP)
	if len(methods) != 1 || !strings.Contains(out, `"code":-32700`) {
		t.Fatalf("got %v, answer %q", methods, out)
	}
}

// endless is n bytes of c.
type endless struct {
	c byte
	n int
}

func (e *endless) Read(p []byte) (int, error) {
	if e.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), e.n)
	for i := range p[:k] {
		p[i] = e.c
	}
	e.n -= k
	return k, nil
}

// TestLongGarbageIsSkippedInBoundedMemory: a line far over any limit, with
// no newline for hundreds of megabytes, is skipped without being held.
func TestLongGarbageIsSkippedInBoundedMemory(t *testing.T) {
	good := `{"jsonrpc":"2.0","id":9,"method":"ok"}`
	const size = 256 << 20
	for _, tc := range []struct {
		prefix string
		mode   Framing
	}{{"", Auto}, {"X-Long: ", Auto}, {"X-Long: ", LSP}, {"", NDJSON}, {"Content-Length: 1\r\nX: ", Auto}} {
		next := good + "\n"
		if tc.mode == LSP {
			next = lspFrame(good)
		}
		in := io.MultiReader(strings.NewReader(tc.prefix), &endless{'x', size}, strings.NewReader("\n"+next))
		rw := &pipeRW{r: in}
		s := NewStream(rw, tc.mode)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var req message
		if err := s.ReadObject(&req); err != nil || req.Method != "ok" {
			t.Fatalf("%q, %v: read %v %v; answers %q", tc.prefix, tc.mode, req.Method, err, rw.w.String())
		}
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
			t.Errorf("%q, %v: %d bytes allocated to skip %d bytes of garbage", tc.prefix, tc.mode, got, size)
		}
		if !strings.Contains(rw.w.String(), `"code":-32700`) {
			t.Errorf("%q, %v: answers %q", tc.prefix, tc.mode, rw.w.String())
		}
	}
}

func TestRepliesUseTheHostsFraming(t *testing.T) {
	rw := &pipeRW{r: strings.NewReader("")}
	s := NewStream(rw, LSP)
	if err := s.WriteObject(map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	if got := rw.w.String(); got != "Content-Length: 7\r\n\r\n{\"a\":1}" {
		t.Fatalf("lsp reply %q", got)
	}
	rw.w.Reset()
	s.framing = NDJSON
	s.WriteObject(map[string]int{"a": 1})
	if got := rw.w.String(); got != "{\"a\":1}\n" {
		t.Fatalf("ndjson reply %q", got)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestWrongContentLengthEatsNothingAfter: a header block whose length is
// wrong (too long, absurd) or whose body is no JSON message costs at most
// its own message: the messages after it are read.
func TestWrongContentLengthEatsNothingAfter(t *testing.T) {
	first := `{"jsonrpc":"2.0","id":1,"method":"first"}`
	good := `{"jsonrpc":"2.0","id":9,"method":"ok"}`
	for _, tc := range []struct {
		name, in string
		want     []string
		answered bool
	}{
		{"length too long", "Content-Length: 500\r\n\r\n" + first + lspFrame(good), []string{"first", "ok"}, false},
		{"absurd length", "Content-Length: 99999999999\r\n\r\n" + first + lspFrame(good), []string{"first", "ok"}, false},
		{"length over the limit", "Content-Length: " + itoa(MaxMessage+1) + "\r\n\r\n" + first + lspFrame(good), []string{"first", "ok"}, false},
		{"body not JSON", "Content-Length: 40\r\n\r\nhello world\r\n" + lspFrame(good), []string{"ok"}, true},
		{"empty body", "Content-Length: 0\r\n\r\n" + lspFrame(good), []string{"ok"}, true},
		{"brackets in strings", lspFrame(`{"jsonrpc":"2.0","id":1,"method":"first","params":{"s":"}]\"{"}}`) + lspFrame(good), []string{"first", "ok"}, false},
	} {
		for _, mode := range []Framing{Auto, LSP} {
			methods, out, _ := readAll(t, tc.in, mode)
			if strings.Join(methods, ",") != strings.Join(tc.want, ",") {
				t.Errorf("%s, %v: read %v, want %v; answers %q", tc.name, mode, methods, tc.want, out)
			}
			if got := strings.Contains(out, `"code":-32700`); got != tc.answered {
				t.Errorf("%s, %v: answers %q", tc.name, mode, out)
			}
		}
	}
}
