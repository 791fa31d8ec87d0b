package policy

import (
	"testing"

	"github.com/termhelper/termhelper/config"
)

func TestAlwaysName(t *testing.T) {
	cases := map[string]string{
		"npm install":                       "npm install",
		"npm install lodash":                "npm install",
		"  git status --short":              "git status",
		"git -C sub --no-pager log -n 3":    "git log",
		"git --version":                     "git --version",
		"npm --prefix web run build":        "npm run build",
		"npm run --silent test -- --watch":  "npm run test",
		"docker --context prod compose up":  "docker compose up",
		"docker compose -f x.yml up -d":     "docker compose up",
		"kubectl -n prod get pods":          "kubectl get",
		"cargo +nightly build --release":    "cargo build",
		"timeout 60 npm test":               "npm test",
		"env FOO=1 nice -n 5 make all":      "make all",
		"make -j 4 build test":              "make build test",
		"make -j4 test CC=clang":            "make test CC=clang",
		"make":                              "",
		"git":                               "",
		"npm $SUB":                          "",
		"cd web && npm run build":           "npm run build",
		"./build.sh --fast":                 "./build.sh",
		"n''pm install":                     "npm install",
		"$CMD x":                            "",
		"":                                  "",
		"echo \"unterminated":               "",
		"X=1 cargo build":                   "cargo build",
		"ls | grep x":                       "ls",
		"aws --profile p s3 ls s3://bucket": "aws s3 ls",
		"pip3 install -r requirements.txt":  "pip3 install",
		"/usr/bin/git push":                 "/usr/bin/git push",
	}
	for cmd, want := range cases {
		if got := AlwaysName(cmd); got != want {
			t.Errorf("AlwaysName(%q) = %q, want %q", cmd, got, want)
		}
	}
}

// alwaysPolicy is a policy whose store holds entries, as persisted by
// earlier "always" answers.
func alwaysPolicy(t *testing.T, entries ...string) *Policy {
	t.Helper()
	s, err := OpenStore(t.TempDir(), testRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := s.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", testHome)
	return newPosix(config.Default(), testRoot, s)
}

func TestAlwaysIsNoWiderThanApproved(t *testing.T) {
	p := alwaysPolicy(t, AlwaysName("npm install"), AlwaysName("git -C sub status"),
		AlwaysName("make test"), AlwaysName("npm run build"), AlwaysName("docker compose ps"))
	cases := []struct {
		cmd  string
		want Decision
	}{
		{"npm install", Allow},
		{"npm install lodash", Allow},
		{"npm i lodash", Ask},
		{"npm --prefix web install", Allow},
		{"npm publish", Ask},
		{"npm --userconfig x install", Ask},
		{"npm $X install", Ask},
		{"npm run build", Allow},
		{"npm run deploy", Ask},
		{"npm run", Ask},
		{"git status", Allow},
		{"git -C other status -s", Allow},
		{"git push", Ask},
		{"git -c core.pager=evil status", Ask},
		{"git --exec-path=/tmp status", Ask},
		{"git --unknown-opt push status", Ask},
		{"make test", Allow},
		{"make -j 4 test", Allow},
		{"make test deploy", Ask},
		{"make deploy", Ask},
		{"make -f evil.mk test", Ask},
		{"make", Ask},
		{"docker compose ps", Allow},
		{"docker compose down", Ask},
		{"docker rm x", Ask},
		{"cd web && npm install && npm publish", Ask},
	}
	for _, c := range cases {
		if v := p.Check(c.cmd, true); v.Decision != c.want {
			t.Errorf("%q: got %s %q, want %s", c.cmd, v.Decision, v.Reasons, c.want)
		}
	}
}

func TestOldAlwaysEntriesStillAllow(t *testing.T) {
	p := alwaysPolicy(t, "npm", "./build.sh", "python3 -m")
	for _, cmd := range []string{"npm publish", "npm install x", "./build.sh --fast", "python3 -m pytest"} {
		if v := p.Check(cmd, true); v.Decision != Allow {
			t.Errorf("%q: got %s %q, want allow", cmd, v.Decision, v.Reasons)
		}
	}
	if v := p.Check("python3 x.py", true); v.Decision != Ask {
		t.Errorf("a hand-written entry is a word prefix: %+v", v)
	}
}

func TestAlwaysNonPOSIX(t *testing.T) {
	s, err := OpenStore(t.TempDir(), testRoot)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Add("npm install"); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Shell = "pwsh"
	p := newPosix(cfg, testRoot, s)
	if v := p.Check("npm install lodash", true); v.Decision != Allow {
		t.Errorf("npm install lodash: %+v", v)
	}
	if v := p.Check("npm publish", true); v.Decision != Ask {
		t.Errorf("npm publish: %+v", v)
	}
}

// TestAlwaysForInterpreters: "always" on an interpreter remembers the
// script or module it runs, and nothing for code given inline.
func TestAlwaysForInterpreters(t *testing.T) {
	cases := map[string]string{
		"python3 -c 'print(1)'":          "",
		"python3":                        "",
		"python3 - < x.py":               "",
		"node -e 'console.log(1)'":       "",
		"node --require ./x.js app.js":   "",
		"perl -e 'print 1'":              "",
		"ruby -e 'puts 1'":               "",
		"bash -c 'npm test'":             "",
		"bash -lc 'make'":                "",
		"sh":                             "",
		"python3 tools/gen.py --out x":   "python3 tools/gen.py",
		"python3 -u tools/gen.py":        "python3 tools/gen.py",
		"python3 -m pytest -k slow":      "python3 -m pytest",
		"node server.js":                 "node server.js",
		"node --enable-source-maps a.js": "node a.js",
		"bash build.sh release":          "bash build.sh",
		"bash -x build.sh":               "bash build.sh",
		"sh -e ./ci.sh":                  "sh ./ci.sh",
		"python3 $SCRIPT":                "",
	}
	for cmd, want := range cases {
		if got := AlwaysName(cmd); got != want {
			t.Errorf("AlwaysName(%q) = %q, want %q", cmd, got, want)
		}
	}
	p := alwaysPolicy(t, AlwaysName("python3 tools/gen.py"), AlwaysName("python3 -m pytest"), AlwaysName("bash build.sh"))
	for cmd, want := range map[string]Decision{
		"python3 tools/gen.py --fast": Allow, "python3 -m pytest tests": Allow, "bash build.sh release": Allow,
		"python3 -c 'import os'": Ask, "python3 evil.py": Ask, "python3 -m pip install x": Ask,
		"bash evil.sh": Ask, "bash -c 'rm -rf build'": Ask, "python3 -u tools/gen.py": Ask,
	} {
		if v := p.Check(cmd, true); v.Decision != want {
			t.Errorf("%q: got %s %q, want %s", cmd, v.Decision, v.Reasons, want)
		}
	}
}
