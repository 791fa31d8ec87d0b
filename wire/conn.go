package wire

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sourcegraph/jsonrpc2"
)

// ErrClosed is a call or a write on a connection that has closed.
var ErrClosed = errors.New("the connection is closed")

// Handler receives the peer's requests and notifications, in the read
// loop: while Handle runs no other message is read, so a handler that
// waits (for a command, for an answer from the peer) runs in its own
// goroutine.
type Handler interface {
	Handle(ctx context.Context, c *Conn, req *Request)
}

// Conn is one JSON-RPC connection over a Stream.
type Conn struct {
	mu    sync.Mutex
	inner *jsonrpc2.Conn
	ids   atomic.Uint64 // the ids of the calls this side makes
}

// NewConn starts reading s, handing every request to h, until the peer
// goes away or ctx ends.
func NewConn(ctx context.Context, s *Stream, h Handler, log *slog.Logger) *Conn {
	c := &Conn{}
	inner := jsonrpc2.NewConn(ctx, s, adapter{c, h}, jsonrpc2.SetLogger(printer{log}))
	c.set(inner)
	return c
}

// set records the library's connection: the first message can arrive
// before jsonrpc2.NewConn has returned.
func (c *Conn) set(inner *jsonrpc2.Conn) {
	c.mu.Lock()
	c.inner = inner
	c.mu.Unlock()
}

func (c *Conn) get() *jsonrpc2.Conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inner
}

// Reply answers the request with this id.
func (c *Conn) Reply(ctx context.Context, id ID, result any) error {
	return closed(c.get().Reply(ctx, jsonrpc2.ID(id), result))
}

// ReplyError answers the request with this id with an error.
func (c *Conn) ReplyError(ctx context.Context, id ID, e *Error) error {
	return closed(c.get().ReplyWithError(ctx, jsonrpc2.ID(id), (*jsonrpc2.Error)(e)))
}

// Notify sends a notification.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	return closed(c.get().Notify(ctx, method, params))
}

// Call sends a request and waits for its answer until ctx ends; its id is
// handed to sent first, so that the caller can name the request later
// (to cancel it). An error answer is an *Error.
func (c *Conn) Call(ctx context.Context, method string, params, result any, sent func(ID)) error {
	id := ID{Num: c.ids.Add(1)}
	if sent != nil {
		sent(id)
	}
	err := c.get().Call(ctx, method, params, result, jsonrpc2.PickID(jsonrpc2.ID(id)))
	var je *jsonrpc2.Error
	if errors.As(err, &je) {
		return (*Error)(je)
	}
	return closed(err)
}

// Done is closed when the connection has closed.
func (c *Conn) Done() <-chan struct{} { return c.get().DisconnectNotify() }

// Close closes the connection and its stream.
func (c *Conn) Close() error { return closed(c.get().Close()) }

func closed(err error) error {
	if errors.Is(err, jsonrpc2.ErrClosed) {
		return ErrClosed
	}
	return err
}

// adapter hands the library's requests to a Handler as this package's.
type adapter struct {
	c *Conn
	h Handler
}

func (a adapter) Handle(ctx context.Context, inner *jsonrpc2.Conn, r *jsonrpc2.Request) {
	a.c.set(inner)
	a.h.Handle(ctx, a.c, &Request{Method: r.Method, Params: r.Params, ID: ID(r.ID), Notif: r.Notif})
}

// printer sends the library's messages to the log.
type printer struct{ log *slog.Logger }

func (p printer) Printf(format string, args ...any) {
	if p.log != nil {
		p.log.Debug("jsonrpc2", "msg", strings.TrimSpace(fmt.Sprintf(format, args...)))
	}
}
