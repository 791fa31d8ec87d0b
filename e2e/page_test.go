//go:build linux

package e2e

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func need(t *testing.T, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed here", p)
		}
	}
}

// rows splits a page answer into its rows.
func rows(output string) []string {
	return strings.Split(strings.TrimSuffix(output, "\n"), "\n")
}

// less on a real file: every alive answer shows the page a person sees,
// after until "stable" too, and paging shows the next page; the finished
// answer has none of it.
func TestLessAnswersWithItsPage(t *testing.T) {
	need(t, "less")
	each(t, func(t *testing.T, c *client, root string) {
		var notes strings.Builder
		for i := 1; i <= 200; i++ {
			fmt.Fprintf(&notes, "note %d\n", i)
		}
		writeFile(t, root, "notes.txt", notes.String())
		r := c.exec(map[string]any{"command": "less notes.txt", "cols": 80, "rows": 20, "env": map[string]any{"LESS": nil}})
		require.Equal(t, "waiting", r.State, "%+v", r)
		require.True(t, r.Screen, "%+v", r)
		page := rows(r.Output)
		require.Len(t, page, 20, r.Output)
		assert.Equal(t, "note 1", page[0])
		assert.Equal(t, "note 19", page[18])
		assert.Contains(t, page[19], "notes.txt")
		id := r.SessionID

		r = c.run("session/read", map[string]any{"sessionId": id, "until": "stable", "stableMs": 300, "yieldMs": 20000})
		require.True(t, r.Screen, "%+v", r)
		assert.Equal(t, "note 1", rows(r.Output)[0])

		r = c.run("session/write", map[string]any{"sessionId": id, "input": " ", "yieldMs": 20000})
		require.True(t, r.Screen, "%+v", r)
		assert.Equal(t, "note 20", rows(r.Output)[0], r.Output)

		r = c.run("session/write", map[string]any{"sessionId": id, "input": "q", "yieldMs": 20000})
		if r.ExitCode == nil {
			r = c.run("session/read", map[string]any{"sessionId": id, "until": "exit", "yieldMs": 20000})
		}
		require.NotNil(t, r.ExitCode, "%+v", r)
		assert.False(t, r.Screen)
		assert.NotContains(t, r.Output, "note 5")
	})
}

// git commit opening vim: the answer shows vim's page with git's message
// template, and the message typed there makes the commit.
func TestGitCommitInVimAnswersWithThePage(t *testing.T) {
	need(t, "git", "vim")
	each(t, func(t *testing.T, c *client, root string) {
		env := map[string]any{"GIT_EDITOR": "vim -u NONE -i NONE -N", "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com",
			"GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": "/dev/null"}
		r := c.exec(map[string]any{"command": "git init -q . && echo hi > a.txt && git add a.txt && git commit", "env": env, "cols": 80, "rows": 24})
		require.Equal(t, "waiting", r.State, "%+v", r)
		require.True(t, r.Screen, "%+v", r)
		assert.Contains(t, r.Output, "# Please enter the commit message")
		assert.Contains(t, r.Output, "new file:   a.txt")
		require.NotNil(t, r.Prompt)
		assert.Contains(t, r.Prompt.Text, "COMMIT_EDITMSG", "the editor's status line")
		r = c.run("session/write", map[string]any{"sessionId": r.SessionID, "input": "iadd a greeting\x1b:wq\r", "yieldMs": 20000})
		if r.ExitCode == nil {
			r = c.run("session/read", map[string]any{"sessionId": r.SessionID, "until": "exit", "yieldMs": 20000})
		}
		require.NotNil(t, r.ExitCode, "%+v", r)
		assert.Equal(t, 0, *r.ExitCode, r.Output)
		assert.Contains(t, r.Output, "add a greeting")
	})
}

// A page drawn by cursor address on the main screen, as a program that
// does not use the alternate screen draws: shown as a page.
func TestPageDrawnOnTheMainScreen(t *testing.T) {
	each(t, func(t *testing.T, c *client, root string) {
		cmd := `printf 'before\n\033[H\033[2JMENU\033[3;5H1. Build\033[4;5H2. Deploy\033[6;1HChoice: '; read x; echo "chose $x"`
		r := c.exec(map[string]any{"command": cmd, "cols": 40, "rows": 10})
		require.Equal(t, "waiting", r.State, "%+v", r)
		require.True(t, r.Screen, "%+v", r)
		assert.Equal(t, []string{"MENU", "", "    1. Build", "    2. Deploy", "", "Choice:"}, rows(r.Output))
		r = c.run("session/write", map[string]any{"sessionId": r.SessionID, "input": "1\n", "yieldMs": 20000})
		require.NotNil(t, r.ExitCode, "%+v", r)
		assert.Contains(t, r.Output, "chose 1")
		assert.NotContains(t, r.Output, "Deploy", "the page is not sent again")
	})
}
