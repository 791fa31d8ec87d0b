// Package rpc is termhelper's native front end: the method table, the
// params of package protocol turned into engine calls, and the one place
// where an engine error becomes a JSON-RPC error. The connection is
// package wire's; the work is the engine's.
package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/protocol"
	"github.com/termhelper/termhelper/session"
	"github.com/termhelper/termhelper/wire"
)

// Method is one method of a protocol: params in, an answer or an error out.
type Method func(ctx context.Context, params *json.RawMessage) (any, error)

// Options configure a Server.
type Options struct {
	Log *slog.Logger
	// AfterFirst runs once, after the first request has been answered:
	// start-up work that must not delay the answer to initialize (reading
	// the login shell's environment, pruning old files). Serve waits for
	// it before it returns.
	AfterFirst func()
	// Shared is an engine other connections serve too (termhelper
	// --persist): this one attaches to it, and its end leaves the
	// sessions running; shutdown too ends only this connection.
	Shared bool
}

// Server serves one host over one connection.
type Server struct {
	eng  *engine.Engine
	opts Options
	log  *slog.Logger
	life *lifecycle
	att  *engine.Attachment // with Options.Shared

	mu   sync.Mutex
	conn *wire.Conn

	inflight   sync.WaitGroup // requests being handled
	cancels    map[wire.ID]context.CancelFunc
	background sync.WaitGroup // AfterFirst, the heartbeat
	first      sync.Once
	heartbeat  wire.Heartbeat
	goneOnce   sync.Once
	methods    map[string]Method
}

// New returns a server over eng; it becomes eng's sink.
func New(eng *engine.Engine, opts Options) *Server {
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{eng: eng, opts: opts, log: opts.Log, life: newLifecycle(), cancels: map[wire.ID]context.CancelFunc{}}
	s.methods = map[string]Method{
		protocol.MethodInitialize:   s.initialize,
		protocol.MethodShutdown:     s.shutdownMethod,
		protocol.MethodExit:         s.exitMethod,
		protocol.MethodRun:          s.execRun,
		protocol.MethodWrite:        s.sessionWrite,
		protocol.MethodRead:         s.sessionRead,
		protocol.MethodKill:         s.sessionKill,
		protocol.MethodList:         s.sessionList,
		protocol.MethodResize:       s.sessionResize,
		protocol.MethodScreen:       s.sessionScreen,
		protocol.MethodCheck:        s.policyCheck,
		protocol.MethodTrashList:    s.trashList,
		protocol.MethodTrashRestore: s.trashRestore,
		protocol.MethodPing:         ping,
	}
	if opts.Shared {
		s.att = eng.Attach(notifier{s})
	} else {
		eng.SetSink(notifier{s})
	}
	return s
}

// Serve answers requests on rwc until the host disconnects, sends exit, or
// ctx ends (a signal, or the host's end of the output gone). At the end of
// the host's input it first finishes the requests already received. It
// then ends every command's process tree and returns.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser, f wire.Framing) error {
	st := wire.NewStream(watchWrites{s.heartbeat.Reader(rwc), s.writeFailed}, f)
	st.AtEOF = func() { s.inputEnded(ctx) }
	conn := wire.NewConn(ctx, st, s, s.log)
	s.mu.Lock()
	s.conn = conn
	s.mu.Unlock()
	select {
	case <-conn.Done():
	case <-s.life.exitNow:
		s.log.Info("exiting")
	case <-ctx.Done():
		s.log.Info("stopping", "cause", context.Cause(ctx))
	}
	s.life.advance(exiting)
	s.drain()
	conn.Close()
	s.background.Wait()
	return nil
}

// inputEnded runs in the read loop at the end of the host's input, before
// the connection closes: the requests already received run to their
// answers, which still reach the host, and then every tree is ended. The
// host going away or a signal cuts the wait short.
func (s *Server) inputEnded(ctx context.Context) {
	s.log.Info("host closed its input: finishing the requests in hand")
	s.life.advance(inputEnded)
	done := make(chan struct{})
	go func() {
		s.inflight.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
	case <-s.life.exitNow:
	}
	s.drain()
}

// writeFailed is called when a write to the host fails: nobody is
// listening.
func (s *Server) writeFailed(err error) { s.hostGone(err) }

// hostGone is the host gone without closing its input: a failed write,
// or silence past its heartbeat. Serving ends now, as at a signal, and the
// connection ends through drain, the way every end of it goes.
func (s *Server) hostGone(cause error) {
	if s.life.advance(exiting) {
		s.log.Info("the host is gone", "cause", cause)
	}
}

// startHeartbeat counts the host as gone after three periods in which it
// sent nothing; only the first initialize that asks starts it. It stops
// at the end of the host's input, which ends the connection its own way.
func (s *Server) startHeartbeat(period time.Duration) {
	if !s.heartbeat.Claim() {
		return
	}
	s.background.Add(1)
	go func() {
		defer s.background.Done()
		s.heartbeat.Watch(period, s.life.noAnswers, func() {
			s.hostGone(fmt.Errorf("nothing received for %d heartbeats of %v", wire.HeartbeatBeats, period))
		})
	}()
}

// drain is the end of the connection, whatever ended it (the end of the
// host's input once its requests are answered, the host gone, a signal,
// exit): every command's tree is ended, once, then the requests in flight
// send their (now finished) answers.
//
// Over a shared engine (termhelper --persist) it only detaches: the
// sessions stay, and a request still waiting answers into the closed
// connection once its wait ends.
func (s *Server) drain() {
	s.goneOnce.Do(s.end)
	if s.att == nil {
		s.inflight.Wait()
	}
}

// end ends this connection's hold on the engine: its sessions with it,
// or over a shared engine only its attachment.
func (s *Server) end() {
	if s.att != nil {
		s.att.Detach()
		return
	}
	s.eng.Close()
}

// Handle runs in the read loop. initialize is applied there, before the
// next message is read, so that its trust and capabilities hold for every
// request after it however fast they come. Every other request runs in
// its own goroutine, so that a long exec/run never blocks the next one,
// counted before it starts so that drain never misses it.
func (s *Server) Handle(ctx context.Context, conn *wire.Conn, req *wire.Request) {
	s.mu.Lock()
	s.conn = conn // the first message can come before NewConn has returned
	s.mu.Unlock()
	if s.att != nil {
		ctx = s.att.Bind(ctx)
	}
	switch req.Method {
	case protocol.MethodInitialize:
		s.reply(ctx, conn, req)
		return
	case protocol.MethodCancel:
		s.cancelRequest(req)
		return
	}
	s.inflight.Add(1)
	// A request ends on its own, or when the host cancels it: the end of
	// the connection ends its commands through the engine, never by a
	// cancellation the host did not ask for.
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if !req.Notif {
		s.mu.Lock()
		s.cancels[req.ID] = cancel
		s.mu.Unlock()
	}
	go func() {
		defer s.inflight.Done()
		defer s.forget(req, cancel)
		s.reply(ctx, conn, req)
	}()
}

// cancelRequest is $/cancelRequest: the request it names ends its wait
// (and an exec/run its command) and answers -32800. It runs in the read
// loop, so that the cancellation is in force before the next message.
func (s *Server) cancelRequest(req *wire.Request) {
	var p struct {
		ID *wire.ID `json:"id"`
	}
	if req.Params == nil || json.Unmarshal(*req.Params, &p) != nil || p.ID == nil {
		s.log.Debug("$/cancelRequest without a usable id")
		return
	}
	s.cancel(*p.ID)
}

func (s *Server) forget(req *wire.Request, cancel context.CancelFunc) {
	cancel()
	if !req.Notif {
		s.mu.Lock()
		delete(s.cancels, req.ID)
		s.mu.Unlock()
	}
}

func (s *Server) reply(ctx context.Context, conn *wire.Conn, req *wire.Request) {
	res, err := s.handle(ctx, req)
	if !req.Notif {
		if err != nil {
			conn.ReplyError(ctx, req.ID, err)
		} else {
			conn.Reply(ctx, req.ID, res)
		}
	}
	s.first.Do(s.startAfterFirst)
}

func (s *Server) startAfterFirst() {
	if s.opts.AfterFirst == nil {
		return
	}
	s.background.Add(1)
	go func() {
		defer s.background.Done()
		s.opts.AfterFirst()
	}()
}

func (s *Server) handle(ctx context.Context, req *wire.Request) (any, *wire.Error) {
	m, ok := s.methods[req.Method]
	if !ok {
		return nil, &wire.Error{Code: wire.CodeMethodNotFound, Message: "method not found: " + req.Method}
	}
	res, err := m(ctx, req.Params)
	if err != nil {
		s.log.Debug("request failed", "method", req.Method, "err", err)
		return nil, wireError(err)
	}
	return res, nil
}

// notify sends a notification if a host is connected.
func (s *Server) notify(method string, params any) {
	s.mu.Lock()
	conn := s.conn
	s.mu.Unlock()
	if conn == nil {
		return
	}
	if err := conn.Notify(context.Background(), method, params); err != nil {
		s.log.Debug("notification not sent", "method", method, "err", err)
	}
}

// cancel ends the wait of the request with this id, if it is in flight.
func (s *Server) cancel(id wire.ID) {
	s.mu.Lock()
	cancel := s.cancels[id]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// call sends a request to the host and waits for its answer, until ctx
// ends or no answer can come any more; sent learns its id.
func (s *Server) call(ctx context.Context, method string, params, result any, sent func(wire.ID)) error {
	s.mu.Lock()
	conn := s.conn
	s.mu.Unlock()
	return conn.Call(s.closing(ctx), method, params, result, sent)
}

type notifier struct{ s *Server }

func (n notifier) Exited(id string, r session.Result) {
	n.s.notify(protocol.NotifyExited, protocol.ExitedEvent(id, r))
}

func (n notifier) Waiting(id string, p session.Prompt) {
	n.s.notify(protocol.NotifyWaiting, protocol.Waiting{SessionID: id, Prompt: *protocol.PromptOf(&p)})
}

func (n notifier) Output(id, stream, data string) {
	n.s.notify(protocol.NotifyOutput, protocol.Output{SessionID: id, Stream: stream, Data: data})
}

// watchWrites reports a failed write: the host's end of the output is gone.
type watchWrites struct {
	io.ReadWriteCloser
	failed func(error)
}

func (w watchWrites) Write(p []byte) (int, error) {
	n, err := w.ReadWriteCloser.Write(p)
	if err != nil {
		w.failed(err)
	}
	return n, err
}
