package policy

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/termhelper/termhelper/config"
)

type corpusLine struct {
	line    int
	off, on Decision
	command string
}

// readCorpus parses testdata/policy/agent.txt (format in its header).
func readCorpus(t *testing.T) []corpusLine {
	t.Helper()
	f, err := os.Open("../testdata/policy/agent.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusLine
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		switch {
		case strings.HasPrefix(text, "+ ") && len(out) > 0:
			out[len(out)-1].command += "\n" + text[2:]
		case strings.HasPrefix(text, "#") || strings.TrimSpace(text) == "":
		default:
			f := strings.Fields(text)
			if len(f) < 3 {
				t.Fatalf("agent.txt:%d: bad line %q", n, text)
			}
			cmd := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(text, f[0])), f[1]))
			out = append(out, corpusLine{n, Decision(f[0]), Decision(f[1]), cmd})
		}
	}
	return out
}

// TestAgentCorpus judges what an agent really sends, with the sandbox off
// and on: the sandbox must take away nine in ten approvals, and what is
// still asked about must leave the sandbox or read a secret.
func TestAgentCorpus(t *testing.T) {
	p := testPolicy(t, config.Default())
	lines := readCorpus(t)
	if len(lines) < 200 {
		t.Fatalf("agent.txt has %d lines, want at least 200", len(lines))
	}
	asksOff, asksOn, leaving := 0, 0, 0
	for _, c := range lines {
		off := p.Judge(c.command, testRoot, Judging{Trusted: true})
		on := p.Judge(c.command, testRoot, Judging{Trusted: true, Sandboxed: true})
		if off.Decision != c.off || on.Decision != c.on {
			t.Errorf("agent.txt:%d: %q: got off %s %q, on %s %q; want %s, %s", c.line, c.command,
				off.Decision, off.Reasons, on.Decision, on.Reasons, c.off, c.on)
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
