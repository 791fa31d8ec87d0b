//go:build unix

package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/termhelper/termhelper/mask"
)

const testKey = "sk-test-4f8a9c2e1b7d6f3a0e5c"

// gated returns command made to wait for open() before it runs, so that
// a test can hand the session over (and have its output streamed and its
// exit notified) before it prints anything.
func gated(t *testing.T, command string) (string, func()) {
	gate := filepath.Join(t.TempDir(), "gate")
	open := func() {
		if err := os.WriteFile(gate, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return fmt.Sprintf("while [ ! -e %s ]; do sleep 0.01; done; %s", gate, command), open
}

// noSecret fails if any of texts holds secret.
func noSecret(t *testing.T, secret string, texts map[string]string) {
	t.Helper()
	for where, text := range texts {
		if strings.Contains(text, secret) {
			t.Errorf("the secret reached the %s: %q", where, text)
		}
	}
}

// An API key in the helper's environment is masked when a command prints
// it, also when it comes out in two pieces, in both modes.
func TestEnvironmentSecretIsMasked(t *testing.T) {
	m, rec := newManager(t, Config{})
	m.StreamOutput(true)
	env := append(os.Environ(), "TEST_API_KEY="+testKey)
	for _, pty := range []bool{true, false} {
		command, open := gated(t, `printenv TEST_API_KEY; printf 'half: %s' "$(printf %s "$TEST_API_KEY" | cut -c1-9)"; sleep 0.2; printf '%s\n' "$(printf %s "$TEST_API_KEY" | cut -c10-)"`)
		sp := spec(command)
		sp.PTY, sp.Env = pty, env
		sp.Mask = mask.SecretValues(env, nil)
		s := startT(t, m, sp)
		answerWithin(t, s, AnswerOpts{Now: true}) // handed: its output is streamed
		open()
		r := answerWithin(t, s, AnswerOpts{UntilExit: true})
		if r.Exit == nil || strings.Count(r.Output, mask.Replacement) != 2 {
			t.Fatalf("pty %v: want the key masked twice: %+v", pty, r)
		}
		waitEvents(t, rec, s.ID(), 1)
		noSecret(t, testKey, map[string]string{"answer": r.Output, "notification": rec.outputOf(s.ID())})
		if got := rec.outputOf(s.ID()); strings.Count(got, mask.Replacement) != 2 {
			t.Errorf("pty %v: notifications %q", pty, got)
		}
	}
}

// A secret answered to a password prompt, then echoed after 20,000 lines
// (so that the spill file holds it) and in a later prompt, is in no
// answer, spill file, notification or prompt.
func TestSecretInputIsMaskedEverywhere(t *testing.T) {
	const secret = "hunter2-correct-horse"
	m, rec := newManager(t, Config{})
	m.StreamOutput(true)
	s := startT(t, m, spec(`printf 'Password: '; stty -echo; read pw; stty echo; echo; seq 1 20000; echo "pw=$pw"; printf "confirm $pw? "; read x; echo "done $pw"`))
	r := answerWithin(t, s, AnswerOpts{})
	if r.State != Waiting || r.Prompt == nil || !r.Prompt.Secret {
		t.Fatalf("want a secret prompt: %+v", r)
	}
	if err := s.Write(secret+"\n", true); err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	r = answerWithin(t, s, AnswerOpts{})
	if r.State != Waiting || r.Prompt == nil {
		t.Fatalf("want the confirm prompt: %+v", r)
	}
	seen["prompt"] = r.Prompt.Text
	seen["alive answer"] = r.Output
	if !strings.Contains(r.Prompt.Text, "confirm "+mask.Replacement) {
		t.Errorf("prompt %q", r.Prompt.Text)
	}
	if err := s.Write("y\n", false); err != nil {
		t.Fatal(err)
	}
	r = answerWithin(t, s, AnswerOpts{UntilExit: true})
	if r.Exit == nil || r.FullOutputPath == "" {
		t.Fatalf("want finished with a spill file: %+v", r)
	}
	seen["finished answer"] = r.Output
	spilled, err := os.ReadFile(r.FullOutputPath)
	if err != nil {
		t.Fatal(err)
	}
	seen["spill file"] = string(spilled)
	waitEvents(t, rec, s.ID(), 1)
	seen["notification"] = rec.outputOf(s.ID())
	noSecret(t, secret, seen)
	for _, where := range []string{"spill file", "notification"} {
		if !strings.Contains(seen[where], "pw="+mask.Replacement) {
			t.Errorf("the %s lacks the masked echo", where)
		}
	}
}

// A terminal writes a newline as CR LF: a secret of several lines (a key
// in PEM form) is masked as the terminal prints it.
func TestMultiLineSecretIsMaskedOnATerminal(t *testing.T) {
	const pem = "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END KEY-----"
	m, rec := newManager(t, Config{})
	m.StreamOutput(true)
	command, open := gated(t, `printenv TEST_PRIVATE_KEY`)
	sp := spec(command)
	sp.Env = append(os.Environ(), "TEST_PRIVATE_KEY="+pem)
	sp.Mask = mask.SecretValues(sp.Env, nil)
	s := startT(t, m, sp)
	answerWithin(t, s, AnswerOpts{Now: true})
	open()
	r := answerWithin(t, s, AnswerOpts{UntilExit: true})
	waitEvents(t, rec, s.ID(), 1)
	notes := rec.outputOf(s.ID())
	if !strings.Contains(notes, mask.Replacement) || strings.Contains(notes, "MIIEvQ") || strings.Contains(r.Output, "MIIEvQ") {
		t.Fatalf("answer %q, notifications %q", r.Output, notes)
	}
}
