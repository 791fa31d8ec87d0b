package wire

import (
	"bytes"
	"testing"

	"github.com/termhelper/termhelper/wire/wiretest"
)

// FuzzReader: after any bytes, a newline and one valid request, the reader
// reads that request last, and never panics.
func FuzzReader(f *testing.F) {
	wiretest.AddSeeds(f)
	f.Fuzz(func(t *testing.T, garbage []byte, mode byte) {
		name, in := wiretest.FuzzInput(garbage, mode)
		framing, _ := ParseFraming(name)
		rw := &pipeRW{r: bytes.NewReader(in)}
		s := NewStream(rw, framing)
		var last message
		for range len(in) + 2 { // each message takes at least one byte
			var req message
			if s.ReadObject(&req) != nil {
				break
			}
			last = req
		}
		if wiretest.BindsBody(garbage) {
			return
		}
		if last.Method != "fuzz/sentinel" || last.ID.Str != wiretest.SentinelID {
			t.Fatalf("%v: the last message read was %q, not the sentinel; answers %q", framing, last.Method, rw.w.String())
		}
	})
}
