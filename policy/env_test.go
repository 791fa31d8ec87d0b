package policy

import (
	"strings"
	"testing"

	"github.com/termhelper/termhelper/config"
)

func testConfig() config.Config { return config.Default() }

func containsReason(v Verdict, part string) bool {
	for _, r := range v.Reasons {
		if strings.Contains(r, part) {
			return true
		}
	}
	return false
}

// TestRequestEnv: the request's variables are judged as assignments in
// front of the line are.
func TestRequestEnv(t *testing.T) {
	p := testPolicy(t, config.Default())
	cases := []struct {
		name, value, line string
		want              Decision
	}{
		{"PATH", "/home/u/proj/tools:/usr/bin", "ls", Ask},
		{"Path", "C:\\evil", "ls", Ask},
		{"LD_PRELOAD", "/home/u/proj/x.so", "ls", Ask},
		{"LD_LIBRARY_PATH", "/home/u/proj", "ls", Ask},
		{"DYLD_INSERT_LIBRARIES", "x.dylib", "ls", Ask},
		{"BASH_ENV", "/home/u/proj/evil.sh", "ls", Ask},
		{"ENV", "/home/u/proj/evil.sh", "ls", Ask},
		{"BASH_FUNC_ls%%", "() { touch PWNED; }", "ls", Ask},
		{"SHELLOPTS", "xtrace", "ls", Ask},
		{"PS4", "$(touch PWNED)", "ls", Ask},
		{"GIT_CONFIG_PARAMETERS", "'core.pager=touch PWNED'", "ls", Ask},
		{"GIT_CONFIG_GLOBAL", "/home/u/proj/gitconfig", "ls", Ask},
		{"GIT_EXEC_PATH", "/home/u/proj", "ls", Ask},
		{"GIT_SSH_COMMAND", "touch PWNED", "ls", Ask},
		{"NODE_OPTIONS", "--require ./evil.js", "ls", Ask},
		{"PYTHONPATH", ".", "ls", Ask},
		{"PYTHONSTARTUP", "evil.py", "ls", Ask},
		{"PERL5OPT", "-Mevil", "ls", Ask},
		{"RUBYOPT", "-revil", "ls", Ask},
		{"EDITOR", "touch PWNED", "ls", Ask},
		{"PAGER", "touch PWNED", "ls", Ask},
		{"HOME", "/home/u/proj/fake", "ls", Ask},
		{"XDG_CONFIG_HOME", "/home/u/proj", "ls", Ask},
		{"TERMHELPER_TRASH_DIR", "/tmp/x", "ls", Ask},
		{"TERMHELPER_COMMAND", "x", "ls", Ask},
		{"LANG", "C", "ls", Allow},
		{"LC_ALL", "C", "ls", Allow},
		{"CI", "1", "ls", Allow},
		{"NODE_ENV", "test", "ls", Allow},
		{"PAGER", "cat", "ls", Allow},
		{"GIT_PAGER", "cat", "ls", Allow},
		{"HOME", "/", "rm -rf ~", Deny},
		{"X", "/", "rm -rf $X", Deny},
		{"F", ".env", "cat $F", Ask},
	}
	for _, c := range cases {
		v := p.Judge(c.line, testRoot, Judging{Trusted: true, Env: map[string]*string{c.name: &c.value}})
		if v.Decision != c.want {
			t.Errorf("%s=%q, %q: got %s %q, want %s", c.name, c.value, c.line, v.Decision, v.Reasons, c.want)
		}
	}
	if v := p.Judge("ls", testRoot, Judging{Trusted: true, Env: map[string]*string{"PATH": nil}}); v.Decision != Ask {
		t.Errorf("unsetting PATH (the rm shim's folder goes with it): %+v", v)
	}
	if v := p.Judge("ls", testRoot, Judging{Trusted: true, Env: map[string]*string{"LANG": nil}}); v.Decision != Allow {
		t.Errorf("unsetting LANG: %+v", v)
	}
}
