//go:build !windows

package engine_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/session"
)

// recorder is one attached front end's sink.
type recorder struct {
	exited chan string
	mu     sync.Mutex
	output string
}

func newRecorder() *recorder { return &recorder{exited: make(chan string, 8)} }

func (r *recorder) Exited(id string, _ session.Result) { r.exited <- id }
func (*recorder) Waiting(string, session.Prompt)       {}
func (r *recorder) Output(_, _, data string) {
	r.mu.Lock()
	r.output += data
	r.mu.Unlock()
}

func (r *recorder) seen() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.output
}

func exitedWithin(t *testing.T, r *recorder, id string) {
	t.Helper()
	select {
	case got := <-r.exited:
		if got != id {
			t.Fatalf("exited %s, want %s", got, id)
		}
	case <-time.After(time.Minute): // a watchdog, not a timing
		t.Fatalf("no exited event for %s", id)
	}
}

// Two front ends attached to one engine: both get a session's end, the
// one whose host asked gets its output, and a detached one gets nothing.
func TestAttachmentsShareTheSessionsEvents(t *testing.T) {
	root, err := platform.RealRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(engine.Options{Root: root, Config: config.Default()})
	defer eng.Close()
	streams, quiet := newRecorder(), newRecorder()
	a := eng.Attach(streams)
	b := eng.Attach(quiet)
	if !eng.Reattached() {
		t.Fatal("a second attachment is not reported")
	}
	a.SetHost(engine.Host{Trusted: true, StreamOutput: true})
	yield := int64(0)
	r, err := eng.Run(b.Bind(context.Background()), engine.RunParams{Command: "sleep 0.2; echo shared", Background: true, YieldMs: &yield})
	if err != nil {
		t.Fatal(err)
	}
	exitedWithin(t, streams, r.ID)
	exitedWithin(t, quiet, r.ID)
	if s := streams.seen(); s == "" {
		t.Error("the host that asked for output got none")
	}
	if s := quiet.seen(); s != "" {
		t.Errorf("output went to a host that did not ask: %q", s)
	}
	a.Detach()
	r, err = eng.Run(context.Background(), engine.RunParams{Command: "sleep 0.1", Background: true, YieldMs: &yield})
	if err != nil {
		t.Fatal(err)
	}
	exitedWithin(t, quiet, r.ID)
	select {
	case id := <-streams.exited:
		t.Fatalf("a detached front end got the end of %s", id)
	default:
	}
}

// stuck is the sink of a host that takes nothing: its connection's
// writes block until the test ends.
type stuck struct{ release chan struct{} }

func (s stuck) Exited(string, session.Result)  { <-s.release }
func (s stuck) Waiting(string, session.Prompt) { <-s.release }
func (s stuck) Output(string, string, string)  { <-s.release }

// A host that takes no events stalls neither the sessions nor the other
// attached hosts: they get their output and the session's end.
func TestAttachmentStuckHostStallsNoOther(t *testing.T) {
	root, err := platform.RealRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(engine.Options{Root: root, Config: config.Default()})
	release := make(chan struct{})
	defer eng.Close()
	defer close(release)
	stalled := eng.Attach(stuck{release})
	stalled.SetHost(engine.Host{Trusted: true, StreamOutput: true})
	live := newRecorder()
	eng.Attach(live).SetHost(engine.Host{Trusted: true, StreamOutput: true})
	yield := int64(0)
	for i := range 2 {
		r, err := eng.Run(context.Background(), engine.RunParams{Command: "echo out; sleep 0.1; echo more", Background: true, YieldMs: &yield})
		if err != nil {
			t.Fatal(err)
		}
		exitedWithin(t, live, r.ID)
		if i == 0 && live.seen() == "" {
			t.Error("the live host got no output")
		}
	}
}
