package session

import (
	"testing"
	"time"
)

func TestQuestionOrShortcutListener(t *testing.T) {
	const patience = 3 * time.Second
	brief, long := 100*time.Millisecond, 5*time.Second
	for _, c := range []struct {
		name string
		r    rawRead
		want bool
	}{
		{"npx asks before installing", rawRead{line: "Ok to proceed? (y) ", quiet: brief}, true},
		{"a yes/no choice", rawRead{line: "Overwrite existing files [Y/n]", quiet: brief}, true},
		{"a choice among letters", rawRead{line: "Stage this hunk [y,n,q,a,d,e,?]", quiet: brief}, true},
		{"a question mark", rawRead{line: "Which port should the server use?", quiet: brief}, true},
		{"an inquirer question", rawRead{line: "? Project name: › my-app", quiet: brief}, true},
		{"a password", rawRead{line: "Enter passphrase for key '/home/u/.ssh/id_ed25519':", quiet: brief}, true},
		{"any key to go on", rawRead{line: "Press any key to continue...", quiet: brief}, true},
		{"a question asked after a log", rawRead{line: "Restart the server? (y/N)", printed: true, quiet: long}, true},

		{"vite's shortcuts", rawRead{line: "➜  press h + enter to show help", quiet: long}, false},
		{"vite 3's shortcuts", rawRead{line: "  press h to show help", quiet: long}, false},
		{"a stop hint", rawRead{line: "Hit CTRL-C to stop the server", quiet: long}, false},
		{"a quit hint", rawRead{line: "Press q to quit.", quiet: long}, false},
		{"a server's address", rawRead{line: "  ➜  Local:   http://localhost:5173/", quiet: long}, false},
		{"a log line that ends like a prompt", rawRead{line: "[vite] page reload src/App.tsx (x2)", printed: true, quiet: long}, false},
		{"a log line seen as the read began", rawRead{line: "GET /index.html (200)", quiet: long}, false},
		{"a REPL's prompt, long unanswered", rawRead{line: ">", quiet: long}, true},
		{"nothing on the line", rawRead{line: "   ", quiet: long}, false},
		{"a password mentioned in a banner", rawRead{line: "The admin password is in admin.txt", quiet: long}, false},

		{"a bare prompt, just seen", rawRead{line: "Name:", quiet: brief}, false},
		{"a bare prompt, long unanswered", rawRead{line: "Name:", quiet: long}, true},
		{"a key hint that asks for text", rawRead{line: "Type a name for the project:", quiet: long}, true},
	} {
		if got := c.r.question(patience); got != c.want {
			t.Errorf("%s: question(%+v) = %v, want %v", c.name, c.r, got, c.want)
		}
	}
}
