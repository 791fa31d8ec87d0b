package policy

import (
	"strings"
	"testing"

	"github.com/termhelper/termhelper/config"
)

// TestAssignmentsInExpansionsAndUnset: ${NAME:=word} assigns, and unset
// takes a variable away; both change what later commands run, as NAME=word
// does. The first line is run to show the repository's ls running.
func TestAssignmentsInExpansionsAndUnset(t *testing.T) {
	needUnix(t)
	root := scratchRoot(t)
	marker := root + "/PWNED"
	writeScript(t, root+"/tools/ls", "/usr/bin/touch "+marker)
	line := "unset PATH; : ${PATH:=" + root + "/tools}; ls"
	runIn(t, root, nil, "/bin/sh", "-c", line)
	if !exists(marker) {
		t.Fatal("the repository's ls did not run: the test proves nothing")
	}
	p := New(config.Default(), root, nil)
	for line, why := range map[string]string{
		line: "sets PATH", "set -a; : ${PS_FORMAT:=pid,environ}; ps -e": "sets PS_FORMAT",
		": ${LD_PRELOAD=./x.so}; ls": "sets LD_PRELOAD", "unset GIT_PAGER; git --version": "unsets GIT_PAGER",
		"unset PAGER": "unsets PAGER", "unset 'a[$(touch x)]'": "unsets a[$(touch x)]", "unset $X": "cannot be known",
	} {
		if v := p.Check(line, true); v.Decision != Ask || !containsReason(v, why) {
			t.Errorf("%q: %+v, want ask because %q", line, v, why)
		}
	}
	for _, line := range []string{"unset x y", "unset -f ls", ": ${x:=1}; echo $x", "echo ${x:-d}", "unset LANG"} {
		if v := p.Check(line, true); v.Decision != Allow {
			t.Errorf("%q: %+v", line, v)
		}
	}
}

// TestPosixlyCorrectChangesWhatIsRead: with POSIXLY_CORRECT, options after
// an operand are operands, so grep -r x . --include='*.go' reads .env; it
// is run to show that.
func TestPosixlyCorrectChangesWhatIsRead(t *testing.T) {
	needUnix(t)
	root := secretRoot(t)
	line := "grep -r s3cr3t . --include='*.go'"
	if out := output(t, root, "POSIXLY_CORRECT=1 "+line); !strings.Contains(out, "s3cr3t") && strings.Contains(output(t, root, "grep --version"), "GNU") {
		t.Fatalf("GNU grep did not read .env: %q, the line proves nothing", out)
	}
	p := New(config.Default(), root, nil)
	if v := p.Check(line, true); v.Decision != Allow {
		t.Fatalf("%q keeps .env out: %+v", line, v)
	}
	one := "1"
	for _, v := range []Verdict{p.Check("POSIXLY_CORRECT=1 "+line, true),
		p.Judge(line, root, Judging{Trusted: true, Env: map[string]*string{"POSIXLY_CORRECT": &one}})} {
		if v.Decision != Ask || !containsReason(v, "POSIXLY_CORRECT") {
			t.Errorf("with POSIXLY_CORRECT: %+v", v)
		}
	}
}
