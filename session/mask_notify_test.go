//go:build unix

package session

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/termhelper/termhelper/mask"
)

// escapes matches the colour codes the command below splits a key with.
var escapes = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// A secret split by escape sequences, and across reads, shows whole on a
// host's terminal: the session/output notifications carry it masked, as
// the answers do.
func TestNotificationMasksSecretSplitByEscapes(t *testing.T) {
	m, rec := newManager(t, Config{})
	m.StreamOutput(true)
	for _, pty := range []bool{true, false} {
		command, open := gated(t, `printf 'key: sk-t\033[mest-4f8a\033[1;32m'; sleep 0.2; printf '9c2e1b7d6f3a0e5c\033[0m done\n'`)
		sp := spec(command)
		sp.PTY = pty
		sp.Env = append(os.Environ(), "TEST_API_KEY="+testKey)
		sp.Mask = mask.SecretValues(sp.Env, nil)
		s := startT(t, m, sp)
		answerWithin(t, s, AnswerOpts{Now: true})
		open()
		r := answerWithin(t, s, AnswerOpts{UntilExit: true})
		waitEvents(t, rec, s.ID(), 1)
		notes := rec.outputOf(s.ID())
		shown := escapes.ReplaceAllString(notes, "")
		noSecret(t, testKey, map[string]string{"answer": r.Output, "notification as shown": shown})
		if !strings.Contains(shown, "key: "+mask.Replacement+" done") {
			t.Errorf("pty %v: notifications %q", pty, notes)
		}
	}
}
