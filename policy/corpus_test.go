package policy

import (
	"testing"

	"github.com/termhelper/termhelper/config"
)

// TestAgentCorpus judges what an agent really sends, with the sandbox off
// and on: the sandbox must take away nine in ten approvals, and what is
// still asked about must leave the sandbox or read a secret.
func TestAgentCorpus(t *testing.T) {
	p := testPolicy(t, config.Default())
	lines := readLines(t, "agent.txt", 2)
	if len(lines) < 200 {
		t.Fatalf("agent.txt has %d lines, want at least 200", len(lines))
	}
	asksOff, asksOn, leaving := 0, 0, 0
	for _, c := range lines {
		off := p.Judge(c.command, testRoot, Judging{Trusted: true})
		on := p.Judge(c.command, testRoot, Judging{Trusted: true, Sandboxed: true})
		if off.Decision != c.decisions[0] || on.Decision != c.decisions[1] {
			t.Errorf("agent.txt:%d: %q: got off %s %q, on %s %q; want %s, %s", c.line, c.command,
				off.Decision, off.Reasons, on.Decision, on.Reasons, c.decisions[0], c.decisions[1])
		}
		if off.Decision == Ask {
			asksOff++
		}
		if on.Leaves {
			leaving++
		}
		if on.Decision != Ask {
			continue
		}
		asksOn++
		if !on.Leaves && !readsSecret(p.judge(c.command, testRoot, nil)) {
			t.Errorf("agent.txt:%d: %q is asked about in the sandbox, but neither leaves it nor reads a secret: %q",
				c.line, c.command, on.Reasons)
		}
	}
	t.Logf("%d lines: %d asked about with the sandbox off, %d with it on (%d leave it)", len(lines), asksOff, asksOn, leaving)
	if asksOn*10 > asksOff {
		t.Errorf("the sandbox leaves %d of %d approvals, more than a tenth", asksOn, asksOff)
	}
}

func readsSecret(r *report) bool {
	for _, a := range r.ask {
		if r.class[a] == askSecret {
			return true
		}
	}
	return false
}
