package policy

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/termhelper/termhelper/config"
)

// TestBashBuiltinsThatRunCommands: builtins that need no allow entry can
// still run a command in bash: jobs -x runs one, and a subscript in the
// name given to test -v, [[ -v ]] or wait -p is evaluated, $(...) and all.
// Each line is run by bash to show the marker it makes.
func TestBashBuiltinsThatRunCommands(t *testing.T) {
	needUnix(t)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash here")
	}
	root := scratchRoot(t)
	lines := []string{"jobs -x touch M", "[[ -v 'a[$(touch M)]' ]]", "test -v 'a[$(touch M)]'",
		"[ -v 'a[$(touch M)]' ]", "sleep 0 & wait -n -p 'a[$(touch M)]'"}
	for _, kind := range []string{"", bash} {
		cfg := config.Default()
		cfg.Shell = kind
		p := New(cfg, root, nil)
		for i, line := range lines {
			marker := root + "/PWNED" + string(rune('a'+i))
			line = strings.ReplaceAll(line, "M", marker)
			if kind != "" {
				runIn(t, root, nil, bash, "-c", line)
				if !exists(marker) {
					t.Fatalf("bash -c %q made no marker: the line proves nothing", line)
				}
			}
			if v := p.Check(line, true); v.Decision != Ask {
				t.Errorf("shell %q: %q: %+v", kind, line, v)
			}
		}
		for _, line := range []string{"jobs -l", "[[ -v HOME ]]", "test -v PATH", "sleep 1 & wait -n -p pid", "set -e"} {
			if v := p.Check(line, true); v.Decision != Allow {
				t.Errorf("shell %q: %q: %+v", kind, line, v)
			}
		}
	}
	p := testPolicy(t, config.Default())
	if v := p.Check("set -k; ps -A PS_FORMAT=pid,environ", true); v.Decision != Ask || !containsReason(v, "set -k") {
		t.Errorf("set -k: %+v", v)
	}
}
