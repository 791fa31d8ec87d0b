// Package wiretest holds what the tests of every reader of the wire share:
// the garbage a host may send, and the fuzz inputs that end with one valid
// request that must still be read and answered.
package wiretest

import (
	"bytes"
	"strconv"
	"testing"
)

// Garbage is bytes that are no message. Header-like lines followed by an
// LSP message are extra headers of that message, not garbage: those cases
// are marked.
var Garbage = []struct {
	Name, In string
	Headers  bool
}{
	{"words", "hello world", false},
	{"random bytes with a letter", "\x01\xfe\x80a\x00\x7f{", false},
	{"header-like line", "hello: world", true},
	{"header-like lines", "X-One: 1\r\nX-Two: 2", true},
	{"bad Content-Length", "Content-Length: x\r\n", false},
	{"truncated JSON", `{"jsonrpc":"2.0","id":1,"method":"a","params":{`, false},
	{"header block without a length", "Content-Type: x\r\n\r\n", false},
	{"bad header in a block", "Content-Length: 3\r\nno colon here", false},
	{"invalid UTF-8, truncated", "{\"jsonrpc\":\"2.0\",\"method\":\"\xff\xfe", false},
	{"scalar", "null", false},
	{"closing brace", "}", false},
}

// LSPFrame is msg with its Content-Length header.
func LSPFrame(msg string) string {
	return "Content-Length: " + strconv.Itoa(len(msg)) + "\r\n\r\n" + msg
}

// The request every fuzz input ends with: whatever came before, it must
// be read, and answered.
const (
	SentinelID = "fuzz-sentinel-7f3a"
	Sentinel   = `{"jsonrpc":"2.0","id":"` + SentinelID + `","method":"fuzz/sentinel"}`
)

// FuzzInput is the garbage, a newline that ends any line it left open,
// and the sentinel in the framing the mode byte picks ("auto", "lsp" or
// "ndjson", as the --framing flag names them), then a newline. In auto
// mode either framing must be read, however the garbage was detected:
// when a good line in the garbage fixed NDJSON, the LSP sentinel's body is
// a line of its own.
func FuzzInput(garbage []byte, mode byte) (string, []byte) {
	f := []string{"auto", "lsp", "ndjson"}[mode%3]
	lsp := f == "lsp" || f == "auto" && mode&4 != 0
	in := append(append([]byte{}, garbage...), '\n')
	if lsp {
		return f, append(in, LSPFrame(Sentinel)+"\n"...)
	}
	return f, append(in, Sentinel+"\n"...)
}

// BindsBody tells the inputs whose garbage may announce a body: a header
// block's Content-Length is a promise about the bytes that follow, and
// may rightly take the sentinel in.
func BindsBody(garbage []byte) bool {
	return bytes.Contains(bytes.ToLower(garbage), []byte("content-length"))
}

// AddSeeds seeds a fuzz test taking (garbage []byte, mode byte).
func AddSeeds(f *testing.F) {
	good := `{"jsonrpc":"2.0","id":1,"method":"session/list"}`
	seeds := []string{"", good, LSPFrame(good), "[1]\n{", "Content-Length: 2\r\n\r\n{}",
		`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":{"outputStream":true}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"exec/run","params":{"command":"echo hi"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"session/read","params":{"sessionId":5}}`}
	for _, g := range Garbage {
		seeds = append(seeds, g.In)
	}
	for i, s := range seeds {
		f.Add([]byte(s), byte(i))
	}
}
