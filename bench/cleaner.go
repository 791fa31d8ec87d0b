//go:build linux

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
)

// benchCleaner runs the cleaner package's own Go benchmarks: the ceiling
// on what the helper can clean per second, whatever the terminal gives.
func benchCleaner(e *env) (result, error) {
	var res result
	out, args, err := goBench(e, "./cleaner/", "1x")
	if err != nil {
		return res, err
	}
	for _, b := range parseBench(out) {
		res.add(row{"cleaner alone: " + b.name, "", b.speed, "", "", ""})
	}
	res.note("cleaner: `go %s`, MB/s of raw terminal bytes in; allocations: %s.", strings.Join(args, " "), allocSummary(parseBench(out)))
	return res, nil
}

// goBench runs a package's Go benchmarks (with quickTime as -benchtime in
// a quick run) and returns their output and the go command's arguments.
func goBench(e *env, pkg, quickTime string) ([]byte, []string, error) {
	args := []string{"test", "-run", "^$", "-bench", ".", "-benchmem", pkg}
	if e.quick {
		args = append(args, "-benchtime", quickTime)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = e.repo
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, args, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out, args, nil
}

type benchLine struct{ name, speed, allocs string }

var benchRe = regexp.MustCompile(`^Benchmark(\S+?)(?:-\d+)?\s+\d+\s+[\d.]+ ns/op\s+([\d.]+ MB/s)(?:\s+(\d+ B/op)\s+(\d+ allocs/op))?`)

func parseBench(out []byte) []benchLine {
	var lines []benchLine
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if m := benchRe.FindStringSubmatch(sc.Text()); m != nil {
			lines = append(lines, benchLine{m[1], m[2], strings.TrimSpace(m[3] + ", " + m[4])})
		}
	}
	return lines
}

func allocSummary(lines []benchLine) string {
	var parts []string
	for _, l := range lines {
		parts = append(parts, l.name+" "+l.allocs)
	}
	return strings.Join(parts, "; ")
}
