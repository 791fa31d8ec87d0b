//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const masked = "********"

// outputNotes joins the data of every session/output notification that
// has come so far, after the session's session/exited.
func outputNotes(c *client, id string) string {
	c.t.Helper()
	var b strings.Builder
	for {
		m := c.nextNote()
		var p struct{ SessionID, Data string }
		if m.Method == "" || json.Unmarshal(m.Params, &p) != nil || p.SessionID != id {
			continue
		}
		b.WriteString(p.Data)
		if m.Method == "session/exited" {
			return b.String()
		}
	}
}

// secretsNowhere fails if secret is in any of the texts.
func secretsNowhere(t *testing.T, secret string, texts map[string]string) {
	t.Helper()
	for where, text := range texts {
		assert.NotContains(t, text, secret, "the secret reached the %s", where)
	}
}

// A secret answered to a password prompt and echoed after 20,000 lines
// (so that the spill file holds it) is in no answer, prompt, spill file,
// notification or log.
func TestSecretInputNeverReachesTheModel(t *testing.T) {
	const secret = "hunter2-correct-horse-e2e"
	for _, fr := range framings {
		t.Run(fr, func(t *testing.T) {
			t.Parallel()
			c := start(t, fr, t.TempDir(), []string{"--log-level", "debug"})
			_, rerr := c.call("initialize", map[string]any{"capabilities": map[string]bool{"outputStream": true}})
			require.Nil(t, rerr)
			seen := map[string]string{}
			r := c.exec(map[string]any{"command": `printf 'Password: '; stty -echo; read pw; stty echo; echo; seq 1 20000; echo "pw=$pw"; printf "confirm $pw? "; read x; echo "done $pw"`})
			require.Equal(t, "waiting", r.State, "%+v", r)
			require.True(t, r.Prompt != nil && r.Prompt.Secret, "%+v", r)
			id := r.SessionID
			r = c.run("session/write", map[string]any{"sessionId": id, "input": secret + "\n", "secret": true, "yieldMs": 30000})
			for r.State == "running" {
				seen["alive answer "+r.Output[:min(20, len(r.Output))]] = r.Output
				r = c.run("session/read", map[string]any{"sessionId": id, "yieldMs": 30000})
			}
			require.Equal(t, "waiting", r.State, "%+v", r)
			seen["alive answer"], seen["prompt"] = r.Output, r.Prompt.Text
			assert.Contains(t, r.Prompt.Text, "confirm "+masked)
			r = c.run("session/write", map[string]any{"sessionId": id, "input": "y\n", "yieldMs": 30000})
			if r.ExitCode == nil {
				r = c.run("session/read", map[string]any{"sessionId": id, "until": "exit", "yieldMs": 30000})
			}
			require.NotNil(t, r.ExitCode, "%+v", r)
			require.NotNil(t, r.FullOutputPath, "20,000 lines are cut: %+v", r)
			seen["finished answer"] = r.Output
			spilled, err := os.ReadFile(*r.FullOutputPath)
			require.NoError(t, err)
			seen["spill file"] = string(spilled)
			seen["notification"] = outputNotes(c, id)
			c.stop()
			seen["log"] = c.stderr.String()
			secretsNowhere(t, secret, seen)
			assert.Contains(t, seen["spill file"], "pw="+masked)
			assert.Contains(t, seen["notification"], "pw="+masked)
		})
	}
}

// The values of the helper's own secret-looking environment variables,
// and of those the config names in mask_env, are masked wherever a
// command prints them. This needs the engine to fill each command's
// session.Spec.Mask from mask.SecretValues. With the sandbox off: a
// confined command gets placeholders instead (TestSandboxWithholdsMaskedVariables).
func TestEnvironmentSecretsNeverReachTheModel(t *testing.T) {
	const key = "sk-e2e-4f8a9c2e1b7d6f3a0e5c9b8a"
	const dsn = "postgres://app:pa55w0rd@db/app"
	for _, fr := range framings {
		t.Run(fr, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			cfgDir := filepath.Join(root, ".cfg-"+t.Name())
			must(t, os.MkdirAll(cfgDir, 0o700))
			must(t, os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte("mask_env = [\"TEST_DSN\"]\n"), 0o600))
			c := start(t, fr, root, nil, withEnv("TEST_OPENAI_API_KEY="+key, "TEST_DSN="+dsn), sandboxOff)
			_, rerr := c.call("initialize", map[string]any{"capabilities": map[string]bool{"outputStream": true}})
			require.Nil(t, rerr)
			for _, mode := range []string{"pty", "pipes"} {
				r := c.exec(map[string]any{"mode": mode, "command": "printenv TEST_OPENAI_API_KEY; printenv TEST_DSN"})
				require.NotNil(t, r.ExitCode, "%+v", r)
				assert.NotContains(t, r.Output, key, mode)
				assert.NotContains(t, r.Output, dsn, mode)
				assert.Equal(t, 2, strings.Count(r.Output, masked), "%s: %q", mode, r.Output)
			}
		})
	}
}
