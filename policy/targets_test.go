package policy

import (
	"testing"

	"github.com/termhelper/termhelper/config"
)

// TestDeleteTargetsSpelledOtherwise: the home folder, the root and the
// system's folders stay hard blocks when a line names them by ~user, by a
// pattern that matches them, or by trimming a known variable.
func TestDeleteTargetsSpelledOtherwise(t *testing.T) {
	needUnix(t)
	p := testPolicy(t, config.Default())
	for _, line := range []string{"rm -rf ~root", "rm -rf /hom?/u", "rm -rf /home/[u]", "rm -rf /hom?/*",
		"rm -rf /home/u/pro?", "rm -rf /home/*/proj", "rm -rf /???", "rm -rf /e?c", "rm -rf \"${PWD%/*}\"",
		"rm -rf ${HOME%/}", "rm -rf \"${PWD%%/u*}\"", "cd src && rm -rf \"${PWD%/src}\"", "find /hom? -delete",
		"chmod -R 777 /u?r"} {
		if v := p.Check(line, true); v.Decision != Deny {
			t.Errorf("%q: %+v, want deny", line, v)
		}
	}
	for _, line := range []string{"rm -rf build/*/cache", "rm -rf src/*.o", "rm -rf \"${PWD%/*}/proj/dist\"",
		"rm -r ~nosuchuser-termhelper/x"} {
		if v := p.Check(line, true); v.Decision != Ask {
			t.Errorf("%q: %+v, want ask", line, v)
		}
	}
}
