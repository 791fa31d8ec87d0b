package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/termhelper/termhelper/config"
)

// attackWorld builds the folder testdata/policy/attacks.txt runs against
// (its header says what is in it) and returns it.
func attackWorld(t *testing.T) string {
	t.Helper()
	world := scratchRoot(t)
	root := world + "/root"
	files := map[string]string{
		"home/.ssh/id_rsa": "FAKE-KEY\n", "home/.aws/credentials": "aws_secret_access_key = x\n",
		"home/.bash_history": "mysql -px\n", "outside.txt": "outside\n", "root/.env": "API_TOKEN=x\n",
		"root/.gitignore": ".env\nvendor/\n", "root/README.md": "hello\n", "root/src/main.go": "package main\n",
		"root/notes.txt": "touch x\n", "root/Makefile": "all:\n\t@true\n", "root/evil.sh": "#!/bin/sh\ntouch x\n",
		"root/tools/ls": "#!/bin/sh\ntouch x\n", "root/package.json": `{"scripts":{"test":"true","x":"true"}}` + "\n",
	}
	for name, body := range files {
		if err := os.MkdirAll(filepath.Dir(world+"/"+name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(world+"/"+name, []byte(body), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"keylink": "../home/.ssh/id_rsa", "awslink": "../home/.aws",
		"up": "..", "hidden": ".env"} {
		if err := os.Symlink(target, root+"/"+link); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, root, "init", "-q")
	gitIn(t, root, "add", "-A")
	gitIn(t, root, "commit", "-qm", "init")
	gitIn(t, world, "clone", "-q", "--bare", root, root+"/vendor/evil.git")
	gitIn(t, root+"/vendor/evil.git", "config", "diff.external", root+"/evil.sh")
	gitIn(t, root+"/vendor/evil.git", "config", "diff.x.textconv", root+"/evil.sh")
	return world
}

// TestAttackCorpus judges every attack line against the folder it was
// written for: each must get its decision.
func TestAttackCorpus(t *testing.T) {
	needUnix(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the corpus's repositories need git, which is not here")
	}
	world := attackWorld(t)
	root := world + "/root"
	t.Setenv("HOME", world+"/home")
	t.Setenv("TERMHELPER_CONFIG_DIR", world+"/home/.config/termhelper")
	lines := readLines(t, "attacks.txt", 1)
	if len(lines) < 300 {
		t.Fatalf("attacks.txt has %d lines, want at least 300", len(lines))
	}
	cfg := config.Default()
	p := New(cfg, root, nil)
	for _, l := range lines {
		switch l.decisions[0] {
		case "#shell", "#allow":
			if l.decisions[0] == "#shell" {
				cfg.Shell = l.command
			} else {
				cfg.Policy.Allow = append(config.Default().Policy.Allow, splitList(l.command)...)
			}
			p = New(cfg, root, nil)
			continue
		}
		line := strings.NewReplacer("@ROOT@", root, "@WORLD@", world).Replace(l.command)
		if v := p.Check(line, true); v.Decision != l.decisions[0] {
			t.Errorf("attacks.txt:%d: %q: got %s %q, want %s", l.line, line, v.Decision, v.Reasons, l.decisions[0])
		}
	}
}

// splitList splits "a, b c" into "a" and "b c".
func splitList(s string) []string {
	var out []string
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}
