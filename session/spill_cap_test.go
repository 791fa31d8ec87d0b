//go:build unix

package session

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// A command that prints without end cannot grow its spill file past the
// cap, and its answers say that the full output file dropped some.
func TestSpillFileIsCappedAndSaysSo(t *testing.T) {
	m, _ := newManager(t, Config{})
	s := startT(t, m, spec(`seq 1 40000`))
	s.mu.Lock()
	s.out.spill.SetCap(60000, 10000)
	s.mu.Unlock()
	r := answerWithin(t, s, AnswerOpts{UntilExit: true})
	if r.Exit == nil || !r.Truncated || r.FullOutputPath == "" {
		t.Fatalf("want a finished, truncated answer with a spill file: %+v", r)
	}
	if !strings.Contains(r.Output, "[... the full output file is capped:") {
		t.Errorf("the answer does not say the spill was capped: ...%q", r.Output[max(0, len(r.Output)-300):])
	}
	data, err := os.ReadFile(r.FullOutputPath)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if len(data) > 60000 || !strings.HasPrefix(text, "1\n2\n3\n") || !strings.HasSuffix(text, "\n39999\n40000\n") ||
		!strings.Contains(text, "bytes of output dropped here") {
		t.Errorf("spill file of %d bytes: %q ... %q", len(data), text[:min(len(text), 40)], text[max(0, len(text)-40):])
	}
	if n := strings.Count(text, fmt.Sprintf("\n%d\n", 20000)); n != 0 {
		t.Errorf("the middle was kept")
	}
}
