package rpc

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
)

// pipeRW is a fixed input and a recording output.
type pipeRW struct {
	r io.Reader
	w bytes.Buffer
}

func (p *pipeRW) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p *pipeRW) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p *pipeRW) Close() error                { return nil }

// readAll reads messages until EOF and returns their methods.
func readAll(t *testing.T, input string, f Framing) ([]string, string, *stream) {
	t.Helper()
	rw := &pipeRW{r: strings.NewReader(input)}
	s := newStream(rw, f)
	var methods []string
	for {
		var req jsonrpc2.Request
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
		{"not json", `{"id":1,`, jsonrpc2.CodeParseError, "null"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"a"}]`, jsonrpc2.CodeInvalidRequest, "null"},
		{"scalar", `42`, jsonrpc2.CodeInvalidRequest, "null"},
		{"no method", `{"jsonrpc":"2.0","id":3}`, jsonrpc2.CodeInvalidRequest, "3"},
		{"method not a string", `{"jsonrpc":"2.0","id":4,"method":5}`, jsonrpc2.CodeInvalidRequest, "4"},
		{"params a string", `{"jsonrpc":"2.0","id":5,"method":"a","params":"x"}`, jsonrpc2.CodeInvalidRequest, "5"},
		{"id an object", `{"jsonrpc":"2.0","id":{},"method":"a"}`, jsonrpc2.CodeInvalidRequest, "null"},
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

func TestBadHeaderIsAParseError(t *testing.T) {
	good := `{"jsonrpc":"2.0","id":9,"method":"ok"}`
	in := "Content-Length: x\r\n\r\nContent-Length: " + itoa(len(good)) + "\r\n\r\n" + good
	methods, out, _ := readAll(t, in, LSP)
	if len(methods) != 1 || !strings.Contains(out, `"code":-32700`) {
		t.Fatalf("got %v, answer %q", methods, out)
	}
}

func TestRepliesUseTheHostsFraming(t *testing.T) {
	rw := &pipeRW{r: strings.NewReader("")}
	s := newStream(rw, LSP)
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

func FuzzStream(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"a"}` + "\n")
	f.Add("Content-Length: 2\r\n\r\n{}")
	f.Add("[1]\n{\n")
	f.Fuzz(func(t *testing.T, in string) {
		rw := &pipeRW{r: strings.NewReader(in)}
		s := newStream(rw, Auto)
		for range 1000 {
			var req jsonrpc2.Request
			if s.ReadObject(&req) != nil {
				return
			}
		}
	})
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
