package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/termhelper/termhelper/wire"
)

// transport is the SDK's view of termhelper's own stdio connection: the
// framing reader of package wire, which answers garbage and reads on where
// a JSON decoder would give up, and the rules MCP adds to a connection:
//
//   - a request the client cancelled (notifications/cancelled) gets no
//     answer: the SDK answers every request, and the answer is dropped here;
//   - the end of the client's input is not the end of its requests: the
//     calls already received are answered before the SDK is told of the end.
type transport struct {
	st     *wire.Stream
	closer io.Closer
	// inputEnded runs once at the end of the client's input, before the
	// requests in hand are waited for; writeFailed at a failed write (the
	// client is gone).
	inputEnded, writeFailed func(error)

	reads     chan read
	closed    chan struct{}
	closeOnce sync.Once

	mu        sync.Mutex
	pending   map[jsonrpc.ID]bool // calls read and not yet answered
	cancelled map[jsonrpc.ID]bool // those of them the client gave up on
	idle      chan struct{}       // closed when pending empties, nil while it is not waited for
}

type read struct {
	msg jsonrpc.Message
	err error
}

func newTransport(rwc io.ReadWriteCloser) *transport {
	return &transport{st: wire.NewStream(rwc, wire.NDJSON), closer: rwc, reads: make(chan read),
		closed: make(chan struct{}), pending: map[jsonrpc.ID]bool{}, cancelled: map[jsonrpc.ID]bool{},
		inputEnded: func(error) {}, writeFailed: func(error) {}}
}

// Connect starts reading; the SDK calls it once.
func (t *transport) Connect(context.Context) (sdk.Connection, error) {
	go t.readLoop()
	return t, nil
}

// readLoop reads messages in its own goroutine, so that Close unblocks a
// Read waiting on the client's input.
func (t *transport) readLoop() {
	for {
		raw, err := t.st.Read()
		var msg jsonrpc.Message
		if err == nil {
			if msg, err = jsonrpc.DecodeMessage(raw); err != nil {
				t.refuse(raw, err)
				continue
			}
		}
		select {
		case t.reads <- read{msg, err}:
		case <-t.closed:
			return
		}
		if err != nil {
			return
		}
	}
}

// refuse answers a message that is JSON-RPC to the framing reader but not
// to the SDK.
func (t *transport) refuse(raw json.RawMessage, err error) {
	var m struct {
		ID any `json:"id"`
	}
	json.Unmarshal(raw, &m)
	t.st.WriteObject(map[string]any{"jsonrpc": "2.0", "id": m.ID,
		"error": map[string]any{"code": wire.CodeInvalidRequest, "message": "invalid request: " + err.Error()}})
}

// Read returns the next message; at the end of the client's input, only
// once every call read has been answered.
func (t *transport) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case r := <-t.reads:
		if r.err != nil {
			return nil, t.ended(ctx, r.err)
		}
		t.track(r.msg)
		return r.msg, nil
	case <-t.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// track records the calls that need an answer and the ones cancelled.
func (t *transport) track(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if req.IsCall() {
		t.pending[req.ID] = true
		return
	}
	if req.Method != "notifications/cancelled" {
		return
	}
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(req.Params, &p) != nil {
		return
	}
	if id, err := jsonrpc.MakeID(p.RequestID); err == nil && t.pending[id] {
		t.cancelled[id] = true
	}
}

// ended waits, at the end of the input, for the calls in hand to be
// answered (or the connection closed), then reports the end.
func (t *transport) ended(ctx context.Context, err error) error {
	t.inputEnded(err)
	t.mu.Lock()
	if len(t.pending) == 0 {
		t.mu.Unlock()
		return err
	}
	t.idle = make(chan struct{})
	idle := t.idle
	t.mu.Unlock()
	select {
	case <-idle:
	case <-t.closed:
	case <-ctx.Done():
	}
	return err
}

// Write sends a message, but no answer to a cancelled request.
func (t *transport) Write(_ context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok && t.answered(resp.ID) {
		return nil
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	if err := t.st.WriteObject(json.RawMessage(data)); err != nil {
		t.writeFailed(err)
		return err
	}
	return nil
}

// answered forgets an answered call and reports whether it was cancelled.
func (t *transport) answered(id jsonrpc.ID) (cancelled bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	cancelled = t.cancelled[id]
	delete(t.cancelled, id)
	delete(t.pending, id)
	if len(t.pending) == 0 && t.idle != nil {
		close(t.idle)
		t.idle = nil
	}
	return cancelled
}

// Close ends the connection; it may be called more than once.
func (t *transport) Close() error {
	var err error
	t.closeOnce.Do(func() {
		close(t.closed)
		err = t.closer.Close()
	})
	if errors.Is(err, io.ErrClosedPipe) {
		return nil
	}
	return err
}

// SessionID is empty: stdio has one session.
func (t *transport) SessionID() string { return "" }
