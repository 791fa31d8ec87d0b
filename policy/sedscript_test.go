package policy

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/termhelper/termhelper/config"
)

// TestSedScriptsThatRunOrWrite: with sed on the allow list, a script that
// runs a command, writes a file or reads one into the output is not the
// text filter the entry was meant for. The lines run with GNU sed, where
// it exists, to show their effect.
func TestSedScriptsThatRunOrWrite(t *testing.T) {
	needUnix(t)
	root := secretRoot(t)
	cfg := config.Default()
	cfg.Policy.Allow = append(cfg.Policy.Allow, "sed")
	p := New(cfg, root, nil)
	_, noSed := exec.LookPath("sed")
	gnu := noSed == nil && strings.Contains(output(t, root, "sed --version"), "GNU")
	for i, line := range []string{"sed -n '1e touch @' README.md", "sed 's|.*|touch @|e' README.md",
		"sed -n 'w @' README.md", "sed 's/x/y/w @' README.md", "sed --expression='1e touch @' README.md",
		"sed -e p -e '1e touch @' README.md", "sed '1{e touch @\n}' README.md", "sed -ne '/^x/!e touch @' README.md",
		"sed -s 'W @' README.md"} {
		marker := root + "/PWNED" + string(rune('a'+i))
		line = strings.ReplaceAll(line, "@", marker)
		if gnu {
			runIn(t, root, nil, "/bin/sh", "-c", line)
			if !exists(marker) {
				t.Errorf("%q made no marker: the line proves nothing", line)
			}
		}
		if v := p.Check(line, true); v.Decision != Ask {
			t.Errorf("%q: %+v, want ask", line, v)
		}
	}
	for _, line := range []string{"sed -n '1r .env' README.md", "sed 'R .env' README.md"} {
		if gnu && !strings.Contains(output(t, root, line), "s3cr3t") {
			t.Errorf("%q did not print .env: the line proves nothing", line)
		}
		if v := p.Judge(line, root, Judging{Trusted: true, Sandboxed: true}); v.Decision != Ask || !containsReason(v, ".env") {
			t.Errorf("%q reads .env, in a sandbox too: %+v", line, v)
		}
	}
	for _, line := range []string{"sed -i s/a/b/ README.md", "sed -ibak s/a/b/ README.md", "sed -f script.sed README.md"} {
		if v := p.Check(line, true); v.Decision != Ask {
			t.Errorf("%q: %+v, want ask", line, v)
		}
	}
	for _, line := range []string{"sed -n '1,3p' README.md", "sed 's/foo/bar/g' README.md", "sed -e 's/a/b/' -e '/^$/d' README.md",
		"sed '1a\\\nhello' README.md", "sed 'y/abc/xyz/' README.md", "sed '/a/,/b/{/x/d;s/a/b/}' README.md",
		"sed 's|a|b|w /dev/stdout' README.md", "sed --sandbox 'e touch x' README.md", "sed ':a;N;$!ba;s/\\n/ /g' README.md"} {
		if v := p.Check(line, true); v.Decision != Allow {
			t.Errorf("%q: %+v, want allow", line, v)
		}
	}
}

// FuzzProgramScripts: the readers of sed scripts, awk programs and the
// words of allowed programs never fail, and judge every line.
func FuzzProgramScripts(f *testing.F) {
	for _, s := range []string{"1e touch x", "s/a/b/w f", "1{e\n}", "/x/I,+2 s/a/b/ge", "\\%x%e", "y/ab/cd/", "a\\",
		`BEGIN{system("x")}`, `{print > "f"}`, `BEGIN{while((getline l < ".env")>0) print l}`, `/a|b/`, `ENVIRON[`,
		"-cf - .", "czf x.tgz src", "--output=x", "env.KEY[0:4]"} {
		f.Add(s)
	}
	cfg := config.Default()
	cfg.Policy.Allow = append(cfg.Policy.Allow, "sed", "awk", "tar", "jq", "git diff", "make", "sort", "zip")
	p := testPolicy(f, cfg)
	f.Fuzz(func(t *testing.T, s string) {
		sedScript(s)
		awkProgram(s)
		q := "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		for _, prog := range []string{"sed", "sed -n -e", "awk", "tar", "jq -n", "git diff", "make", "sort", "zip"} {
			if v := p.Check(prog+" "+q+" README.md", true); v.Decision != Allow && len(v.Reasons) == 0 {
				t.Fatalf("%s %q: %s without a reason", prog, s, v.Decision)
			}
		}
	})
}
