package rpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
)

// Framing is how messages are delimited on the wire.
type Framing int

// The framings: detected from the first bytes, or forced by a flag.
const (
	Auto   Framing = iota
	LSP            // Content-Length headers, as vscode-jsonrpc and LSP send
	NDJSON         // one JSON object per line, as MCP stdio sends
)

// ParseFraming reads the --framing flag.
func ParseFraming(s string) (Framing, error) {
	switch s {
	case "", "auto":
		return Auto, nil
	case "lsp":
		return LSP, nil
	case "ndjson":
		return NDJSON, nil
	}
	return Auto, fmt.Errorf("unknown framing %q (want auto, lsp or ndjson)", s)
}

func (f Framing) String() string {
	return [...]string{"auto", "lsp", "ndjson"}[f]
}

// MaxMessage is the largest message read; a larger one is skipped whole
// and answered with an error, and the next one is read.
const MaxMessage = 32 << 20

// frameError is a message that could not be taken: it is answered on the
// wire and reading goes on.
type frameError struct {
	id   *jsonrpc2.ID
	code int64
	msg  string
}

func (e *frameError) Error() string { return e.msg }

// stream is a jsonrpc2.ObjectStream that detects the host's framing,
// answers malformed messages itself and keeps reading, where the library's
// own streams would close the connection at the first bad byte.
type stream struct {
	r       *bufio.Reader
	w       io.Writer
	c       io.Closer
	framing Framing
	// atEOF runs when the host's side ends, before the connection closes,
	// so that answers still in flight reach a host that only half-closed.
	atEOF func()

	wmu sync.Mutex
}

func newStream(rwc io.ReadWriteCloser, f Framing) *stream {
	return &stream{r: bufio.NewReaderSize(rwc, 64*1024), w: rwc, c: rwc, framing: f}
}

// ReadObject reads the next well-formed message into v.
func (s *stream) ReadObject(v any) error {
	for {
		frame, err := s.readFrame()
		if err == nil {
			err = checkMessage(frame)
		}
		if err == nil {
			if err = json.Unmarshal(frame, v); err != nil {
				err = &frameError{id: messageID(frame), code: jsonrpc2.CodeInvalidRequest, msg: "invalid request: " + err.Error()}
			}
		}
		var fe *frameError
		if errors.As(err, &fe) {
			if werr := s.writeError(fe); werr != nil {
				return werr
			}
			continue
		}
		if err != nil && s.atEOF != nil {
			s.atEOF()
		}
		return err
	}
}

// WriteObject writes one message in the host's framing.
func (s *stream) WriteObject(obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.framing == LSP {
		_, err = fmt.Fprintf(s.w, "Content-Length: %d\r\n\r\n%s", len(data), data)
		return err
	}
	data = append(data, '\n')
	_, err = s.w.Write(data)
	return err
}

func (s *stream) Close() error { return s.c.Close() }

func (s *stream) writeError(fe *frameError) error {
	id := fe.id
	if id == nil {
		// JSON-RPC answers an unreadable message with a null id.
		return s.writeNullID(fe)
	}
	return s.WriteObject(&jsonrpc2.Response{ID: *id, Error: &jsonrpc2.Error{Code: fe.code, Message: fe.msg}})
}

func (s *stream) writeNullID(fe *frameError) error {
	return s.WriteObject(map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": fe.code, "message": fe.msg}})
}

func (s *stream) readFrame() ([]byte, error) {
	if s.framing == Auto {
		f, err := s.detect()
		if err != nil {
			return nil, err
		}
		s.wmu.Lock()
		s.framing = f
		s.wmu.Unlock()
	}
	if s.framing == LSP {
		return s.readLSP()
	}
	return s.readLine()
}

// detect looks at the first byte that is not white space: a header starts
// with a letter, a JSON message with '{' or '['.
func (s *stream) detect() (Framing, error) {
	for {
		b, err := s.r.Peek(1)
		if err != nil {
			return Auto, err
		}
		switch c := b[0]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			s.r.ReadByte()
		case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
			return LSP, nil
		default:
			return NDJSON, nil
		}
	}
}

func (s *stream) readLine() ([]byte, error) {
	for {
		line, err := s.readLongLine()
		if err != nil {
			return nil, err
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			return line, nil
		}
	}
}

// readLongLine reads one line of up to MaxMessage bytes; a longer line is
// skipped to its end and reported.
func (s *stream) readLongLine() ([]byte, error) {
	var buf []byte
	for {
		part, err := s.r.ReadSlice('\n')
		if len(buf)+len(part) > MaxMessage {
			n := len(buf) + len(part)
			for errors.Is(err, bufio.ErrBufferFull) {
				part, err = s.r.ReadSlice('\n')
				n += len(part)
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return nil, tooLarge(n)
		}
		buf = append(buf, part...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) && len(buf) > 0 {
			return buf, nil
		}
		return buf, err
	}
}

func tooLarge(n int) error {
	return &frameError{code: jsonrpc2.CodeInvalidRequest,
		msg: fmt.Sprintf("message of %d bytes is over the limit of %d bytes", n, MaxMessage)}
}

// readLSP reads headers up to a blank line, then Content-Length bytes.
func (s *stream) readLSP() ([]byte, error) {
	length := -1
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if length >= 0 {
				break
			}
			continue // blank lines between messages
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, &frameError{code: jsonrpc2.CodeParseError, msg: fmt.Sprintf("parse error: bad header line %q", clip(line))}
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				return nil, &frameError{code: jsonrpc2.CodeParseError, msg: fmt.Sprintf("parse error: bad Content-Length %q", clip(value))}
			}
			length = n
		}
	}
	if length > MaxMessage {
		if _, err := io.CopyN(io.Discard, s.r, int64(length)); err != nil {
			return nil, err
		}
		return nil, tooLarge(length)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.r, body); err != nil {
		return nil, err
	}
	return body, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// checkMessage refuses what the library would misread: text that is not
// JSON, batches, and objects that are neither request nor response.
func checkMessage(frame []byte) error {
	if !json.Valid(frame) {
		return &frameError{code: jsonrpc2.CodeParseError, msg: "parse error: the message is not valid JSON"}
	}
	if frame[0] == '[' {
		return &frameError{code: jsonrpc2.CodeInvalidRequest, msg: "invalid request: batch messages are not supported; send one message at a time"}
	}
	if frame[0] != '{' {
		return &frameError{code: jsonrpc2.CodeInvalidRequest, msg: "invalid request: a message must be a JSON object"}
	}
	var m struct {
		Method json.RawMessage `json:"method"`
		ID     json.RawMessage `json:"id"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	json.Unmarshal(frame, &m)
	id := messageID(frame)
	bad := func(msg string) error {
		return &frameError{id: id, code: jsonrpc2.CodeInvalidRequest, msg: "invalid request: " + msg}
	}
	if len(m.ID) > 0 && id == nil && string(m.ID) != "null" {
		return bad("id must be a string or a number")
	}
	if m.Method == nil {
		if m.Result == nil && m.Error == nil {
			return bad(`no "method" (nor "result" or "error")`)
		}
		return nil
	}
	if m.Method[0] != '"' {
		return bad(`"method" must be a string`)
	}
	if p := bytes.TrimSpace(m.Params); len(p) > 0 && p[0] != '{' && p[0] != '[' && string(p) != "null" {
		return bad(`"params" must be an object or an array`)
	}
	return nil
}

// messageID returns the message's id where it has a usable one.
func messageID(frame []byte) *jsonrpc2.ID {
	var m struct {
		ID *jsonrpc2.ID `json:"id"`
	}
	if json.Unmarshal(frame, &m) != nil {
		return nil
	}
	return m.ID
}
