//go:build linux

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// benchDiag measures what a capped answer keeps of the diagnostics buried
// in long logs: the cleaner package's TestDiagnostics cuts each log of
// testdata/diagnostics at the stream cap and counts the key facts that
// survive, next to the plain head+tail+error-line rule on the same lines
// in the same run.
func benchDiag(e *env) (result, error) {
	var res result
	args := []string{"test", "-count=1", "-run", "^TestDiagnostics$", "-v", "./cleaner/"}
	cmd := exec.Command("go", args...)
	cmd.Dir = e.repo
	out, runErr := cmd.CombinedOutput()
	facts := parseFacts(out)
	if len(facts) == 0 {
		return res, fmt.Errorf("go %s: no facts reported: %v\n%s", strings.Join(args, " "), runErr, out)
	}
	for _, f := range facts {
		res.add(row{"key facts kept, " + f.name, f.fraction(f.base), f.fraction(f.kept), "", "all", verdict(f.kept == f.total)})
	}
	res.note("diagnostics: `go %s`; floor is the plain head+tail+error-line rule on the same cleaned lines, termhelper the window; a fact is a line or part of one (an error, its `-->` or `file:line:col`, its excerpt, a frame, an assertion) that must be in the 16,000-character answer.", strings.Join(args, " "))
	if runErr != nil {
		return res, fmt.Errorf("TestDiagnostics failed: %v", runErr)
	}
	return res, nil
}

type factCount struct {
	name              string
	kept, base, total int
}

func (f factCount) fraction(n int) string {
	return fmt.Sprintf("%d/%d (%.0f%%)", n, f.total, 100*float64(n)/float64(max(f.total, 1)))
}

// factsRe matches TestDiagnostics' log: "facts NAME: kept K/N, baseline B/N".
var factsRe = regexp.MustCompile(`facts (\S+): kept (\d+)/(\d+), baseline (\d+)/(\d+)`)

func parseFacts(out []byte) []factCount {
	var all []factCount
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := factsRe.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		f := factCount{name: m[1]}
		f.kept, _ = strconv.Atoi(m[2])
		f.total, _ = strconv.Atoi(m[3])
		f.base, _ = strconv.Atoi(m[4])
		if f.name == "all" {
			f.name = "all logs"
		}
		all = append(all, f)
	}
	return all
}
