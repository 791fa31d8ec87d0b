package policy

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/termhelper/termhelper/config"
)

const (
	testRoot = "/home/u/proj"
	testHome = "/home/u"
)

// testPolicy is a policy with the table's fixed root, home and config dir.
func testPolicy(t testing.TB, cfg config.Config) *Policy {
	t.Helper()
	t.Setenv("HOME", testHome)
	t.Setenv("TERMHELPER_CONFIG_DIR", testHome+"/.config/termhelper")
	return New(cfg, testRoot, nil)
}

// tableLine is one command of a table in testdata/policy: its line
// number, the decisions in front of it, and the command with its "+ "
// continuation lines. A "#shell NAME" line comes as decisions ["#shell"]
// and command NAME.
type tableLine struct {
	line      int
	decisions []Decision
	command   string
}

// readLines parses a table whose lines carry n decisions in front of the
// command (format in the header of commands.txt).
func readLines(t *testing.T, name string, n int) []tableLine {
	t.Helper()
	f, err := os.Open("../testdata/policy/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []tableLine
	sc := bufio.NewScanner(f)
	for num := 1; sc.Scan(); num++ {
		text := sc.Text()
		switch {
		case strings.HasPrefix(text, "+ ") && len(out) > 0:
			out[len(out)-1].command += "\n" + text[2:]
		case strings.HasPrefix(text, "#shell "):
			out = append(out, tableLine{num, []Decision{"#shell"}, strings.TrimPrefix(text, "#shell ")})
		case strings.HasPrefix(text, "#") || strings.TrimSpace(text) == "":
		default:
			out = append(out, parseTableLine(t, name, num, text, n))
		}
	}
	return out
}

func parseTableLine(t *testing.T, name string, num int, text string, n int) tableLine {
	l := tableLine{line: num}
	rest := text
	for i := 0; i < n; i++ {
		dec, r, ok := strings.Cut(strings.TrimLeft(rest, " "), " ")
		if !ok || dec != "allow" && dec != "ask" && dec != "deny" {
			t.Fatalf("%s:%d: bad line %q", name, num, text)
		}
		l.decisions, rest = append(l.decisions, Decision(dec)), r
	}
	l.command = strings.TrimLeft(rest, " ")
	return l
}

func TestCommandTable(t *testing.T) {
	p := testPolicy(t, config.Default())
	cases := readLines(t, "commands.txt", 1)
	if len(cases) < 150 {
		t.Fatalf("the table has %d command lines, want at least 150", len(cases))
	}
	for _, c := range cases {
		v := p.Check(c.command, true)
		if v.Decision != c.decisions[0] {
			t.Errorf("commands.txt:%d: %q: got %s %q, want %s", c.line, c.command, v.Decision, v.Reasons, c.decisions[0])
		}
		if v.Decision != Allow && len(v.Reasons) == 0 {
			t.Errorf("commands.txt:%d: %q: %s without a reason", c.line, c.command, v.Decision)
		}
	}
}
