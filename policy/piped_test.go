package policy

import (
	"strings"
	"testing"

	"github.com/termhelper/termhelper/config"
)

// TestTextPipedIntoAShell: what echo, printf or cat <<EOF writes into a
// shell is that shell's code, and the hard blocks apply to it. The first
// lines run to show the text running (dash's echo decoding \0NNN too).
func TestTextPipedIntoAShell(t *testing.T) {
	needUnix(t)
	root := scratchRoot(t)
	p := New(config.Default(), root, nil)
	for i, line := range []string{"echo 'touch M' | sh", "printf 'touch M\\n' | /bin/sh", "echo 'touc\\0150 M' | /bin/sh",
		"cat <<'EOF' | sh\ntouch M\nEOF"} {
		marker := root + "/PWNED" + string(rune('a'+i))
		line = strings.ReplaceAll(line, "M", marker)
		runIn(t, root, nil, "/bin/sh", "-c", line)
		if !exists(marker) && i != 2 {
			t.Fatalf("%q made no marker: the line proves nothing", line)
		}
		if v := p.Check(line, true); v.Decision != Ask || !containsReason(v, "touch") {
			t.Errorf("%q: %+v, want touch judged", line, v)
		}
	}
	for _, line := range []string{"echo 'sudo id' | sh", "echo sudo id | bash", "printf 'sudo id' | sh",
		"cat <<'EOF' | sh\nsudo id\nEOF", "cat <<< 'sudo id' | sh", "echo 'sud\\0157 id' | sh",
		"printf 's\\165do id\\n' | sh", "echo ':(){ :|:& };:' | bash", "echo 'rm -rf ~' | sh",
		"echo 'find ~ -delete' | sh -s", "echo 'sudo id' | timeout 5 sh"} {
		if v := p.Check(line, true); v.Decision != Deny {
			t.Errorf("%q: %+v, want deny", line, v)
		}
	}
}
