package cleaner

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

const diagDir = "../testdata/diagnostics"

// diagLog is one log of the diagnostics table and the facts a capped
// answer must keep of it.
type diagLog struct {
	name  string
	raw   []byte
	facts []string
}

func diagLogs(t testing.TB) []diagLog {
	files, err := filepath.Glob(filepath.Join(diagDir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no diagnostics logs: %v", err)
	}
	var logs []diagLog
	for _, f := range files {
		a := readGolden(t, f)
		d := diagLog{name: strings.TrimSuffix(filepath.Base(f), ".txtar"), raw: expandLog(t, a.data["raw"])}
		for _, line := range strings.Split(string(a.data["facts"]), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				d.facts = append(d.facts, line)
			}
		}
		if len(d.facts) == 0 {
			t.Fatalf("%s: no facts", f)
		}
		logs = append(logs, d)
	}
	return logs
}

// expandLog writes out the "@repeat N template" lines of a log: N lines,
// {n} the line's count from 1, \n a line break, so that ten thousand lines
// of progress stay a line in the file.
func expandLog(t testing.TB, b []byte) []byte {
	var out bytes.Buffer
	for _, line := range strings.SplitAfter(string(b), "\n") {
		rest, ok := strings.CutPrefix(line, "@repeat ")
		if !ok {
			out.WriteString(line)
			continue
		}
		count, tmpl, _ := strings.Cut(strings.TrimSuffix(rest, "\n"), " ")
		n, err := strconv.Atoi(count)
		if err != nil {
			t.Fatalf("bad directive %q", line)
		}
		tmpl = strings.ReplaceAll(tmpl, `\n`, "\n")
		for i := 1; i <= n; i++ {
			out.WriteString(strings.ReplaceAll(tmpl, "{n}", strconv.Itoa(i)))
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}

func countFacts(text string, facts []string) (kept int, missing []string) {
	for _, f := range facts {
		if strings.Contains(text, f) {
			kept++
		} else {
			missing = append(missing, f)
		}
	}
	return kept, missing
}

// baselineKeep is the plain rule the table is measured against: a head, a
// tail, and the lines from the middle that look like errors, in the shares
// the window gave them before it kept diagnostics whole.
func baselineKeep(lines []string, budget int) string {
	headB, errB := budget*3/10, budget/4
	tailB := max(budget-headB-errB-240, budget/5)
	cost := func(s string) int { return utf8.RuneCountInString(s) + 1 }
	h, used := 0, 0
	for ; h < len(lines) && used+cost(lines[h]) <= headB; h++ {
		used += cost(lines[h])
	}
	t, used := len(lines), 0
	for ; t > h && used+cost(lines[t-1]) <= tailB; t-- {
		used += cost(lines[t-1])
	}
	var sb strings.Builder
	sb.WriteString(strings.Join(lines[:h], "\n") + "\n[... omitted]\n")
	used = 0
	for i := h; i < t; i++ {
		if c := len(linePrefix(i+1)) + cost(lines[i]); looksLikeError(lines[i]) && used+c <= errB {
			sb.WriteString(linePrefix(i+1) + lines[i] + "\n")
			used += c
		}
	}
	sb.WriteString(strings.Join(lines[t:], "\n"))
	return sb.String()
}

// TestDiagnostics cuts each log of the table at the stream cap and checks
// that every key fact of it survives. It logs the facts kept, and those the
// baseline keeps, one line per log, which the bench reads.
func TestDiagnostics(t *testing.T) {
	total, kept, base := 0, 0, 0
	for _, d := range diagLogs(t) {
		got := Clean(d.raw, Options{Spill: (&memSpill{}).open})
		if !got.Truncated || got.OmittedLines < 5000 {
			t.Errorf("%s: not cut (%d lines omitted)", d.name, got.OmittedLines)
		}
		k, missing := countFacts(got.Text, d.facts)
		all := strings.Split(strings.TrimSuffix(Clean(d.raw, Options{MaxStreamChars: 1 << 30}).Text, "\n"), "\n")
		b, _ := countFacts(baselineKeep(all, defaultMaxStreamChars), d.facts)
		t.Logf("facts %s: kept %d/%d, baseline %d/%d", d.name, k, len(d.facts), b, len(d.facts))
		for _, m := range missing {
			t.Errorf("%s: lost %q", d.name, m)
		}
		if len(missing) > 0 {
			t.Logf("%s: got\n%s", d.name, got.Text)
		}
		total, kept, base = total+len(d.facts), kept+k, base+b
	}
	t.Logf("facts all: kept %d/%d, baseline %d/%d", kept, total, base, total)
}

func TestDiagnosticsStreamed(t *testing.T) {
	for _, d := range diagLogs(t) {
		whole := Clean(d.raw, Options{}).Text
		for _, size := range []int{1 << 10, 4093} {
			if got := cleanChunked(d.raw, Options{}, size); got != whole {
				t.Errorf("%s in chunks of %d differs", d.name, size)
			}
		}
	}
}
