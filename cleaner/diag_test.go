package cleaner

import (
	"bytes"
	"fmt"
	"io"
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
	short []byte // raw with at most 20 lines for each @repeat: a fuzz seed
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
		d := diagLog{name: strings.TrimSuffix(filepath.Base(f), ".txtar"),
			raw: expandLog(t, a.data["raw"], -1), short: expandLog(t, a.data["raw"], 20)}
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
// of progress stay a line in the file. limit >= 0 caps N.
func expandLog(t testing.TB, b []byte, limit int) []byte {
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
		if limit >= 0 {
			n = min(n, limit)
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

func TestClassify(t *testing.T) {
	cases := []struct {
		line   string
		kind   kind
		strong bool
	}{
		{"error[E0308]: mismatched types", kindRust, true},
		{"warning: unused variable: `x`", kindRust, false},
		{"/src/parser.c:142:17: error: 'hdr_len' undeclared", kindCompiler, true},
		{"src/x.c:3:1: warning: unused function 'f' [-Wunused-function]", kindCompiler, false},
		{"billing/invoice.go:47:18: undefined: roundCents", kindCompiler, true},
		{"src/api/client.ts(42,7): error TS2322: Type 'string'", kindCompiler, true},
		{"src/api/client.ts:42:7 - error TS2322: Type 'string'", kindTsc, true},
		{"Traceback (most recent call last):", kindTraceback, true},
		{"panic: runtime error: index out of range [3] with length 3", kindPanic, true},
		{"fatal error: all goroutines are asleep - deadlock!", kindPanic, true},
		{"--- FAIL: TestRefund (0.00s)", kindGoTest, true},
		{"    --- FAIL: TestRefund/partial (0.00s)", kindGoTest, true},
		{"_____________ test_refund_partial _____________", kindPytest, true},
		{"  ● Refund › partial refund", kindJest, true},
		{"---- tests::refund stdout ----", kindCargoTest, true},
		{"npm error code ELIFECYCLE", kindLine, false},
		{"2024-05-01T12:00:00Z INFO worker-1 processed request", kindNone, false},
		{"2026/11/20 10:14:05 served GET /api/items/1 200 in 3ms", kindNone, false},
		{"   Compiling serde v1.0.197", kindNone, false},
		{"[ 45%] Building C object src/parser.c.o", kindNone, false},
		{"see https://example.com:8080/x", kindNone, false},
		{"v1.2:3:4: nothing", kindNone, false},
		{"", kindNone, false},
	}
	for _, tc := range cases {
		k, strong := classify(tc.line, true)
		if k != tc.kind || strong != tc.strong {
			t.Errorf("classify(%q) = %d, %v; want %d, %v", tc.line, k, strong, tc.kind, tc.strong)
		}
	}
}

// addLines feeds a window lines numbered from 1 and returns its text.
func addLines(w *window, lines []string) string {
	for i, l := range lines {
		w.add(l, utf8.RuneCountInString(l), i+1)
	}
	return w.render("/spill", false)
}

func filler(prefix string, n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("%s %d of the progress", prefix, i))
	}
	return out
}

// TestFirstAndLastDiagnostics: when the errors alone do not fit, the first
// and the last are kept whole and the rest counted between them.
func TestFirstAndLastDiagnostics(t *testing.T) {
	lines := filler("before", 2000)
	const n = 300
	for i := range n {
		lines = append(lines, fmt.Sprintf("src/f%d.c:%d:5: error: unknown type name 'w%d'", i, i+1, i),
			fmt.Sprintf("   %d |     w%d *x;", i+1, i), "      |     ^~")
	}
	lines = append(lines, filler("after", 2000)...)
	w := newWindow(defaultMaxStreamChars)
	text := addLines(&w, lines)
	if utf8.RuneCountInString(text) > defaultMaxStreamChars {
		t.Fatalf("over the cap")
	}
	kept := strings.Count(text, ": error: unknown type name")
	if kept < 10 || kept >= n {
		t.Fatalf("kept %d of %d errors", kept, n)
	}
	for _, i := range []int{0, 1, n - 2, n - 1} {
		if !strings.Contains(text, fmt.Sprintf("src/f%d.c:", i)) || !strings.Contains(text, fmt.Sprintf("w%d *x;", i)) {
			t.Errorf("error %d not kept whole", i)
		}
	}
	if want := fmt.Sprintf("\n[... %d more diagnostics omitted]\n", n-kept); !strings.Contains(text, want) {
		t.Errorf("no %q in\n%s", want, text)
	}
	// Every kept error has its excerpt.
	if got := strings.Count(text, " *x;"); got != kept {
		t.Errorf("%d errors kept, %d excerpts", kept, got)
	}
}

// TestLooseLinesDoNotCrowdOut: a log full of lines that say ERROR keeps a
// compiler error that comes after them.
func TestLooseLinesDoNotCrowdOut(t *testing.T) {
	lines := filler("ERROR request failed, retrying", 5000)
	lines = append(lines, "error[E0425]: cannot find value `rate` in this scope", "  --> src/tax.rs:12:22", "   |", "12 |     let t = amount * rate;", "")
	lines = append(lines, filler("ERROR request failed again", 5000)...)
	w := newWindow(defaultMaxStreamChars)
	text := addLines(&w, lines)
	for _, want := range []string{"error[E0425]", "--> src/tax.rs:12:22", "let t = amount * rate;"} {
		if !strings.Contains(text, want) {
			t.Errorf("lost %q", want)
		}
	}
}

// TestLongTraceback: a deep traceback keeps its start, its last frames and
// the exception, a dozen lines at most.
func TestLongTraceback(t *testing.T) {
	lines := filler("before", 3000)
	lines = append(lines, "Traceback (most recent call last):")
	for i := range 100 {
		lines = append(lines, fmt.Sprintf(`  File "/app/m%d.py", line %d, in f%d`, i, i+1, i), fmt.Sprintf("    f%d()", i+1))
	}
	lines = append(lines, "RecursionError: maximum recursion depth exceeded")
	lines = append(lines, filler("after", 3000)...)
	w := newWindow(defaultMaxStreamChars)
	text := addLines(&w, lines)
	var shown []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "[line ") {
			shown = append(shown, l)
		}
	}
	if len(shown) == 0 || len(shown) > maxBlockLines {
		t.Fatalf("%d lines shown: %q", len(shown), shown)
	}
	for _, want := range []string{"Traceback (most recent call last):", `File "/app/m0.py"`, `File "/app/m99.py"`, "RecursionError: maximum recursion depth exceeded"} {
		if !strings.Contains(text, want) {
			t.Errorf("lost %q", want)
		}
	}
}

// TestDiagnosticRunsIntoTail: no separator between a diagnostic and the
// tail when no line was left out between them.
func TestDiagnosticRunsIntoTail(t *testing.T) {
	lines := filler("before", 3000)
	lines = append(lines, "Traceback (most recent call last):", `  File "/app/x.py", line 1, in f`)
	for i := range 200 {
		lines = append(lines, fmt.Sprintf("    frame line %d %s", i, strings.Repeat("x", 60)))
	}
	w := newWindow(defaultMaxStreamChars)
	text := addLines(&w, lines)
	if !strings.Contains(text, "Traceback (most recent call last):") {
		t.Fatalf("traceback lost")
	}
	if strings.Contains(text, "\n[...]\n") {
		t.Errorf("separator before a tail that continues the diagnostic")
	}
	w = newWindow(defaultMaxStreamChars)
	if !strings.Contains(addLines(&w, append(append(filler("before", 3000), "panic: boom"), filler("after", 3000)...)), "\n[...]\n") {
		t.Errorf("no separator before a tail after a gap")
	}
}

// TestDiagnosticsMemoryBounded: a stream made only of diagnostics holds a
// bounded number of lines.
func TestDiagnosticsMemoryBounded(t *testing.T) {
	w := newWindow(defaultMaxStreamChars)
	num := 0
	for i := range 50000 {
		for _, l := range []string{
			fmt.Sprintf("src/f%d.c:%d:5: error: unknown type name", i, i),
			"   1 |     w *x;",
			"ERROR something failed",
			"=== RUN   TestX",
			"warning: unused import",
		} {
			num++
			w.add(l, len(l), num)
		}
	}
	d := &w.diag
	held := len(d.strong.first) + len(d.strong.last) + len(d.weak.first) + len(d.weak.last) + len(w.tail)
	if held > 2000 || len(d.cur.lines) > maxBlockLines || cap(d.scratch) > 4*maxBlockLines {
		t.Errorf("window holds %d blocks and tail runs, %d lines in the open block", held, len(d.cur.lines))
	}
	if text := w.render("", false); utf8.RuneCountInString(text) > defaultMaxStreamChars {
		t.Errorf("over the cap")
	}
}

// TestWindowAccounts: every line added is shown or counted as omitted.
func TestWindowAccounts(t *testing.T) {
	for _, d := range diagLogs(t) {
		lines := strings.Split(strings.TrimSuffix(Clean(d.raw, Options{MaxStreamChars: 1 << 30}).Text, "\n"), "\n")
		w := newWindow(defaultMaxStreamChars)
		addLines(&w, lines)
		if shown := windowShown(&w); shown+w.omitLines != len(lines) {
			t.Errorf("%s: %d shown + %d omitted != %d lines", d.name, shown, w.omitLines, len(lines))
		}
	}
}

// windowShown counts the lines a rendered window shows.
func windowShown(w *window) int {
	n := 0
	for _, r := range w.held {
		n += r.count
	}
	for _, r := range w.head {
		n += r.count
	}
	for _, r := range w.tail[w.tailStart:] {
		n += r.count
	}
	for _, b := range w.diag.kept() {
		for _, r := range b.lines {
			n += r.count
		}
	}
	return n
}

// FuzzWindowLines feeds the window arbitrary lines at small budgets: its
// caps hold, its text is valid UTF-8, and every line is shown or counted.
func FuzzWindowLines(f *testing.F) {
	for _, d := range diagLogs(f) {
		f.Add(string(d.short), uint16(300))
	}
	f.Add("error[E1]: x\n  --> a.rs:1:1\n\n\xff\xfe\nTraceback (most recent call last):\n  x\nE: y", uint16(200))
	f.Fuzz(func(t *testing.T, data string, budget uint16) {
		b := 200 + int(budget)%2000
		maxLine := max(b/4, 24)
		w := newWindow(b)
		lines := strings.Split(strings.ToValidUTF8(data, "?"), "\n")
		for rep := 0; len(lines) < 400 && rep < 8; rep++ {
			lines = append(lines, lines...) // long enough to be cut
		}
		for i, l := range lines {
			text, n, _ := capLine(l, utf8.RuneCountInString(l), 0, maxLine)
			w.add(text, n, i+1)
		}
		text := w.render("/spill/out.txt", false)
		if !utf8.ValidString(text) {
			t.Fatalf("invalid UTF-8")
		}
		if n := utf8.RuneCountInString(text); n > b {
			t.Fatalf("%d chars over the cap of %d", n, b)
		}
		if len(w.diag.cur.lines) > maxBlockLines {
			t.Fatalf("open block of %d lines", len(w.diag.cur.lines))
		}
		if shown := windowShown(&w); w.cut && shown+w.omitLines != len(lines) {
			t.Fatalf("%d shown + %d omitted != %d lines", shown, w.omitLines, len(lines))
		}
	})
}

// FuzzCleanDiagnostics runs the whole cleaner on the table's diagnostics
// at small caps, where they are cut: every Chunk keeps its properties, and
// the text does not depend on how the input is split.
func FuzzCleanDiagnostics(f *testing.F) {
	for _, d := range diagLogs(f) {
		f.Add(d.short, byte(1), uint16(7))
		f.Add(bytes.ReplaceAll(d.short, []byte("\n"), []byte("\r\n")), byte(2), uint16(300))
	}
	f.Fuzz(func(t *testing.T, raw []byte, sel byte, at uint16) {
		opts := fuzzOptions(sel, io.Discard)
		whole := Clean(raw, opts)
		checkChunk(t, whole, opts)
		i := int(at) % (len(raw) + 1)
		c := New(opts)
		c.Write(raw[:i])
		checkChunk(t, c.Take(false), opts)
		c.Write(raw[i:])
		checkChunk(t, c.Take(true), opts)
		if got := cleanChunked(raw, opts, 1+int(at)%7); got != whole.Text {
			t.Fatalf("in chunks: got %q, want %q", got, whole.Text)
		}
	})
}

// TestLongPathKeepsFirstAndLast: when a long spill path leaves less room
// for the marker, diagnostics go from between the first and the last.
func TestLongPathKeepsFirstAndLast(t *testing.T) {
	lines := filler("before", 500)
	for i := range 40 {
		lines = append(lines, fmt.Sprintf("src/f%d.c:%d:5: error: e%d", i, i+1, i), "      |     ^~")
	}
	lines = append(lines, "sentinel")
	w := newWindow(3000)
	for i, l := range lines {
		w.add(l, len(l), i+1)
	}
	for len(w.tail)-w.tailStart > 1 {
		w.middle(w.popTail()) // the last error leaves the tail too
	}
	text := w.render("/"+strings.Repeat("p", 1500), false)
	if n := utf8.RuneCountInString(text); n > 3000 {
		t.Fatalf("%d chars", n)
	}
	for _, want := range []string{"src/f0.c:1:5: error: e0", "src/f39.c:40:5: error: e39"} {
		if !strings.Contains(text, want) {
			t.Errorf("lost %q in\n%s", want, text)
		}
	}
}

// TestDiagnosticsInWindows reads each log as a session does, a window at a
// time as output arrives: every fact is in one of the windows.
func TestDiagnosticsInWindows(t *testing.T) {
	for _, d := range diagLogs(t) {
		for _, size := range []int{64 << 10, 200 << 10} {
			c := New(Options{Spill: (&memSpill{}).open})
			var all strings.Builder
			for p := d.raw; len(p) > 0; {
				n := min(size, len(p))
				c.Write(p[:n])
				p = p[n:]
				ch := c.Take(false)
				if utf8.RuneCountInString(ch.Text) > defaultMaxStreamChars {
					t.Fatalf("%s: window over the cap", d.name)
				}
				all.WriteString(ch.Text)
			}
			all.WriteString(c.Take(true).Text)
			if _, missing := countFacts(all.String(), d.facts); len(missing) > 0 {
				t.Errorf("%s in windows of %d bytes: lost %q", d.name, size, missing)
			}
		}
	}
}
