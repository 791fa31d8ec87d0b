//go:build !windows

// The plan's paths are Unix paths, the sandbox's own platforms (Linux,
// and macOS's Seatbelt profile, tested everywhere else): on Windows the
// sandbox has no backend, and these paths mean nothing there.

package sandbox

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// sbpl is a profile read back the way a Scheme reader would: its top
// forms, each as text, and every string in it, unquoted.
type sbpl struct {
	forms   []string
	strings []string
}

// readSBPL reads profile, failing on unbalanced parentheses or an
// unterminated string: the two ways a path could break out of its quotes.
func readSBPL(t *testing.T, profile string) sbpl {
	t.Helper()
	var r sbpl
	depth, start := 0, 0
	for i := 0; i < len(profile); i++ {
		switch c := profile[i]; c {
		case '(':
			if depth == 0 {
				start = i
			}
			depth++
		case ')':
			if depth--; depth < 0 {
				t.Fatalf("an unbalanced ) at %d:\n%s", i, profile)
			}
			if depth == 0 {
				r.forms = append(r.forms, profile[start:i+1])
			}
		case '"':
			s, end := unquote(t, profile, i)
			r.strings = append(r.strings, s)
			i = end
		}
	}
	if depth != 0 {
		t.Fatalf("unbalanced parentheses:\n%s", profile)
	}
	return r
}

// unquote reads the string whose opening quote is at i, and returns it
// and the index of its closing quote.
func unquote(t *testing.T, s string, i int) (string, int) {
	t.Helper()
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; c {
		case '"':
			return b.String(), j
		case '\n':
			t.Fatalf("a raw newline inside a string at %d", j)
		case '\\':
			j++
			switch e := s[j]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'x':
				var v byte
				end := strings.IndexByte(s[j:], ';')
				fmt.Sscanf(s[j+1:j+end], "%x", &v)
				b.WriteByte(v)
				j += end
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	t.Fatalf("an unterminated string at %d", i)
	return "", 0
}

func (r sbpl) form(head string) string {
	for _, f := range r.forms {
		if strings.HasPrefix(f, head) {
			return f
		}
	}
	return ""
}

func seatbeltPlan() Plan {
	return Plan{
		Mode: WorkspaceWrite, Network: NetworkProxy, Root: "/Users/u/proj", TempDir: "/private/var/folders/x/T/termhelper-1",
		Writable: []string{"/Users/u/.npm"},
		Protect:  []string{"/Users/u/proj/.git/hooks/", "/Users/u/proj/.git/config", "/Users/u/.zshrc"},
		Hide:     []string{"/Users/u/.ssh", "/Users/u/.netrc", "/private/tmp/ssh-x/agent.1"},
	}
}

func TestSeatbeltDeniesByDefaultAndGrantsThePlan(t *testing.T) {
	r := readSBPL(t, SeatbeltProfile(seatbeltPlan()))
	if r.forms[0] != "(version 1)" || r.forms[1] != "(deny default)" {
		t.Fatalf("the profile must start closed: %v", r.forms[:2])
	}
	if r.form("(allow default") != "" || r.form("(allow network*") != "" || r.form("(allow file-write* (subpath \"/\")") != "" {
		t.Fatal("a governed profile opens everything")
	}
	read := r.form("(allow file-read*\n")
	if !strings.Contains(read, `(subpath "/")`) || !strings.Contains(read, "require-not") ||
		!strings.Contains(read, `(subpath "/Users/u/.ssh")`) || !strings.Contains(read, `(subpath "/Users/u/.netrc")`) {
		t.Errorf("reads must be everywhere but the secret places:\n%s", read)
	}
	write := r.form("(allow file-write*\n")
	allowed, denied, _ := strings.Cut(write, "require-not")
	for _, p := range []string{"/Users/u/proj", "/private/var/folders/x/T/termhelper-1", "/Users/u/.npm"} {
		if !strings.Contains(allowed, `(subpath "`+p+`")`) {
			t.Errorf("%s is not writable:\n%s", p, write)
		}
	}
	for _, p := range []string{`(subpath "/Users/u/proj/.git/hooks")`, `(subpath "/Users/u/proj/.git/config")`,
		`(subpath "/Users/u/.ssh")`, `(literal "/Users/u/proj/.git")`} {
		if !strings.Contains(denied, p) {
			t.Errorf("%s is not kept from writes:\n%s", p, write)
		}
	}
	if strings.Contains(denied, `"/Users/u/.zshrc"`) && !strings.Contains(denied, `(subpath "/Users/u/.zshrc")`) {
		t.Errorf("a protected file outside writable places is kept by subpath like the rest:\n%s", write)
	}
	for _, want := range []string{`(allow signal (target same-sandbox))`, `(allow process-fork)`, `(allow process-exec)`} {
		if r.form(want) == "" {
			t.Errorf("missing %s", want)
		}
	}
}

func TestSeatbeltNetworkIsLoopbackUnlessOpen(t *testing.T) {
	p := seatbeltPlan()
	r := readSBPL(t, SeatbeltProfile(p))
	out := strings.Join(slices.DeleteFunc(slices.Clone(r.forms), func(f string) bool { return !strings.HasPrefix(f, "(allow network-outbound") }), "\n")
	if !strings.Contains(out, `(remote ip "localhost:*")`) || strings.Contains(out, `(remote ip "*:*")`) {
		t.Errorf("outbound must be loopback only:\n%s", out)
	}
	for _, s := range []string{"/private/var/run/mDNSResponder", "/private/tmp/ssh-x/agent.1"} {
		if !strings.Contains(out, `(remote unix-socket (path-literal "`+s+`"))`) {
			t.Errorf("the socket %s must be shut:\n%s", s, out)
		}
	}
	p.Network = NetworkOpen
	if readSBPL(t, SeatbeltProfile(p)).form("(allow network*)") == "" {
		t.Error("an open network must be open")
	}
}

func TestSeatbeltReadOnlyWritesOnlyTheTemporaryFolder(t *testing.T) {
	p := seatbeltPlan()
	p.Mode = ReadOnly
	write := readSBPL(t, SeatbeltProfile(p)).form("(allow file-write*\n")
	if strings.Contains(write, `"/Users/u/proj"`) || strings.Contains(write, `"/Users/u/.npm"`) ||
		!strings.Contains(write, `"/private/var/folders/x/T/termhelper-1"`) {
		t.Errorf("read-only writes the temporary folder alone:\n%s", write)
	}
}

func TestSeatbeltQuotesOddPaths(t *testing.T) {
	odd := []string{`/Users/u/a "quoted" dir`, `/Users/u/back\slash`, "/Users/u/new\nline", "/Users/u/caf\u00e9 \u6f22\u5b57",
		`/Users/u/x")) (allow default) ("`, "/Users/u/bell\a", "/Users/u/tab\there"}
	p := seatbeltPlan()
	p.Hide = odd
	p.Writable = odd
	profile := SeatbeltProfile(p)
	r := readSBPL(t, profile)
	for _, o := range odd {
		if !slices.Contains(r.strings, o) {
			t.Errorf("%q does not read back from the profile", o)
		}
	}
	if r.form("(allow default)") != "" {
		t.Fatalf("a path broke out of its quotes:\n%s", profile)
	}
}
