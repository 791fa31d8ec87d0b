package policy

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/termhelper/termhelper/config"
)

func TestReadReasons(t *testing.T) {
	p := testPolicy(t, config.Default())
	cases := map[string]string{
		"cat .env":           `".env" in "cat .env": reads a protected path: .env*`,
		"cat ~/.ssh/id_rsa":  `"~/.ssh/id_rsa" in "cat ~/.ssh/id_rsa": reads a protected path: .ssh/`,
		"grep -r password ~": `"~" in "grep -r password ~": reads a path outside the project root: /home/u`,
		"cat ../outside":     `"../outside" in "cat ../outside": reads a path outside the project root: /home/u/outside`,
		"head /etc/shadow":   `"/etc/shadow" in "head /etc/shadow": reads a protected path: /etc/shadow`,
		"cat < .env":         `"< .env" in "cat < .env": reads a protected path: .env*`,
		"cat *":              `"*" in "cat *": may read a protected path (the pattern could match *.pem)`,
		"cat $X":             `"$X" in "cat $X": reads a path that cannot be known before running`,
	}
	for cmd, want := range cases {
		v := p.Check(cmd, true)
		if v.Decision != Ask || len(v.Reasons) == 0 || v.Reasons[0] != want {
			t.Errorf("%q: %s %q, want ask with %q", cmd, v.Decision, v.Reasons, want)
		}
	}
}

// TestReadsFollowSymlinks: a link inside the root is judged by what it
// points to.
func TestReadsFollowSymlinks(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	secret := filepath.Join(outside, "notes.txt")
	if err := os.WriteFile(secret, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "README.md"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link.txt")
	if err := os.Symlink(secret, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	want, _ := filepath.EvalSymlinks(secret)
	if got, err := filepath.EvalSymlinks(link); err != nil || got != want {
		// Wine reports success and makes no link.
		t.Skipf("no working symlinks here: os.Symlink succeeded, but %s resolves to %q (%v)", link, got, err)
	}
	p := newPosix(config.Default(), root, nil)
	for cmd, want := range map[string]Decision{
		"cat link.txt": Ask, "cat README.md": Allow, "cat ./sub/../link.txt": Ask,
	} {
		if v := p.Check(cmd, true); v.Decision != want {
			t.Errorf("%q: %s %q, want %s", cmd, v.Decision, v.Reasons, want)
		}
	}
}

// TestRecursiveReadOfAFolderHoldingSecrets: with the home folder inside the
// root, a recursive read of home still reaches ~/.ssh.
func TestRecursiveReadOfAFolderHoldingSecrets(t *testing.T) {
	setHome(t, testHome)
	p := newPosix(config.Default(), "/home", nil)
	for cmd, want := range map[string]Decision{
		"grep -r password /home/u": Ask,
		"grep -r password ~":       Ask,
		"grep password /home/u/x":  Allow,
		"ls /home/u":               Allow,
		"ls -R /home/u":            Ask,
		"find ~ -name x":           Ask,
		"grep -r password ~/proj":  Allow,
	} {
		if v := p.Check(cmd, true); v.Decision != want {
			t.Errorf("%q: %s %q, want %s", cmd, v.Decision, v.Reasons, want)
		}
	}
}

func TestReadArgs(t *testing.T) {
	cases := map[string][]string{
		"grep -rnA 3 x src":          {"src"},
		"grep -e x -e y a b":         {"a", "b"},
		"grep -fpats.txt a":          {"pats.txt", "a"},
		"grep --file=pats.txt a":     {"pats.txt", "a"},
		"grep x":                     nil,
		"grep -r x":                  {"."},
		"head -n 5 a":                {"a"},
		"head -n5 -- -a":             {"-a"},
		"tail -f -n 20 log":          {"log"},
		"ls":                         {"."},
		"ls -I '*.o' src":            {"src"},
		"rg -g '*.go' TODO":          {"."},
		"wc --files0-from=list.txt":  {"list.txt"},
		"cat a b c":                  {"a", "b", "c"},
		"jq -f prog.jq data.json":    {"prog.jq", "data.json"},
		"jq '.a' data.json":          {"data.json"},
		"du -sh --exclude=x dir":     {"dir"},
		"tree -L 2 -I node_modules":  {"."},
		"file -m magic.mgc file.bin": {"magic.mgc", "file.bin"},
	}
	for line, want := range cases {
		f, err := parse(line)
		if err != nil {
			t.Fatal(err)
		}
		env := &shellEnv{vars: map[string]string{}}
		var ws []word
		for _, w := range f.Stmts[0].Cmd.(*syntax.CallExpr).Args {
			ws = append(ws, env.fields(line, w)...)
		}
		var got []string
		for _, w := range readers[ws[0].text].parse(ws[1:]).paths {
			got = append(got, w.text)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q reads %q, want %q", line, got, want)
		}
	}
}

// TestCaseFolding: where the file system ignores case, .ENV is .env.
func TestCaseFolding(t *testing.T) {
	pr := &protector{globAll: true, fold: true}
	pr.add(".env*", testRoot, testHome)
	pr.add("~/.ssh/", testRoot, testHome)
	for _, p := range []string{".ENV", "config/.Env.local", "/HOME/U/.SSH/id_rsa", "/home/u/.Ssh/config"} {
		if pr.match(p, testRoot) == "" {
			t.Errorf("%s is not protected", p)
		}
	}
	if pr.match("README.md", testRoot) != "" {
		t.Error("README.md is protected")
	}
}

func TestDrivePaths(t *testing.T) {
	if !isAbsPath("C:/Users/u") || !isAbsPath(`D:\x`) || isAbsPath("C:") || isAbsPath("src/x") {
		t.Error("isAbsPath")
	}
	if got := joinPath("/home/u/proj", "C:/Windows/x"); got != "C:/Windows/x" {
		t.Errorf("joinPath = %s", got)
	}
}
