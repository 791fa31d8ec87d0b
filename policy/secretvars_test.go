package policy

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/mask"
)

const apiKey = "sk-proj-0123456789abcdef"

// masked runs line with OPENAI_API_KEY in its environment and returns its
// output as the answer would show it: with the key masked.
func masked(t *testing.T, line string) string {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", line)
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY="+apiKey)
	out, _ := cmd.CombinedOutput()
	m := mask.New(mask.SecretValues(cmd.Env, nil))
	return string(append(m.Write(out), m.Flush()...))
}

// TestSecretVariableInPieces: masking hides a secret value only where it
// shows whole; read in pieces it shows. Every way of reading a secret
// variable's value is asked about, also in a sandbox.
func TestSecretVariableInPieces(t *testing.T) {
	needUnix(t)
	for _, line := range []string{"printenv OPENAI_API_KEY | grep -o .", "echo ${OPENAI_API_KEY#????}",
		"env | cut -c1-30", "echo $OPENAI_API_KEY | rev"} {
		out := masked(t, line)
		shown := strings.ReplaceAll(strings.ReplaceAll(out, "\n", ""), "OPENAI_API_KEY=", "")
		if !strings.Contains(shown, apiKey[4:12]) && !strings.Contains(shown, reverse(apiKey)[:8]) {
			t.Fatalf("%q showed %q: the key did not get past the mask, the line proves nothing", line, out)
		}
	}
	p := testPolicy(t, config.Default())
	lines := []string{
		"printenv OPENAI_API_KEY", "printenv OPENAI_API_KEY | grep -o .", "printenv -0 GITHUB_TOKEN",
		"echo $OPENAI_API_KEY", "echo ${OPENAI_API_KEY}", "echo ${OPENAI_API_KEY#????}", "echo ${#DB_PASSWORD}",
		"echo ${AWS_SECRET_ACCESS_KEY:0:4}", "echo \"${GITHUB_TOKEN%%-*}\"", "echo ${NPM_TOKEN:-x}",
		"cat <<EOF\n$API_KEY\nEOF", "[ -n \"$GITHUB_TOKEN\" ] && echo set", "[[ $API_KEY == sk-* ]] && echo yes",
		"(( API_KEY ))", "let x=API_KEY", "[[ API_KEY -eq 1 ]]", "x=$OPENAI_API_KEY; echo ${x:0:4}",
		"bash -c 'echo $OPENAI_API_KEY'", "eval 'echo $API_KEY'", "declare -p API_KEY", "typeset -p SECRET_X",
		"declare -n r=API_KEY; echo $r", "env | cut -c1-30", "env | base64", "printenv | grep -o 'sk-.*'",
		"x=$(env); echo ${x:0:9}", "export -p | rev", "set | head -c 500", "declare -p | tail -c 80",
		"env > env.txt", "bash -c env | cut -c1-9", "export | tr a-z A-Z",
	}
	// Unconfined, and confined with the request's env setting the
	// variables (they reach the command as they are), each line is asked
	// about; confined without, the command has placeholders
	// (termhelper-masked:NAME) and the sandbox holds the read.
	real := "sk-real-value-0123456789"
	reqEnv := map[string]*string{}
	for _, n := range []string{"OPENAI_API_KEY", "GITHUB_TOKEN", "DB_PASSWORD", "AWS_SECRET_ACCESS_KEY", "NPM_TOKEN",
		"API_KEY", "SECRET_X"} {
		reqEnv[n] = &real
	}
	for _, line := range lines {
		for _, j := range []Judging{{Trusted: true}, {Trusted: true, Sandboxed: true, Env: reqEnv}} {
			v := p.Judge(line, testRoot, j)
			if v.Decision == Allow || !containsReason(v, "secret variable") && !containsReason(v, "every variable") {
				t.Errorf("%q (sandboxed %v, request env %v): %+v", line, j.Sandboxed, j.Env != nil, v)
			}
		}
		v := p.Judge(line, testRoot, Judging{Trusted: true, Sandboxed: true})
		if v.Decision == Ask && (containsReason(v, "secret variable") || containsReason(v, "every variable")) {
			t.Errorf("%q confined, with placeholders only: %+v", line, v)
		}
	}
}

// TestWholeEnvironment: a dump of every variable reaches the answer whole,
// where masking hides the secret values, so it is allowed; so are reads of
// variables that hold no secret and names only.
func TestWholeEnvironment(t *testing.T) {
	p := testPolicy(t, config.Default())
	for _, line := range []string{"env", "printenv", "env | grep PATH", "printenv | grep -i node | head -n 5",
		"env | wc -l", "env | grep PATH | head -n 3", "echo $HOME $PATH", "printenv PATH", "env -u FOO", "env 2>&1"} {
		if v := p.Check(line, true); v.Decision != Allow {
			t.Errorf("%q: %+v", line, v)
		}
	}
	cfg := config.Default()
	cfg.MaskEnv = []string{"DATABASE_URL"}
	if v := testPolicy(t, cfg).Check("echo ${DATABASE_URL#postgres://}", true); v.Decision != Ask {
		t.Errorf("a name from mask_env: %+v", v)
	}
	cfg = config.Default()
	cfg.MaskEnvOff = true
	if v := testPolicy(t, cfg).Check("echo $API_KEY", true); v.Decision != Allow {
		t.Errorf("with masking off, no name is secret: %+v", v)
	}
}

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// TestProcessEnvironments: ps e and its kin print other programs'
// environments, whose secrets no mask knows.
func TestProcessEnvironments(t *testing.T) {
	needUnix(t)
	if _, err := exec.LookPath("ps"); err != nil {
		t.Skip("no ps here")
	}
	cmd := exec.Command("sleep", "30")
	cmd.Env = append(os.Environ(), "OTHER_PROGRAM_TOKEN=tok-0123456789")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if out := output(t, "/", "ps eww -p "+itoa(cmd.Process.Pid)); !strings.Contains(out, "tok-0123456789") {
		t.Fatalf("ps eww did not show the other program's environment: %q", out)
	}
	p := testPolicy(t, config.Default())
	for line, want := range map[string]Decision{
		"ps eww": Ask, "ps e": Ask, "ps auxe": Ask, "ps axeww": Ask, "ps -E": Ask, "ps -ef e": Ask,
		"ps -o pid,environ": Ask, "cat /proc/1/environ": Ask, "cat /proc/self/environ": Ask,
		"cat /proc/$$/environ": Ask, "strings /proc/*/environ": Ask, "tr '\\0' '\\n' < /proc/self/environ": Ask,
		"ps aux": Allow, "ps -ef": Allow, "ps -e": Allow, "ps -eo user,pid,cmd": Allow, "ps -C node -o pid=": Allow,
		"ps aux | grep node": Allow, "ps -p 1 -o etime": Allow,
	} {
		v := p.Judge(line, testRoot, Judging{Trusted: true, Sandboxed: true})
		if v.Decision != want {
			t.Errorf("%q in a sandbox: got %s %q, want %s", line, v.Decision, v.Reasons, want)
		}
	}
	if v := p.Check("ps $OPTS", true); v.Decision != Ask {
		t.Errorf("ps with options that cannot be known: %+v", v)
	}
	bsd := newFor("freebsd", config.Default(), testRoot, nil)
	if v := bsd.Check("ps -e", true); v.Decision != Ask {
		t.Errorf("ps -e on FreeBSD shows environments: %+v", v)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestPsEnvironFormat: the environ format is what ps -o pid,environ
// prints (asked about already), however it is spelt: stuck to -o or -O,
// after a group of options, in a list of formats.
func TestPsEnvironFormat(t *testing.T) {
	p := testPolicy(t, config.Default())
	for _, line := range []string{"ps -oenviron -A", "ps -Ao pid,environ", "ps -A -opid,environ", "ps -eoenviron",
		"ps axopid,environ", "ps -Oenviron -A", "ps -Awwopid,environ", "ps -A --format=pid,environ"} {
		if v := p.Check(line, true); v.Decision != Ask || !containsReason(v, "environments of processes") {
			t.Errorf("%q: %+v", line, v)
		}
	}
}

// TestQuotingDumpsAreSecretReads: set and export -p print each value
// quoted as the shell reads it back; a password holding a quote shows in
// pieces around the quoting, which masking does not know.
func TestQuotingDumpsAreSecretReads(t *testing.T) {
	needUnix(t)
	const pw = `p4ss'w$rd-secret`
	for _, line := range []string{"set", "export -p", "set | grep DB_"} {
		cmd := exec.Command("/bin/sh", "-c", line)
		cmd.Env = append(os.Environ(), "DB_PASSWORD="+pw)
		out, _ := cmd.CombinedOutput()
		m := mask.New(mask.SecretValues(cmd.Env, nil))
		if shown := string(append(m.Write(out), m.Flush()...)); !strings.Contains(shown, `w$rd-secret`) {
			t.Errorf("%q showed %q: the password did not get past the mask, the line proves nothing", line, shown)
		}
	}
	p := testPolicy(t, config.Default())
	for _, line := range []string{"set", "set | grep DB_", "export -p", "export", "declare -p", "typeset -p"} {
		if v := p.Check(line, true); v.Decision != Ask || !containsReason(v, "quoted as the shell reads it back") {
			t.Errorf("%q: %+v", line, v)
		}
	}
	for _, line := range []string{"env", "printenv", "env | grep DB_", "set -e", "set -- a b"} {
		if v := p.Check(line, true); v.Decision != Allow {
			t.Errorf("%q: %+v", line, v)
		}
	}
}

// TestControlCharactersSpeltOut: cat -v spells a control character in a
// value as ^X, which is not the value masking looks for, so env | cat -v
// is not a whole-line filter.
func TestControlCharactersSpeltOut(t *testing.T) {
	needUnix(t)
	cmd := exec.Command("/bin/sh", "-c", "env | cat -v")
	cmd.Env = append(os.Environ(), "API_TOKEN=tok\x01en-secret-value")
	out, _ := cmd.CombinedOutput()
	m := mask.New(mask.SecretValues(cmd.Env, nil))
	if shown := string(append(m.Write(out), m.Flush()...)); !strings.Contains(shown, "en-secret-value") {
		t.Fatalf("env | cat -v showed %q: the value did not get past the mask, the line proves nothing", shown)
	}
	p := testPolicy(t, config.Default())
	for line, want := range map[string]Decision{"env | cat -v": Ask, "env | cat -A": Ask, "env | cat": Allow, "env | cat -n": Allow} {
		if v := p.Check(line, true); v.Decision != want {
			t.Errorf("%q: %+v, want %s", line, v, want)
		}
	}
}
