package policy

import (
	"testing"

	"github.com/termhelper/termhelper/config"
)

// TestCodeAndPidsHandedOn: the code given to script or flock however the
// option is spelt, and pids of the helper piped into kill, keep their
// hard blocks.
func TestCodeAndPidsHandedOn(t *testing.T) {
	p := testPolicy(t, config.Default())
	for _, line := range []string{"script -qc 'sudo id' /dev/null", "script --command='sudo id' /dev/null",
		"script -q --comm 'sudo id' /dev/null", "flock /tmp/l --command='sudo id'", "flock -n /tmp/l -c 'sudo id'",
		"pgrep termhelper | xargs kill", "pgrep -f term | xargs -r kill -9", "pidof code | xargs kill"} {
		if v := p.Check(line, true); v.Decision != Deny {
			t.Errorf("%q: %+v, want deny", line, v)
		}
	}
	if v := p.Check("pgrep node | xargs kill", true); v.Decision != Ask {
		t.Errorf("pgrep node | xargs kill: %+v", v)
	}
}
