package policy

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/termhelper/termhelper/config"
)

// TestOptionsOfProgramsOftenAllowed: with sort, tar, zip, man, rg, less,
// curl, xxd, make and npm on the allow list, an option that runs a
// program, writes a file or changes what a build runs is asked about. The
// lines whose program exists here run to show their effect.
func TestOptionsOfProgramsOftenAllowed(t *testing.T) {
	needUnix(t)
	root := secretRoot(t)
	writeScript(t, root+"/evil.sh", "touch \"$0.ran\"")
	if err := os.WriteFile(root+"/Makefile", []byte("all:\n\t@true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Policy.Allow = append(cfg.Policy.Allow, "sort", "tar", "zip", "man", "rg", "less", "curl", "xxd", "make",
		"npm test", "npm run")
	p := New(cfg, root, nil)
	runs := map[string]string{
		"tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='touch @' README.md": "tar",
		"tar -I '" + root + "/evil.sh' -cf /dev/null README.md":                         "tar",
		"tar -cf - README.md | tar -x --to-command='touch @'":                           "tar",
		"make --eval='$(shell touch @)'":                                                "make",
		"make SHELL='" + root + "/evil.sh' all":                                         "make",
		"make all CC='touch @'":                                                         "",
		"sort --compress-program=./evil.sh README.md":                                   "",
		"sort --out=@ README.md":                                                        "sort",
		"tar -cf @ README.md":                                                           "tar",
		"zip -TT ./evil.sh z.zip README.md":                                             "",
		"man -P 'touch @' ls":                                                           "",
		"rg --pre ./evil.sh x":                                                          "",
		"less '+!touch @' README.md":                                                    "",
		"curl -o @ https://example.com":                                                 "",
		"xxd README.md @":                                                               "xxd",
		"npm test --script-shell=./evil.sh":                                             "",
		"npm run x --script-s=./evil.sh":                                                "",
	}
	i := 0
	for line, prog := range runs {
		i++
		marker := root + "/PWNED" + strings.Repeat("x", i)
		line = strings.ReplaceAll(line, "@", marker)
		if _, err := exec.LookPath(prog); prog != "" && err == nil {
			runIn(t, root, nil, "/bin/sh", "-c", line)
			if !exists(marker) && !exists(root+"/evil.sh.ran") {
				t.Errorf("%q made no marker: the line proves nothing", line)
			}
			os.Remove(root + "/evil.sh.ran")
		}
		if v := p.Check(line, true); v.Decision != Ask {
			t.Errorf("%q: %+v, want ask", line, v)
		}
	}
	for _, line := range []string{"tar tf x.tar", "tar -tzf x.tgz", "tar -cf - README.md", "tar -C . -cf - README.md",
		"zip - README.md", "man ls", "man -P cat ls", "rg -n x README.md", "less README.md", "curl -sS https://example.com",
		"xxd README.md", "make all", "make test CC=clang", "make -j4 all", "npm test", "npm test -- --script-shell=x",
		"sort -u README.md"} {
		if v := p.Check(line, true); v.Decision != Allow {
			t.Errorf("%q: %+v, want allow", line, v)
		}
	}
	if v := p.Check("tar -cf - .", true); v.Decision != Ask || !containsReason(v, ".env") {
		t.Errorf("tar -cf - . prints .env: %+v", v)
	}
}

// TestJqReadsTheEnvironment: jq's env and $ENV give every variable's
// value to a program that can cut it in pieces, which masking cannot
// follow; run where jq exists to show a piece of a key.
func TestJqReadsTheEnvironment(t *testing.T) {
	cfg := config.Default()
	cfg.Policy.Allow = append(cfg.Policy.Allow, "jq")
	p := testPolicy(t, cfg)
	if _, err := exec.LookPath("jq"); err == nil {
		if out := masked(t, "jq -rn 'env.OPENAI_API_KEY[4:12]'"); !strings.Contains(out, apiKey[4:12]) {
			t.Errorf("jq printed %q, not a piece of the key: the line proves nothing", out)
		}
	}
	for _, line := range []string{"jq -n 'env.OPENAI_API_KEY[3:12]'", "jq -n '$ENV.OPENAI_API_KEY | explode'",
		"jq -n 'env | tostring | .[0:4000]'", "jq -n '$ENV[\"GITHUB_TOKEN\"]'", "jq -n '[env[]] | join(\",\")'"} {
		if v := p.Judge(line, testRoot, Judging{Trusted: true}); v.Decision != Ask {
			t.Errorf("%q: %+v, want ask", line, v)
		}
		token := "sk-real-value-0123456789"
		reqEnv := map[string]*string{"OPENAI_API_KEY": &token, "GITHUB_TOKEN": &token}
		if v := p.Judge(line, testRoot, Judging{Trusted: true, Sandboxed: true, Env: reqEnv}); v.Decision != Ask {
			t.Errorf("%q confined, the request's env setting the key: %+v, want ask", line, v)
		}
	}
	for _, line := range []string{"jq -n 'env.HOME'", "jq '.env.API_KEY' package.json", "jq -r '.scripts.test' package.json"} {
		if v := p.Check(line, true); v.Decision != Allow {
			t.Errorf("%q: %+v, want allow", line, v)
		}
	}
}

// TestProjectsOutsideTheRoot: an entry for make or npm test trusts the
// project's own Makefile and scripts; -C or --prefix runs another
// project's. The make line runs to show the other Makefile running.
func TestProjectsOutsideTheRoot(t *testing.T) {
	needUnix(t)
	root, other := scratchRoot(t), scratchRoot(t)
	marker := other + "/PWNED"
	if err := os.WriteFile(other+"/Makefile", []byte("all:\n\ttouch "+marker+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Policy.Allow = append(cfg.Policy.Allow, "make", "npm test", "cargo test")
	p := New(cfg, root, nil)
	if _, err := exec.LookPath("make"); err == nil {
		runIn(t, root, nil, "make", "-C", other)
		if !exists(marker) {
			t.Error("make -C did not run the other Makefile: the line proves nothing")
		}
	}
	for _, line := range []string{"make -C " + other, "npm test --prefix " + other, "make --directory=../x all",
		"npm --prefix=.. test", "cargo test --manifest-path ../o/Cargo.toml", "make -C $DIR"} {
		if v := p.Check(line, true); v.Decision != Ask {
			t.Errorf("%q: %+v, want ask", line, v)
		}
	}
	if err := os.Mkdir(root+"/src", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"make -C src", "npm test --prefix .", "make"} {
		if v := p.Check(line, true); v.Decision != Allow {
			t.Errorf("%q: %+v, want allow", line, v)
		}
	}
}

// TestEditorsRsyncAndTeeOptions: vim's command-line commands, rsync's
// remote shell and tee's files, for these on the allow list.
func TestEditorsRsyncAndTeeOptions(t *testing.T) {
	cfg := config.Default()
	cfg.Policy.Allow = append(cfg.Policy.Allow, "rsync", "tee", "vim", "nvim")
	p := testPolicy(t, cfg)
	for line, want := range map[string]Decision{
		"rsync -e 'sh -c x' a b": Ask, "rsync --rsync-path='touch x' a b": Ask, "rsync -a src/ dst/": Allow,
		"tee out.txt": Ask, "tee": Allow, "vim -c '!touch x' README.md": Ask, "vim +'!touch x' README.md": Ask,
		"vim +10 README.md": Allow, "nvim --cmd 'lua os.execute(\"x\")'": Ask, "vim -S session.vim": Ask,
	} {
		if v := p.Check(line, true); v.Decision != want {
			t.Errorf("%q: %+v, want %s", line, v, want)
		}
	}
}
