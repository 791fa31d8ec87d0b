package policy

import (
	"os"
	"strings"
	"testing"

	"github.com/termhelper/termhelper/config"
)

// TestRecursiveReadOfSecretsInside: a recursive search of a folder in the
// root prints the protected files in it (grep -r TOKEN . prints .env), so
// it is asked about, unless the reader's own options keep them out. Each
// line is run to show what it prints.
func TestRecursiveReadOfSecretsInside(t *testing.T) {
	needUnix(t)
	root := secretRoot(t)
	for _, dir := range []string{root + "/src", root + "/node_modules/pkg/test", root + "/.git"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{"src/a.go": "API_TOKEN := 1\n", "node_modules/pkg/test/key.pem": "fixture\n"} {
		if err := os.WriteFile(root+"/"+name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := New(config.Default(), root, nil)
	for _, line := range []string{"grep -r API_TOKEN .", "grep -rh s3cr3t", "grep -r '' --include=.env .",
		"grep -R s3cr3t .", "grep --recursive --include='*.go' --include='.e*' s3cr3t .",
		"grep -d recurse s3cr3t .", "grep --directories=recurse s3cr3t .",
		"grep -r s3cr3t --exclude='*' --include=.env ."} {
		if out := output(t, root, line); !strings.Contains(out, "s3cr3t") {
			t.Errorf("%q printed %q, not the secret: the line proves nothing", line, out)
		}
		if v := p.Check(line, true); v.Decision != Ask || !containsReason(v, root+"/.env, a protected path") {
			t.Errorf("%q: %+v, want ask naming .env", line, v)
		}
		if v := p.Judge(line, root, Judging{Trusted: true, Sandboxed: true}); v.Decision != Ask {
			t.Errorf("%q in a sandbox, which does not hide the root's .env: %+v", line, v)
		}
	}
	for _, line := range []string{"grep -r API_TOKEN --exclude='.env*' .", "grep -r API_TOKEN src",
		"grep -r API_TOKEN --include='*.go' .", "grep -r x --exclude=.env --exclude-dir=node_modules .",
		"ls -R", "find . -name '*.go'", "du -a ."} {
		if out := output(t, root, line); strings.Contains(out, "s3cr3t") {
			t.Errorf("%q printed the secret: %q", line, out)
		}
		if v := p.Check(line, true); v.Decision != Allow {
			t.Errorf("%q keeps the secret out: %+v", line, v)
		}
	}
	maxWalk = 2
	t.Cleanup(func() { maxWalk = 50000 })
	if v := p.Check("grep -r x --exclude=.env .", true); v.Decision != Ask || !containsReason(v, "too many files") {
		t.Errorf("a folder too large to look through: %+v", v)
	}
}

// TestRecursiveReadSkipsHidden: rg and ag pass over hidden files unless
// told otherwise, so only their --hidden kind reads .env.
func TestRecursiveReadSkipsHidden(t *testing.T) {
	root := secretRoot(t)
	cfg := config.Default()
	cfg.Policy.Allow = append(cfg.Policy.Allow, "rg", "ag")
	p := New(cfg, root, nil)
	for line, want := range map[string]Decision{"rg s3cr3t": Allow, "rg --hidden s3cr3t": Ask, "rg -uu s3cr3t": Ask,
		"rg -uu -g '!.env*' s3cr3t": Allow, "ag s3cr3t": Allow, "ag --hidden s3cr3t": Ask, "rg -g '*.md' -. x": Allow} {
		if v := p.Check(line, true); v.Decision != want {
			t.Errorf("%q: %+v, want %s", line, v, want)
		}
	}
}

// TestRecursiveReadsUnderPowerShell: rg, ag, grep -r and find started by
// PowerShell or cmd walk the same folders as under sh, and options read
// the same files (grep --file, wc --files0-from), printing the same .env:
// the Windows judge asks the same.
func TestRecursiveReadsUnderPowerShell(t *testing.T) {
	root := secretRoot(t)
	for shell, name := range map[string]string{"": "PowerShell", "cmd": "cmd"} {
		cfg := config.Default()
		cfg.Shell = shell
		cfg.Policy.Allow = append(cfg.Policy.Allow, "rg", "ag")
		p := newFor("windows", cfg, root, nil)
		for line, want := range map[string]Decision{"rg s3cr3t": Allow, "rg --hidden s3cr3t": Ask, "rg -uu s3cr3t": Ask,
			"ag --hidden s3cr3t": Ask, "grep -r s3cr3t .": Ask, "grep -r s3cr3t src": Allow,
			"rg.exe --hidden s3cr3t": Ask, "grep -r --exclude=.env s3cr3t .": Allow,
			"grep --file=.env x": Ask, "grep -f.env x": Ask, "wc --files0-from=.env": Ask,
			"grep --file=~/.ssh/id_rsa x": Ask, "wc -l README.md": Allow} {
			if v := p.Check(line, true); v.Decision != want {
				t.Errorf("%s: %q: %+v, want %s", name, line, v, want)
			}
		}
	}
}

// TestFindExecReadsWhatItFinds: with nothing narrowing what find finds,
// {} stands for every file under the start path, .env too: run to show it,
// and a read of a secret even in a sandbox, which lets find -exec run.
func TestFindExecReadsWhatItFinds(t *testing.T) {
	needUnix(t)
	root := secretRoot(t)
	if err := os.MkdirAll(root+"/src", 0o755); err != nil {
		t.Fatal(err)
	}
	p := New(config.Default(), root, nil)
	for _, line := range []string{"find . -type f -exec cat {} +", "find . -maxdepth 1 -exec cat {} +",
		"find . -exec grep -H TOKEN {} +"} {
		if out := output(t, root, line); !strings.Contains(out, "s3cr3t") {
			t.Errorf("%q printed %q, not the secret: the line proves nothing", line, out)
		}
		if v := p.Judge(line, root, Judging{Trusted: true, Sandboxed: true}); v.Decision != Ask || !containsReason(v, ".env") {
			t.Errorf("%q in a sandbox: %+v", line, v)
		}
	}
	if v := p.Judge("find src -type f -exec cat {} +", root, Judging{Trusted: true, Sandboxed: true}); v.Decision != Allow {
		t.Errorf("find src -exec cat in a sandbox: %+v", v)
	}
}
