package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/termhelper/termhelper/config"
)

// TestGlobsThroughLinks: a glob is judged by what it matches on disk too,
// each match resolved through its links: a repository can ship awslink ->
// ~/.aws, and the text of cat aws*/credentials names no secret. Each line
// is run to show what it prints.
func TestGlobsThroughLinks(t *testing.T) {
	needUnix(t)
	world := scratchRoot(t)
	root, home := world+"/root", world+"/home"
	for dir, file := range map[string]string{home + "/.aws": "credentials", root + "/keys": "server.pem", world: "outside.txt"} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, file), []byte("s3cr3t "+file+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"awslink": "../home/.aws", "up": ".."} {
		if err := os.Symlink(target, root+"/"+link); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	p := New(config.Default(), root, nil)
	for line, why := range map[string]string{
		"cat aws*/credentials": "reads a protected path: .aws/", "cat */credentials": "reads a protected path: .aws/",
		"cat awslin?/credentials": "reads a protected path: .aws/", "cat up/*.txt": "outside the project root",
		"cat u?/outside.txt": "outside the project root", "cd up; cat *.txt": "outside the project root",
		"cat keys/s*": "reads a protected path: *.pem", "grep -r s3cr3t */": `"*/"`,
	} {
		if out := output(t, root, line); !strings.Contains(out, "s3cr3t") {
			t.Errorf("%q printed %q, not the secret: the line proves nothing", line, out)
		}
		if v := p.Check(line, true); v.Decision != Ask || !containsReason(v, why) {
			t.Errorf("%q: %+v, want ask because %q", line, v, why)
		}
	}
	for _, line := range []string{"cat keys/*.txt", "ls *", "cat up/x*"} {
		if v := p.Check(line, true); v.Decision == Ask && containsReason(v, "pattern matches") {
			t.Errorf("%q matches nothing worth asking about: %+v", line, v)
		}
	}
}
