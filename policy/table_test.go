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
	return newPosix(cfg, testRoot, nil)
}

// newPosix is the policy these tests and tables expect: commands run by a
// POSIX sh, wherever the tests run. On Windows New judges by PowerShell
// (windows_test.go tests that); a POSIX shell there is Git Bash's.
func newPosix(cfg config.Config, root string, store *Store) *Policy {
	return newFor("linux", cfg, root, store)
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

// tableLine is one command of a table in testdata/policy: its line
// number, the decisions in front of it, and the command with its "+ "
// continuation lines. A "#shell NAME" line comes as decisions ["#shell"]
// and command NAME, an "#allow LIST" line as ["#allow"] and LIST.
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
		case strings.HasPrefix(text, "#shell ") || text == "#shell":
			out = append(out, tableLine{num, []Decision{"#shell"}, strings.TrimSpace(strings.TrimPrefix(text, "#shell"))})
		case strings.HasPrefix(text, "#allow"):
			out = append(out, tableLine{num, []Decision{"#allow"}, strings.TrimSpace(strings.TrimPrefix(text, "#allow"))})
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
		if strings.Contains(c.command, "~root") && userHome("root") == "" {
			t.Logf("commands.txt:%d: skipped: no user root here (Windows), so ~root names no home folder", c.line)
			continue
		}
		v := p.Check(c.command, true)
		if v.Decision != c.decisions[0] {
			t.Errorf("commands.txt:%d: %q: got %s %q, want %s", c.line, c.command, v.Decision, v.Reasons, c.decisions[0])
		}
		if v.Decision != Allow && len(v.Reasons) == 0 {
			t.Errorf("commands.txt:%d: %q: %s without a reason", c.line, c.command, v.Decision)
		}
	}
}
