//lint:file-ignore SA1019 the logging capability goes with the logging notifications of PROTOCOL.md section 9, deprecated in 2026-07-28 but working.

// Package mcp is termhelper's Model Context Protocol front end, served on
// the official Go SDK (github.com/modelcontextprotocol/go-sdk) over
// termhelper's own garbage-proof stdio framing: one tool, terminal, over
// the engine. It turns tool arguments into engine calls and engine
// answers into what a model reads (the cleaned output and one status
// line) plus the native answer as structured content; it asks the person
// for approval through the client (elicitation, or the multi round-trip
// requests of 2026-07-28) where the client can; it answers a foreground
// command still running at the yield with its live session, so that no
// answer is lost to a host's timeout; and it reports sessions that end
// without being polled.
package mcp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/wire"
)

// Options configure Serve.
type Options struct {
	Version string // termhelper's own
	Log     *slog.Logger
	// Yield is how long a call may wait before it answers with a live
	// session (config mcp_yield_ms): under the hosts' tool timeouts.
	Yield time.Duration
	// Root is the project root from --root; "" lets the client's roots
	// decide, else Fallback.
	Root string
	// Fallback is the root when neither --root nor the client names one:
	// the working directory unless it is / or the home folder ("" then).
	Fallback string
	// Open builds the engine for a root, once, with the start-up work to
	// begin once it is open, off the answer's path (nil: none).
	Open func(root string) (*engine.Engine, func(), error)
	// Heartbeat, if set, counts a client that sends nothing for three
	// such periods as gone (config heartbeat_ms): a ping keeps it.
	Heartbeat time.Duration
	// Shared is an engine other connections serve too (termhelper
	// --persist): this one attaches to it, and its end leaves the
	// sessions running.
	Shared bool
}

// DefaultYield is mcp_yield_ms's default: 45 s, under the 60 s most hosts
// give a tool call.
const DefaultYield = 45 * time.Second

// front is one MCP connection over one engine.
type front struct {
	opts   Options
	log    *slog.Logger
	events *events
	asks   *questions

	openOnce sync.Once
	opened   chan struct{} // closed once the engine is open or failed to open
	eng      *engine.Engine
	att      *engine.Attachment // with Options.Shared
	openErr  error
	startUp  sync.WaitGroup // the start-up work of Open
	watching sync.WaitGroup // the heartbeat

	mu        sync.Mutex
	ss        *sdk.ServerSession
	toldOnce  sync.Once     // the first result's notice
	noAnswers chan struct{} // closed when no answer can come from the client any more
	stopOnce  sync.Once
}

// Serve serves MCP on rwc until the client goes away or ctx ends, then
// ends every command's tree. At the end of the client's input it first
// answers the calls already received.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, o Options) error {
	f := newFront(o)
	server := sdk.NewServer(&sdk.Implementation{Name: "termhelper", Title: "termhelper", Version: o.Version},
		&sdk.ServerOptions{Instructions: instructions, Logger: f.log,
			Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}, Logging: &sdk.LoggingCapabilities{}}})
	server.AddReceivingMiddleware(f.checkCall)
	sdk.AddTool(server, terminalTool(f.opts.Yield), f.call)
	var hb wire.Heartbeat
	t := newTransport(hb.Reader(rwc))
	t.inputEnded = func(error) { f.stopAsking() }
	t.writeFailed = func(error) { f.stopAsking() }
	if o.Root != "" {
		f.open(o.Root)
	}
	ss, err := server.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	f.setSession(ss)
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	silent := f.watchHeartbeat(&hb)
	select {
	case err = <-done:
	case <-ctx.Done():
		err = f.gone(ss, done, context.Cause(ctx))
	case cause := <-silent:
		err = f.gone(ss, done, cause)
	}
	f.stopAsking()
	f.closeEngine()
	f.startUp.Wait()
	f.watching.Wait()
	return err
}

// gone ends the connection before the client ended it: a signal, the
// client's end of the output gone, or its silence past the heartbeat.
func (f *front) gone(ss *sdk.ServerSession, done <-chan error, cause error) error {
	f.log.Info("stopping", "cause", cause)
	f.stopAsking()
	f.closeEngine()
	ss.Close()
	return <-done
}

// watchHeartbeat watches for a client silent for three heartbeats, until
// its input ends; the channel it returns says why, once. Without a
// heartbeat it is nil.
func (f *front) watchHeartbeat(hb *wire.Heartbeat) <-chan error {
	if f.opts.Heartbeat <= 0 {
		return nil
	}
	silent := make(chan error, 1)
	f.watching.Go(func() {
		hb.Watch(f.opts.Heartbeat, f.noAnswers, func() {
			silent <- fmt.Errorf("nothing received for %d heartbeats of %v", wire.HeartbeatBeats, f.opts.Heartbeat)
		})
	})
	return silent
}

const instructions = "termhelper runs shell commands in a real terminal inside the project: use the terminal tool. " +
	"Commands run in a sandbox where the machine has one (writes only inside the project, the network only to allowed hosts); " +
	"a result says what the sandbox stopped, and the first result says where the sandbox falls short here."

func newFront(o Options) *front {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Yield <= 0 {
		o.Yield = DefaultYield
	}
	f := &front{opts: o, log: o.Log, opened: make(chan struct{}), noAnswers: make(chan struct{}), asks: newQuestions()}
	f.events = newEvents(f)
	return f
}

func (f *front) setSession(ss *sdk.ServerSession) {
	f.mu.Lock()
	f.ss = ss
	f.mu.Unlock()
}

func (f *front) session() *sdk.ServerSession {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ss
}

// stopAsking ends every wait for an answer from the client: its input
// has ended, it is gone, or the helper is stopping.
func (f *front) stopAsking() {
	f.stopOnce.Do(func() { close(f.noAnswers) })
}

// asking is ctx, also ended once no answer can come from the client.
func (f *front) asking(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-f.noAnswers:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// open builds the engine for root, once.
func (f *front) open(root string) {
	f.openOnce.Do(func() {
		defer close(f.opened)
		var startUp func()
		f.eng, startUp, f.openErr = f.opts.Open(root)
		if f.openErr != nil {
			f.log.Error("no engine", "root", root, "err", f.openErr)
			return
		}
		if f.opts.Shared {
			f.att = f.eng.Attach(f.events)
		} else {
			f.eng.SetHost(engine.Host{Trusted: true})
			f.eng.SetSink(f.events)
		}
		if startUp != nil {
			f.startUp.Go(startUp)
		}
	})
}

// engine is the open engine, or nil before it is.
func (f *front) engine() *engine.Engine {
	select {
	case <-f.opened:
		return f.eng
	default:
		return nil
	}
}

// closeEngine ends every tree, or over a shared engine only detaches.
func (f *front) closeEngine() {
	e := f.engine()
	switch {
	case e == nil:
	case f.att != nil:
		f.att.Detach()
	default:
		e.Close()
	}
}
