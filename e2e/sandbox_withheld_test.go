//go:build linux

package e2e

import (
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// reversed is s backwards.
func reversed(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// transformations prints the variable or file value v (a shell word) as
// it is, reversed, in base64, in hex and split across lines: masking
// output catches only the first.
func transformations(v string) []string {
	return []string{
		"printf '%s\\n' " + v,
		"printf '%s' " + v + " | rev",
		"printf '%s' " + v + " | base64",
		"printf '%s' " + v + " | od -An -tx1",
		"printf '%s' " + v + " | fold -w 3",
		python + ` -c "import sys; v=sys.argv[1]; print(v[::-1]); print(v.encode().hex())" ` + v,
	}
}

// leaked reports how out shows secret, if it does: as it is, reversed,
// in base64 or hex, or split across lines.
func leaked(out, secret string) string {
	joined := strings.Join(strings.Fields(out), "")
	for how, form := range map[string]string{"verbatim": secret, "reversed": reversed(secret),
		"base64": base64.StdEncoding.EncodeToString([]byte(secret)), "hex": hex.EncodeToString([]byte(secret))} {
		if strings.Contains(joined, form) || strings.Contains(joined, form[:len(form)*2/3]) {
			return how
		}
	}
	return ""
}

// TestSandboxWithholdsMaskedVariables: a confined command gets a
// placeholder for each masked variable of the helper's environment, so
// that no transformation of it reaches the host; printenv says what it
// got. An approved line that leaves the sandbox gets the real value.
func TestSandboxWithholdsMaskedVariables(t *testing.T) {
	const secret = "sk-e2e-" + "9f8e7d6c5b4a39281706"
	bin := t.TempDir()
	// A stand-in deploy tool that prints the key reversed, past the
	// masking, to show what it got.
	must(t, os.WriteFile(filepath.Join(bin, "gh"), []byte("#!/bin/sh\nprintf 'gh got %s\\n' \"$(printf '%s' \"$OPENAI_API_KEY\" | rev)\"\n"), 0o755))
	s := startConfined(t, "ndjson", withEnv("OPENAI_API_KEY="+secret, "PATH="+bin+":"+os.Getenv("PATH")))
	r := s.c.exec(map[string]any{"command": "printenv OPENAI_API_KEY"})
	if got := strings.TrimSpace(r.Output); got != "termhelper-masked:OPENAI_API_KEY" {
		t.Errorf("printenv confined: %q, want the placeholder", got)
	}
	for _, cmd := range transformations(`"$OPENAI_API_KEY"`) {
		r := s.c.exec(map[string]any{"command": cmd})
		if r.ExitCode == nil || *r.ExitCode != 0 {
			t.Errorf("%s: exit %s %q", cmd, exitOf(r), r.Output)
		}
		if how := leaked(r.Output, secret); how != "" {
			t.Errorf("%s: the key reached the host %s: %q", cmd, how, r.Output)
		}
	}
	r = s.c.exec(map[string]any{"command": python + ` -c "import os; print(os.environ['OPENAI_API_KEY'][::-1])"`})
	if how := leaked(r.Output, secret); how != "" {
		t.Errorf("python: the key reached the host %s: %q", how, r.Output)
	}
	var asked atomic.Int32
	s.c.onRequest = func(m message) any {
		asked.Add(1)
		return map[string]string{"decision": "allow"}
	}
	s.c.call("initialize", map[string]any{"capabilities": map[string]any{"approval": true}})
	r = s.c.exec(map[string]any{"command": "printenv OPENAI_API_KEY | rev"})
	if asked.Load() != 0 || !strings.Contains(r.Output, reversed("termhelper-masked:OPENAI_API_KEY")) {
		t.Errorf("confined, a read of the placeholder is not asked about: asked %d, %s", asked.Load(), describe(r))
	}
	r = s.c.exec(map[string]any{"command": "gh release create v1"})
	if asked.Load() != 1 || !strings.Contains(r.Output, "gh got "+reversed(secret)) {
		t.Errorf("approved and unconfined, the line should get the real key: asked %d, %s", asked.Load(), describe(r))
	}
}
