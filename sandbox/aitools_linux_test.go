package sandbox

import (
	"path/filepath"
	"strings"
	"testing"
)

// The credentials of the AI tools a person runs beside termhelper (their
// OAuth tokens, and the MCP configurations whose env blocks hold API
// keys) are secret places like any other: a prompt-injected command is
// exactly what would go looking for them.
func TestTheAIToolsCredentialsReadAsNothing(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		w := newWorld(t)
		files := []string{
			".claude/.credentials.json", ".claude.json", ".codex/auth.json",
			".config/github-copilot/apps.json", ".gemini/oauth_creds.json",
			".config/Claude/claude_desktop_config.json", ".cursor/mcp.json",
			".codeium/windsurf/mcp_config.json",
		}
		for _, f := range files {
			mkdir(t, filepath.Dir(filepath.Join(w.home, f)))
			write(t, filepath.Join(w.home, f), "SECRET-TOKEN "+f+"\n")
		}
		r := run(t, w.plan(WorkspaceWrite), w.env(), `
for f in .claude/.credentials.json .claude.json .codex/auth.json .config/github-copilot/apps.json \
  .gemini/oauth_creds.json .config/Claude/claude_desktop_config.json .cursor/mcp.json \
  .codeium/windsurf/mcp_config.json; do cat "$HOME/$f"; done; cat "$ROOT/README"`)
		for _, f := range files {
			if strings.Contains(r.out, "SECRET-TOKEN "+f) {
				t.Errorf("%s was read: %s", f, r.out)
			}
		}
		if !strings.Contains(r.out, "hello") {
			t.Errorf("an ordinary file was not readable: %s", r.out)
		}
	})
}
