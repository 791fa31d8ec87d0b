package policy

import (
	"bufio"
	"os"
	"runtime"
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
	setHome(t, testHome)
	return New(cfg, testRoot, nil)
}

// setHome makes home the user's home folder, with the termhelper folder in
// home/.config, on every system: Windows reads %USERPROFILE%, and keeps
// the termhelper folder in %AppData% (TERMHELPER_CONFIG_DIR would be made
// absolute there, gaining a drive the table's paths do not have).
func setHome(t testing.TB, home string) {
	t.Setenv("HOME", home)
	t.Setenv("TERMHELPER_CONFIG_DIR", home+"/.config/termhelper")
	if runtime.GOOS == "windows" {
		t.Setenv("USERPROFILE", home)
		t.Setenv("AppData", home+"/.config")
		t.Setenv("TERMHELPER_CONFIG_DIR", "")
	}
}

type tableCase struct {
	line    int
	want    Decision
	command string
}

// readTable parses testdata/policy/commands.txt (format in its header).
func readTable(t *testing.T) []tableCase {
	t.Helper()
	f, err := os.Open("../testdata/policy/commands.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []tableCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "+ ") && len(cases) > 0:
			cases[len(cases)-1].command += "\n" + line[2:]
		case strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "":
		default:
			dec, cmd, ok := strings.Cut(line, " ")
			if !ok || (dec != "allow" && dec != "ask" && dec != "deny") {
				t.Fatalf("commands.txt:%d: bad line %q", n, line)
			}
			cases = append(cases, tableCase{n, Decision(dec), cmd})
		}
	}
	return cases
}

func TestCommandTable(t *testing.T) {
	p := testPolicy(t, config.Default())
	cases := readTable(t)
	if len(cases) < 150 {
		t.Fatalf("the table has %d command lines, want at least 150", len(cases))
	}
	for _, c := range cases {
		v := p.Check(c.command, true)
		if v.Decision != c.want {
			t.Errorf("commands.txt:%d: %q: got %s %q, want %s", c.line, c.command, v.Decision, v.Reasons, c.want)
		}
		if v.Decision != Allow && len(v.Reasons) == 0 {
			t.Errorf("commands.txt:%d: %q: %s without a reason", c.line, c.command, v.Decision)
		}
	}
}
