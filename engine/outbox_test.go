package engine

import (
	"strings"
	"testing"

	"github.com/termhelper/termhelper/session"
)

type blockedSink struct{ release chan struct{} }

func (b blockedSink) Exited(string, session.Result)  { <-b.release }
func (b blockedSink) Waiting(string, session.Prompt) { <-b.release }
func (b blockedSink) Output(string, string, string)  { <-b.release }

// The output queued for a host that takes none stays under the cap, and
// the end of a session is still queued past it.
func TestOutboxHoldsItsCap(t *testing.T) {
	release := make(chan struct{})
	o := newOutbox(blockedSink{release})
	defer close(release)
	defer o.close()
	chunk := strings.Repeat("x", 64<<10)
	for range 64 { // 4 MiB
		o.outputOf("1", "output", chunk)
	}
	o.exited("1", session.Result{})
	o.mu.Lock()
	held, last := o.output, o.queue[len(o.queue)-1].n
	o.mu.Unlock()
	if held > outboxOutputCap {
		t.Fatalf("%d bytes of output queued for a stuck host, over the cap of %d", held, outboxOutputCap)
	}
	if last != 0 {
		t.Fatal("the session's end was not queued after the cap")
	}
}
