package cleaner

import "strings"

// A diagnostic is an error line with the lines that locate and explain it:
// a compiler's location and code excerpt, a traceback's frames, a failing
// test's assertion. The window keeps diagnostics from the middle of a long
// stream whole. It sees the lines one at a time as they leave its tail, so
// a block is recognised by its first line (the trigger), may take a few
// omitted lines from just before it (the lookbehind), and then takes or
// skips each following line until one does not belong.

// kind is the shape of a diagnostic, which says what lines belong to it.
type kind uint8

const (
	kindNone      kind = iota
	kindLine           // a lone line that looks like an error
	kindRust           // rustc: error[E0308]: ... then --> and the excerpt
	kindCompiler       // file:line:col: message (gcc, clang, go build, go vet)
	kindTsc            // file:line:col - error TS...: excerpt after a blank line
	kindTraceback      // Python: Traceback ... to the exception line
	kindPanic          // Go: panic: ... goroutine N [running]: and the first frames
	kindGoTest         // --- FAIL: TestX and its indented log lines
	kindPytest         // ____ test_x ____ and its > and E lines
	kindJest           // ● Suite › test, Expected/Received, the excerpt
	kindCargoTest      // ---- x stdout ---- and the panic with left/right
)

// verdict is what a line is to the block being read.
type verdict uint8

const (
	vKeep verdict = iota // part of it, shown
	vSkip                // part of it, left out (blank lines, source context)
	vLast                // the last line of it, shown
	vEnd                 // not part of it: the block ended on the line before
)

const (
	maxBlockLines = 12  // lines shown of one diagnostic
	maxBlockSpan  = 400 // lines read into one diagnostic before it is closed anyway
	maxLookback   = 4   // omitted lines a diagnostic may take from before its trigger
	backRing      = 8   // omitted lines remembered for the lookbehind
)

// block is one diagnostic being read or kept.
type block struct {
	lines  []run
	chars  int // cost of lines shown with their line numbers
	kind   kind
	strong bool // a recognised error, not a warning or a loose line
	// headKeep > 0 keeps the first headKeep lines and the latest others
	// when the block is over its size (a traceback's last frames matter
	// most); 0 keeps the first lines.
	headKeep int
	span     int  // lines read into the block
	blanks   int  // blank lines in a row just read
	state    bool // kind's own progress: a panic's goroutine header seen, a jest "at" line kept
	skipping bool // a panic frame being skipped: its file line goes too
}

// classify says whether line s starts a diagnostic, of what kind, and
// whether it is an error rather than a warning or a loose line; loose
// says whether to look for loose lines at all. It runs on every line that
// leaves a long stream's tail, so it looks at the first byte before
// anything else.
func classify(s string, loose bool) (kind, bool) {
	t := strings.TrimLeft(s, " ")
	if t == "" {
		return kindNone, false
	}
	if k := classifyStart(s, t); k != kindNone {
		return k, k != kindRust || !strings.HasPrefix(s, "warning")
	}
	if k := compilerKind(s); k != kindNone {
		return k, !strings.Contains(s, "warning") && !strings.Contains(s, " note:")
	}
	if loose && looksLikeError(s) {
		return kindLine, false
	}
	return kindNone, false
}

// classifyStart recognises the triggers known by how the line begins; t is
// s without its indentation.
func classifyStart(s, t string) kind {
	switch t[0] {
	case 'T':
		if strings.HasPrefix(t, "Traceback (most recent call last)") {
			return kindTraceback
		}
	case 'p', 'f':
		if strings.HasPrefix(s, "panic: ") || strings.HasPrefix(s, "fatal error: ") {
			return kindPanic
		}
	case '-':
		if strings.HasPrefix(t, "--- FAIL: ") {
			return kindGoTest
		}
		if strings.HasPrefix(s, "---- ") && strings.HasSuffix(s, " ----") {
			return kindCargoTest
		}
	case '_':
		if len(s) >= 12 && strings.HasPrefix(s, "_____") && strings.HasSuffix(s, "_____") && strings.Contains(s, " ") {
			return kindPytest
		}
	case 0xe2:
		if strings.HasPrefix(t, "● ") {
			return kindJest
		}
	case 'e', 'w':
		if strings.HasPrefix(s, "error[") || strings.HasPrefix(s, "error: ") ||
			strings.HasPrefix(s, "warning[") || strings.HasPrefix(s, "warning: ") {
			return kindRust
		}
	}
	return kindNone
}

// compilerKind recognises "path.ext:line:col: message" and tsc's
// "path.ts(line,col): error" and "path.ts:line:col - error" at the start
// of a line.
func compilerKind(s string) kind {
	n, ok := fileLineCol(s)
	if !ok {
		return kindNone
	}
	switch rest := s[n:]; {
	case strings.HasPrefix(rest, " - error"), strings.HasPrefix(rest, " - warning"):
		return kindTsc
	case strings.HasPrefix(rest, ": "):
		return kindCompiler
	}
	return kindNone
}

// fileLineCol returns the length of a leading "path.ext:L:C" or
// "path.ext(L,C)", where path has no spaces and ext starts with a letter.
func fileLineCol(s string) (int, bool) {
	i := pathEnd(s)
	if i <= 0 || i == len(s) || s[i] == ' ' || s[i] == '\t' || !hasExt(s[:i]) {
		return 0, false
	}
	open, sep, end := s[i], byte(':'), byte(':')
	if open == '(' {
		sep, end = ',', ')'
	}
	j := skipDigits(s, i+1)
	if j == i+1 || j >= len(s) || s[j] != sep {
		return 0, false
	}
	k := skipDigits(s, j+1)
	if k == j+1 {
		return 0, false
	}
	if open == '(' {
		if k >= len(s) || s[k] != end {
			return 0, false
		}
		k++
	}
	return k, true
}

// pathEnd returns the index of the first ':', '(', space or tab in s, or
// len(s). A loop of its own is faster than strings.IndexAny on the short
// prefix it usually reads.
func pathEnd(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ':', '(', ' ', '\t':
			return i
		}
	}
	return len(s)
}

// hasExt reports whether the last path element of p has an extension.
func hasExt(p string) bool {
	dot := strings.LastIndexByte(p, '.')
	if dot < 0 || dot+1 >= len(p) || strings.IndexByte(p[dot:], '/') >= 0 {
		return false
	}
	c := p[dot+1] | 0x20
	return c >= 'a' && c <= 'z'
}

func skipDigits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

func indented(s string) bool { return s != "" && (s[0] == ' ' || s[0] == '\t') }

// newBlock starts a block of kind k.
func newBlock(k kind, strong bool, lines []run) block {
	b := block{kind: k, strong: strong, lines: lines}
	switch k {
	case kindTraceback:
		b.headKeep = 3
	case kindPytest:
		b.headKeep = 1
	}
	return b
}

// next says what line s is to the block.
func (b *block) next(s string) verdict {
	b.span++
	if b.span > maxBlockSpan {
		return vEnd
	}
	if s == "" {
		b.blanks++
	} else {
		b.blanks = 0
	}
	switch b.kind {
	case kindRust, kindCompiler, kindGoTest:
		return b.nextIndented(s)
	case kindTsc:
		return b.nextTsc(s)
	case kindTraceback:
		return nextTraceback(s)
	case kindPanic:
		return b.nextPanic(s)
	case kindPytest:
		return nextPytest(s)
	case kindJest:
		return b.nextJest(s)
	case kindCargoTest:
		return b.nextCargoTest(s)
	}
	return vEnd
}

// nextIndented: rustc's "  --> file" and "47 |" lines, a C compiler's
// excerpt and notes, go build's indented details, go test's log lines.
// A blank line ends them.
func (b *block) nextIndented(s string) verdict {
	switch {
	case s == "":
		return vEnd
	case indented(s):
		return vKeep
	case b.kind == kindRust && s[0] >= '0' && s[0] <= '9':
		return vKeep
	case b.kind == kindCompiler && strings.Contains(s, ": note: ") && compilerKind(s) == kindCompiler:
		return vKeep
	}
	return vEnd
}

// nextTsc: tsc's pretty output puts a blank line between the message and
// the excerpt, whose lines start with the line number.
func (b *block) nextTsc(s string) verdict {
	switch {
	case s == "":
		if b.blanks > 1 {
			return vEnd
		}
		return vSkip
	case indented(s), s[0] >= '0' && s[0] <= '9':
		return vKeep
	}
	return vEnd
}

// nextTraceback: frames are indented; the first line that is not is the
// exception, which ends the traceback.
func nextTraceback(s string) verdict {
	switch {
	case s == "":
		return vEnd
	case indented(s):
		return vKeep
	}
	return vLast
}

// nextPanic keeps the panic's message and the first goroutine's frames,
// skipping those of the runtime and of package testing, which every panic
// in a test shows first.
func (b *block) nextPanic(s string) verdict {
	switch {
	case s == "":
		if b.state {
			return vEnd
		}
		return vSkip
	case strings.HasPrefix(s, "goroutine ") && !b.state:
		b.state = true
		return vKeep
	case !b.state:
		if strings.HasPrefix(s, "[signal") || indented(s) {
			return vKeep
		}
		return vEnd
	case indented(s):
		if b.skipping {
			b.skipping = false
			return vSkip
		}
		return vKeep
	case strings.HasPrefix(s, "runtime.") || strings.HasPrefix(s, "testing.") || strings.HasPrefix(s, "panic("):
		b.skipping = true
		return vSkip
	case strings.HasSuffix(s, ")") || strings.HasSuffix(s, "...)") || strings.HasPrefix(s, "created by "):
		b.skipping = false
		return vKeep
	}
	return vEnd
}

// nextPytest keeps a failure's ">" line, its "E" lines and the
// "file.py:N: Error" line, and skips the source around them.
func nextPytest(s string) verdict {
	switch {
	case strings.HasPrefix(s, "____"), strings.HasPrefix(s, "===="):
		return vEnd
	case strings.HasPrefix(s, ">"), strings.HasPrefix(s, "E "):
		return vKeep
	case !indented(s) && strings.Contains(s, ".py:"):
		return vKeep
	}
	return vSkip
}

// nextJest keeps a failure's message, Expected and Received, the excerpt's
// marked line and the first stack line.
func (b *block) nextJest(s string) verdict {
	t := strings.TrimLeft(s, " ")
	switch {
	case s == "":
		return vSkip
	case !indented(s), strings.HasPrefix(t, "● "):
		return vEnd
	case t != "" && t[0] >= '0' && t[0] <= '9' && strings.Contains(t, " |"):
		return vSkip // excerpt context
	case strings.HasPrefix(t, "at "):
		if b.state {
			return vSkip
		}
		b.state = true
	}
	return vKeep
}

// nextCargoTest keeps a failed test's captured output, up to two blank
// lines, the next test's header or the summary.
func (b *block) nextCargoTest(s string) verdict {
	switch {
	case s == "":
		if b.blanks > 1 {
			return vEnd
		}
		return vSkip
	case strings.HasPrefix(s, "---- "), s == "failures:", strings.HasPrefix(s, "test result:"):
		return vEnd
	case strings.HasPrefix(s, "note: run with"):
		return vSkip
	}
	return vKeep
}

// lookback says whether an omitted line just before a trigger of kind k
// belongs to it (take) and whether to look further back (!stop).
func lookback(k kind, s string) (take, stop bool) {
	switch k {
	case kindCompiler, kindTsc:
		t := strings.TrimLeft(s, " ")
		if strings.HasPrefix(s, "# ") || strings.Contains(s, ": In ") ||
			strings.HasPrefix(t, "In file included from ") || strings.HasPrefix(t, "from ") {
			return true, false
		}
	case kindGoTest:
		switch {
		case strings.HasPrefix(s, "=== "):
			return false, false
		case indented(s):
			return true, false
		}
	}
	return false, true
}
