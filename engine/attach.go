package engine

import (
	"context"
	"slices"
	"sync"

	"github.com/termhelper/termhelper/session"
)

// An Attachment is one front end's hold on an engine that several serve
// at once (a background helper's connections, termhelper --persist): its
// own host, which judges and asks about the requests made under its
// context (Bind), and its own sink. Exited and Waiting events go to every
// attachment; Output events to those whose host asked for them.
type Attachment struct {
	e *Engine

	mu   sync.Mutex
	host Host
	out  *outbox
	// restored: the sessions the engine held when this front end
	// attached after another one (see Restored).
	restored map[string]bool
}

// Attach adds a front end with sink s. Until its SetHost, its host is
// trusted and approves what it sends, as an engine's own is.
func (e *Engine) Attach(s Sink) *Attachment {
	a := &Attachment{e: e, host: Host{Trusted: true}, out: newOutbox(s), restored: map[string]bool{}}
	held := e.mgr.List()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.reattach = e.reattach || e.sink != nil
	if e.reattach {
		for _, in := range held {
			a.restored[in.ID] = true
		}
	}
	e.attached = append(e.attached, a)
	e.sink = fanout{e}
	return a
}

// Reattached reports whether a front end attached after another one had:
// the sessions it finds may have been started over an earlier connection.
func (e *Engine) Reattached() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.reattach
}

// Restored describes the sessions the engine held when this front end
// attached after another one, those still held, oldest first: what a
// host that connects again finds from before.
func (a *Attachment) Restored() []session.Info {
	out := []session.Info{}
	for _, in := range a.e.mgr.List() {
		if a.restored[in.ID] {
			out = append(out, in)
		}
	}
	return out
}

// SetHost applies what this front end learned about its host, for the
// requests made under Bind's context from then on.
func (a *Attachment) SetHost(h Host) {
	a.mu.Lock()
	a.host = h
	a.mu.Unlock()
	a.e.streamIfAsked()
}

// Bind returns ctx under which the engine judges and asks as this
// front end's host: the approval of a command goes to the connection
// whose request started it.
func (a *Attachment) Bind(ctx context.Context) context.Context {
	return context.WithValue(ctx, hostKey{}, a)
}

// Detach removes the front end: its sink gets no more events, those not
// yet delivered included. The sessions stay.
func (a *Attachment) Detach() {
	e := a.e
	e.mu.Lock()
	e.attached = slices.DeleteFunc(e.attached, func(x *Attachment) bool { return x == a })
	e.mu.Unlock()
	a.out.close()
	e.streamIfAsked()
}

func (a *Attachment) current() Host {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.host
}

type hostKey struct{}

// hostFor is the host of the attachment ctx was bound to, else the
// engine's own.
func (e *Engine) hostFor(ctx context.Context) Host {
	if a, ok := ctx.Value(hostKey{}).(*Attachment); ok {
		return a.current()
	}
	return e.currentHost()
}

// streamIfAsked turns output events on while any attached host wants them.
func (e *Engine) streamIfAsked() {
	on := false
	for _, a := range e.attachments() {
		on = on || a.current().StreamOutput
	}
	e.mgr.StreamOutput(on)
}

func (e *Engine) attachments() []*Attachment {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.attached)
}

// fanout is the sink of an engine with attachments: it queues each
// event in every attachment's outbox, never waiting for a host.
type fanout struct{ e *Engine }

func (f fanout) Exited(id string, r session.Result) {
	for _, a := range f.e.attachments() {
		a.out.exited(id, r)
	}
}

func (f fanout) Waiting(id string, p session.Prompt) {
	for _, a := range f.e.attachments() {
		a.out.waiting(id, p)
	}
}

func (f fanout) Output(id, stream, data string) {
	for _, a := range f.e.attachments() {
		if a.current().StreamOutput {
			a.out.outputOf(id, stream, data)
		}
	}
}
