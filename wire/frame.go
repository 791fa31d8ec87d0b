package wire

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

// maxHeader caps an LSP header block (and so each of its lines): real
// ones are a few dozen bytes, and garbage that looks like headers must not
// be held in memory.
const maxHeader = 64 << 10

// frameError is a message that could not be taken: it is answered on the
// wire and reading goes on.
type frameError struct {
	id   *ID
	code int64
	msg  string
	// lsp marks an error in what was clearly an LSP message (its header
	// block named a Content-Length): before the host's framing is known,
	// the answer then goes out in LSP framing, and as a line otherwise.
	lsp bool
}

func (e *frameError) Error() string { return e.msg }

func parseError(format string, args ...any) *frameError {
	return &frameError{code: CodeParseError, msg: "parse error: " + fmt.Sprintf(format, args...)}
}

// Stream reads and writes whole messages. It detects the host's framing,
// answers malformed messages itself and keeps reading, where a plain
// decoder would give up at the first bad byte.
//
// In auto mode the framing is detected afresh for every message until one
// good message (valid JSON, well framed) shows the host's framing, which
// then holds: garbage before it locks nothing. Garbage is answered with
// -32700 and skipped to the end of its line, in every mode, and no read
// holds more than MaxMessage bytes (a header block, maxHeader).
type Stream struct {
	r *bufio.Reader
	w io.Writer
	c io.Closer
	// mode is the framing asked for; framing is the one in use: the forced
	// one, or the one the host's first good message showed (Auto before).
	mode    Framing
	framing Framing
	// AtEOF, if set, runs when the host's side ends, before the
	// connection closes, so that answers still in flight reach a host that
	// only half-closed.
	AtEOF func()

	wmu sync.Mutex
}

// NewStream returns a stream over rwc in framing f (Auto: the host's).
func NewStream(rwc io.ReadWriteCloser, f Framing) *Stream {
	return &Stream{r: bufio.NewReaderSize(rwc, 64*1024), w: rwc, c: rwc, mode: f, framing: f}
}

// ReadObject reads the next well-formed message into v.
func (s *Stream) ReadObject(v any) error {
	return s.read(v)
}

// Read returns the next well-formed message: a JSON object that is a
// request, a notification or an answer.
func (s *Stream) Read() (json.RawMessage, error) {
	var raw json.RawMessage
	err := s.read(&raw)
	return raw, err
}

func (s *Stream) read(v any) error {
	for {
		frame, as, err := s.readFrame()
		if err == nil {
			err = s.take(frame, as, v)
		}
		var fe *frameError
		if errors.As(err, &fe) {
			if werr := s.writeError(fe); werr != nil {
				return werr
			}
			continue
		}
		if err != nil && s.AtEOF != nil {
			s.AtEOF()
		}
		return err
	}
}

// take checks a frame read in framing as and decodes it into v. Valid
// JSON proves the framing: in auto mode it holds from then on.
func (s *Stream) take(frame []byte, as Framing, v any) error {
	if !json.Valid(frame) {
		return &frameError{code: CodeParseError, msg: "parse error: the message is not valid JSON", lsp: as == LSP}
	}
	if s.framing == Auto && (frame[0] == '{' || frame[0] == '[') {
		s.wmu.Lock()
		s.framing = as
		s.wmu.Unlock()
	}
	if err := checkMessage(frame); err != nil {
		return err
	}
	if err := json.Unmarshal(frame, v); err != nil {
		return &frameError{id: messageID(frame), code: CodeInvalidRequest, msg: "invalid request: " + err.Error()}
	}
	return nil
}

// WriteObject writes one message in the host's framing.
func (s *Stream) WriteObject(obj any) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.writeLocked(obj, s.framing)
}

func (s *Stream) writeLocked(obj any, f Framing) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	if f == LSP {
		_, err = fmt.Fprintf(s.w, "Content-Length: %d\r\n\r\n%s", len(data), data)
		return err
	}
	data = append(data, '\n')
	_, err = s.w.Write(data)
	return err
}

func (s *Stream) Close() error { return s.c.Close() }

// writeError answers a message that could not be taken. Before the host's
// framing is known the answer goes out as a line, which a line-reading
// host parses and a human at a terminal reads, unless the message was
// clearly LSP.
func (s *Stream) writeError(fe *frameError) error {
	e := &Error{Code: fe.code, Message: fe.msg}
	var resp any = errorAnswer{ID: fe.id, Error: e, JSONRPC: "2.0"}
	if fe.id == nil {
		// JSON-RPC answers an unreadable message with a null id.
		resp = nullIDAnswer{Error: e, JSONRPC: "2.0"}
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	f := s.framing
	if f == Auto && fe.lsp {
		f = LSP
	}
	return s.writeLocked(resp, f)
}

// errorAnswer and nullIDAnswer answer a message that could not be taken,
// with and without its id.
type errorAnswer struct {
	ID      *ID    `json:"id"`
	Error   *Error `json:"error"`
	JSONRPC string `json:"jsonrpc"`
}

type nullIDAnswer struct {
	Error   *Error `json:"error"`
	ID      *ID    `json:"id"`
	JSONRPC string `json:"jsonrpc"`
}

// readFrame reads the next message's bytes and says in which framing.
func (s *Stream) readFrame() ([]byte, Framing, error) {
	if err := s.skipSpace(); err != nil {
		return nil, s.framing, err
	}
	as := s.framing
	if as == Auto {
		as = s.sniff()
	}
	if as == LSP {
		frame, err := s.readLSP()
		return frame, LSP, err
	}
	frame, err := s.readLine()
	return frame, NDJSON, err
}

// skipSpace skips the white space and blank lines between messages.
func (s *Stream) skipSpace() error {
	for {
		b, err := s.r.Peek(1)
		if err != nil {
			return err
		}
		if c := b[0]; c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return nil
		}
		s.r.ReadByte()
	}
}

// sniff tells an LSP header line ("Name:") from anything else, without
// consuming: a JSON message never starts with a token and a colon.
func (s *Stream) sniff() Framing {
	for n := 1; n <= 256; n++ {
		b, err := s.r.Peek(n)
		if err != nil {
			return NDJSON
		}
		c := b[n-1]
		if c == ':' && n > 1 {
			return LSP
		}
		if !isToken(c) {
			return NDJSON
		}
	}
	return NDJSON
}

// isToken reports whether c may appear in a header name (RFC 9110 tchar).
func isToken(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c < 0x7f && c > ' ' && strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// startsMessage reports whether the next byte may open a JSON message.
func (s *Stream) startsMessage() bool {
	b, err := s.r.Peek(1)
	return err == nil && (b[0] == '{' || b[0] == '[')
}

// readLine reads one NDJSON line. A line that cannot be a message (it
// does not open an object or a batch) is never held whole: past one
// buffer it is skipped in chunks.
func (s *Stream) readLine() ([]byte, error) {
	limit := MaxMessage
	if !s.startsMessage() {
		limit = s.r.Size()
	}
	line, n, err := s.readBoundedLine(limit)
	switch {
	case n > limit && limit < MaxMessage:
		return nil, parseError("%d bytes that are not a JSON message", n)
	case n > limit:
		return nil, tooLarge(n, false)
	}
	return bytes.TrimSpace(line), err
}

// readBoundedLine reads one line of up to limit bytes and returns it with
// its length; a longer line is read to its end in chunks, dropped, and
// only its length returned.
func (s *Stream) readBoundedLine(limit int) ([]byte, int, error) {
	var buf []byte
	n := 0
	for {
		part, err := s.r.ReadSlice('\n')
		n += len(part)
		if n <= limit {
			buf = append(buf, part...)
		} else {
			buf = nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) && n > 0 {
			err = nil // a last line without a newline still counts
		}
		return buf, n, err
	}
}

func tooLarge(n int, lsp bool) error {
	return &frameError{code: CodeInvalidRequest, lsp: lsp,
		msg: fmt.Sprintf("message of %d bytes is over the limit of %d bytes", n, MaxMessage)}
}

// readLSP reads a header block, then its body: the Content-Length bytes,
// or fewer where the JSON value that opens the body ends first. A header
// is a promise about the bytes after it, and a wrong one must not cost
// the messages that follow: a body that does not open a JSON object or
// array is not read at all (its bytes are then read as what they are),
// and a body is never read past the end of its JSON value, however large
// the length (a length over MaxMessage included).
func (s *Stream) readLSP() ([]byte, error) {
	length, err := s.readHeaders()
	if err != nil {
		return nil, err
	}
	if length == 0 || !s.startsMessage() {
		return nil, &frameError{code: CodeParseError, lsp: true,
			msg: fmt.Sprintf("parse error: the %d-byte body after the header block is not a JSON message", length)}
	}
	body, n, err := s.readValue(length)
	if err != nil {
		return nil, err
	}
	if n > MaxMessage {
		return nil, tooLarge(n, true)
	}
	return body, nil
}

// readValue reads the JSON object or array that starts here, up to limit
// bytes, and returns it with its length: it stops where the value ends.
// Past MaxMessage bytes it goes on counting without keeping, so that a
// header never makes the helper hold more than that.
func (s *Stream) readValue(limit int) ([]byte, int, error) {
	var body []byte
	var sc valueScanner
	n := 0
	for n < limit {
		chunk, _ := s.r.Peek(min(limit-n, s.r.Buffered(), s.r.Size()))
		if len(chunk) == 0 {
			if _, err := s.r.Peek(1); err != nil {
				return nil, n, eofInside(err)
			}
			continue
		}
		k, end := sc.scan(chunk)
		if n+k <= MaxMessage {
			body = append(body, chunk[:k]...)
		} else {
			body = nil
		}
		s.r.Discard(k)
		if n += k; end {
			break
		}
	}
	return body, n, nil
}

// valueScanner finds where a JSON object or array ends, by its brackets
// outside strings; json.Valid checks the rest.
type valueScanner struct {
	depth            int
	inString, escape bool
}

// scan reads b and returns how many bytes of it belong to the value, and
// whether the value ended there.
func (v *valueScanner) scan(b []byte) (int, bool) {
	for i, c := range b {
		switch {
		case v.escape:
			v.escape = false
		case v.inString:
			v.escape = c == '\\'
			v.inString = c != '"'
		case c == '"':
			v.inString = true
		case c == '{' || c == '[':
			v.depth++
		case c == '}' || c == ']':
			if v.depth--; v.depth <= 0 {
				return i + 1, true
			}
		}
	}
	return len(b), false
}

// eofInside makes the end of input inside a message the unexpected EOF
// it is.
func eofInside(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// readHeaders reads header lines up to the blank line that ends them and
// returns the Content-Length. A block that breaks off is answered and
// skipped up to and with the line that broke it, unless that line opens a
// JSON message, which is then read on its own.
func (s *Stream) readHeaders() (int, error) {
	length, size := -1, 0
	for first := true; ; first = false {
		if !first && s.startsMessage() {
			return 0, badBlock(length, "the header block has no blank line after it")
		}
		line, n, err := s.readBoundedLine(maxHeader - size)
		if err != nil {
			return 0, err
		}
		if size += n; size > maxHeader {
			return 0, badBlock(length, "header block over %d bytes", maxHeader)
		}
		text := strings.TrimRight(string(line), "\r\n")
		if text == "" {
			if length < 0 {
				return 0, badBlock(length, "no Content-Length header")
			}
			return length, nil
		}
		if length, err = header(text, length); err != nil {
			return 0, err
		}
	}
}

// header reads one header line, returning the Content-Length so far.
func header(line string, length int) (int, error) {
	name, value, ok := strings.Cut(line, ":")
	if !ok || name == "" || strings.IndexFunc(name, func(r rune) bool { return r > 0x7f || !isToken(byte(r)) }) >= 0 {
		return 0, badBlock(length, "bad header line %q", clip(line))
	}
	if !strings.EqualFold(name, "Content-Length") {
		return length, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(value))
	if err != nil || n < 0 {
		return 0, &frameError{code: CodeParseError, lsp: true,
			msg: fmt.Sprintf("parse error: bad Content-Length %q", clip(value))}
	}
	return n, nil
}

// badBlock is a parse error in a header block; length >= 0 means a
// Content-Length was already read, so the host speaks LSP.
func badBlock(length int, format string, args ...any) error {
	fe := parseError(format, args...)
	fe.lsp = length >= 0
	return fe
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// checkMessage refuses what the library would misread in valid JSON:
// batches, and objects that are neither request nor response.
func checkMessage(frame []byte) error {
	if frame[0] == '[' {
		return &frameError{code: CodeInvalidRequest, msg: "invalid request: batch messages are not supported; send one message at a time"}
	}
	if frame[0] != '{' {
		return &frameError{code: CodeInvalidRequest, msg: "invalid request: a message must be a JSON object"}
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
		return &frameError{id: id, code: CodeInvalidRequest, msg: "invalid request: " + msg}
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
func messageID(frame []byte) *ID {
	var m struct {
		ID *ID `json:"id"`
	}
	if json.Unmarshal(frame, &m) != nil {
		return nil
	}
	return m.ID
}
