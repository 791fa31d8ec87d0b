//go:build linux

package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// bigCase is a command printing a lot, and the lines it must print.
type bigCase struct {
	name    string
	command string
	lines   int
	line    func(i int) string // the i-th line, from 0
}

func bigCases(quick bool) []bigCase {
	raw, lines := 37500000, 500000
	if quick {
		raw, lines = 3750000, 50000
	}
	a100 := strings.Repeat("A", 100)
	return []bigCase{
		{"identical lines", fmt.Sprintf("head -c %d /dev/zero | base64 -w 100", raw), raw * 4 / 3 / 100,
			func(int) string { return a100 }},
		{"distinct lines", fmt.Sprintf("seq -f '%%0100.0f' 1 %d", lines), lines,
			func(i int) string { return fmt.Sprintf("%0100d", i+1) }},
	}
}

// benchBigOutput runs commands printing 50 MB, each on a fresh helper so
// that its peak RSS is this command's, and checks that nothing was lost.
func benchBigOutput(e *env) (result, error) {
	var res result
	n := e.reps(3, 1)
	for _, c := range bigCases(e.quick) {
		var floor, th samples
		var peaks []int64
		var check string
		complete := true
		for range n {
			f, _, err := floorShell(c.command)
			if err != nil {
				return res, err
			}
			d, peak, chk, err := bigOnce(e, c)
			if err != nil {
				return res, err
			}
			floor, th, peaks, check = append(floor, f), append(th, d), append(peaks, peak), chk.text
			complete = complete && chk.ok
		}
		addBigRows(&res, c, floor, th, medianInt(peaks), complete)
		gen, err := alone(c.command)
		if err != nil {
			return res, err
		}
		res.note("big output, %s (`%s`): %s; the command alone, to /dev/null, takes %s.", c.name, c.command, check, fmtDur(gen))
	}
	res.note("big output: median of %d runs, each on a fresh helper; the floor reads the same command's pty into a discarding buffer; peak RSS is the helper's VmHWM read before it exits.", n)
	return res, nil
}

func addBigRows(res *result, c bigCase, floor, th samples, peak int64, complete bool) {
	mb := float64(c.lines*101) / 1e6
	res.add(row{fmt.Sprintf("%.0f MB output, %s: wall", mb, c.name), fmtDur(floor.median()), fmtDur(th.median()),
		fmtRatio(ratio(th.median(), floor.median())), "< 0.5 s", verdict(th.median() < 500*time.Millisecond)})
	res.add(row{fmt.Sprintf("%.0f MB output, %s: helper peak RSS", mb, c.name), "", fmtMiB(peak), "",
		"< 30 MiB", verdict(peak < 30*1024)})
	res.add(row{fmt.Sprintf("%.0f MB output, %s: every line reached the host", mb, c.name), "", linesKept(complete), "",
		"all", verdict(complete)})
}

// bigOnce runs c on a fresh helper and returns its wall time, the
// helper's peak RSS in KiB and what the completeness check found.
func bigOnce(e *env, c bigCase) (time.Duration, int64, check, error) {
	h, err := spawn(e)
	if err != nil {
		return 0, 0, check{}, err
	}
	defer h.close()
	var a runAnswer
	d, err := h.callInto(&a, "exec/run", map[string]any{"command": c.command, "timeoutMs": 600000})
	if err != nil {
		return 0, 0, check{}, err
	}
	peak, err := statusKiB(h.pid(), "VmHWM")
	if err != nil {
		return 0, 0, check{}, err
	}
	return d, peak, completeness(a, c), nil
}

// check is what the completeness check found, and whether it is whole.
type check struct {
	text string
	ok   bool
}

func linesKept(ok bool) string {
	if ok {
		return "all"
	}
	return "lines lost"
}

// completeness checks that every line reached the host: in the spill
// file when the answer was cut, else in the answer itself, where runs of
// identical lines are folded into an exact repeat count.
func completeness(a runAnswer, c bigCase) check {
	if a.Truncated && a.FullOutputPath != nil {
		f, err := os.Open(*a.FullOutputPath)
		if err != nil {
			return check{"spill file missing: " + err.Error(), false}
		}
		defer f.Close()
		defer os.Remove(*a.FullOutputPath)
		text, ok := compareLines(f, c, false)
		return check{"cut; the spill file " + text, ok}
	}
	if a.Truncated {
		return check{"cut, and no spill file named: lines lost", false}
	}
	text, ok := compareLines(strings.NewReader(a.Output), c, true)
	return check{"not cut (identical lines fold losslessly); the answer " + text, ok}
}

var repeatLine = regexp.MustCompile(`^\[previous line repeated (\d+) more times?\]$`)

// compareLines reads r line by line against c's lines; with fold set, a
// repeat marker stands for that many copies of the line before it.
func compareLines(r io.Reader, c bigCase, fold bool) (string, bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	i, prev := 0, ""
	for sc.Scan() {
		line := sc.Text()
		if m := repeatLine.FindStringSubmatch(line); fold && m != nil {
			k, _ := strconv.Atoi(m[1])
			for ; k > 0; k-- {
				if i >= c.lines || c.line(i) != prev {
					return fmt.Sprintf("differs at line %d (a repeat marker)", i+1), false
				}
				i++
			}
			continue
		}
		if i >= c.lines || line != c.line(i) {
			return fmt.Sprintf("differs at line %d: %.60q", i+1, line), false
		}
		prev = line
		i++
	}
	if i != c.lines {
		return fmt.Sprintf("holds %d of %d lines", i, c.lines), false
	}
	return fmt.Sprintf("holds all %d lines, byte for byte", i), true
}
