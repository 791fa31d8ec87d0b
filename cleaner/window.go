package cleaner

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// run is a line together with the identical lines right after it.
type run struct {
	text  string
	chars int // characters in text
	num   int // line number of the first line, counted over the whole stream
	count int
}

// rawCost is what the run costs shown line by line, newlines included.
func (r run) rawCost() int { return r.count * (r.chars + 1) }

// foldCost is what the run costs folded, which is never more than raw.
func (r run) foldCost() int {
	if r.count == 1 {
		return r.chars + 1
	}
	return min(r.rawCost(), r.chars+1+repeatMarkerLen(r.count-1)+1)
}

// errCost is what the run costs kept from the middle with its line number.
func (r run) errCost() int {
	c := len(linePrefix(r.num)) + r.chars + 1
	if r.count > 1 {
		c += repeatMarkerLen(r.count-1) + 1
	}
	return c
}

func repeatMarker(n int) string {
	if n == 1 {
		return "[previous line repeated 1 more time]"
	}
	return "[previous line repeated " + strconv.Itoa(n) + " more times]"
}

// repeatMarkerLen is len(repeatMarker(n)) without building the string: it
// is asked for every identical line of a long run.
func repeatMarkerLen(n int) int {
	if n == 1 {
		return len("[previous line repeated 1 more time]")
	}
	digits := 1
	for v := n; v >= 10 || v <= -10; v /= 10 {
		digits++
	}
	if n < 0 {
		digits++
	}
	return len("[previous line repeated  more times]") + digits
}

func linePrefix(num int) string { return "[line " + strconv.Itoa(num) + "] " }

// window caps the text returned by one Take. Lines are held as they come
// until they no longer fit the budget; from then on it keeps a head, a
// rolling tail, and the diagnostics whole among the lines that fall out of
// the tail (see diag.go), so memory stays within the budget whatever the
// window's size. The tail gives up room as diagnostics are kept.
type window struct {
	budget, headBudget int

	held     []run
	heldRaw  int // characters if every line is shown, newlines included
	heldFold int // characters with runs of identical lines folded

	cut       bool
	head      []run
	headChars int
	diag      diags
	tail      []run // tail[tailStart:] is in use
	tailStart int
	tailChars int

	omitLines, omitChars int
	truncated            bool
}

func newWindow(budget int) window {
	return window{budget: budget, headBudget: budget / 4, diag: newDiags(budget)}
}

// markerRoom is kept free for the omission marker and the separator.
const markerRoom = 240

// tailBudget is what is left for the tail once the head and the
// diagnostics are counted.
func (w *window) tailBudget() int {
	return w.budget - w.headChars - w.diag.chars() - markerRoom
}

func (w *window) reset() { *w = newWindow(w.budget) }

func (w *window) empty() bool { return len(w.held) == 0 && !w.cut }

// add appends one line, already capped in length.
func (w *window) add(text string, chars, num int) {
	r := run{text: text, chars: chars, num: num, count: 1}
	if w.cut {
		w.pushTail(r)
		return
	}
	w.heldRaw += r.rawCost()
	if n := len(w.held); n > 0 && w.held[n-1].text == text {
		last := &w.held[n-1]
		w.heldFold -= last.foldCost()
		last.count++
		w.heldFold += last.foldCost()
	} else {
		w.held = append(w.held, r)
		w.heldFold += r.foldCost()
	}
	if w.heldFold > w.budget {
		w.startCut()
	}
}

// startCut splits the held lines into head and tail once folding alone no
// longer fits the budget.
func (w *window) startCut() {
	w.cut, w.truncated = true, true
	i := 0
	for ; i < len(w.held); i++ {
		c := w.held[i].foldCost()
		if w.headChars+c > w.headBudget {
			break
		}
		w.head = append(w.head, w.held[i])
		w.headChars += c
	}
	for _, r := range w.held[i:] {
		w.pushTail(r)
	}
	w.held, w.heldRaw, w.heldFold = nil, 0, 0
}

func (w *window) pushTail(r run) {
	if n := len(w.tail); n > w.tailStart && w.tail[n-1].text == r.text {
		last := &w.tail[n-1]
		w.tailChars -= last.foldCost()
		last.count += r.count
		w.tailChars += last.foldCost()
	} else {
		w.tail = append(w.tail, r)
		w.tailChars += r.foldCost()
	}
	for w.tailChars > w.tailBudget() && len(w.tail)-w.tailStart > 1 {
		w.middle(w.popTail())
	}
}

func (w *window) popTail() run {
	r := w.tail[w.tailStart]
	w.tail[w.tailStart] = run{}
	w.tailStart++
	w.tailChars -= r.foldCost()
	if w.tailStart > 64 && w.tailStart > len(w.tail)/2 {
		w.tail = w.tail[:copy(w.tail, w.tail[w.tailStart:])]
		w.tailStart = 0
	}
	return r
}

func (w *window) omit(r run) {
	w.omitLines += r.count
	w.omitChars += r.rawCost()
}

// render returns the window's text; path names the full output in the
// omission marker ("" when it could not be saved).
// Every line ends with a newline but an open last line, the cursor's line
// that no newline has ended yet.
func (w *window) render(path string, openEnd bool) string {
	s := ""
	if w.cut {
		s = w.renderCut(path)
	} else {
		s = w.renderHeld()
	}
	if openEnd {
		s = strings.TrimSuffix(s, "\n")
	}
	return capChars(s, w.budget)
}

func (w *window) renderHeld() string {
	var sb strings.Builder
	folded := w.heldRaw > w.budget
	sb.Grow(min(w.heldRaw, w.heldFold))
	for _, r := range w.held {
		writeRun(&sb, r, folded)
	}
	return sb.String()
}

// writeRun writes r line by line, or folded when that is shorter.
func writeRun(sb *strings.Builder, r run, folded bool) {
	if folded && r.count > 1 && r.foldCost() < r.rawCost() {
		sb.WriteString(r.text)
		sb.WriteByte('\n')
		sb.WriteString(repeatMarker(r.count - 1))
		sb.WriteByte('\n')
		return
	}
	for range r.count {
		sb.WriteString(r.text)
		sb.WriteByte('\n')
	}
}

func (w *window) renderCut(path string) string {
	w.closeBlock()
	marker := w.fit(path)
	var sb strings.Builder
	sb.Grow(w.budget + 64)
	for _, r := range w.head {
		writeRun(&sb, r, true)
	}
	sb.WriteString(marker)
	sb.WriteByte('\n')
	next := -1 // the line after the last one shown from the middle
	gapAt, gap := w.diag.gap()
	for _, b := range w.diag.kept() {
		if b.lines[0].num == gapAt {
			sb.WriteString(gap + "\n")
		}
		for _, r := range b.lines {
			sb.WriteString(linePrefix(r.num))
			writeRun(&sb, run{text: r.text, chars: r.chars, count: r.count}, true)
			next = r.num + r.count
		}
	}
	if next >= 0 && w.tailGap(next) {
		sb.WriteString(tailSeparator + "\n")
	}
	for _, r := range w.tail[w.tailStart:] {
		writeRun(&sb, r, true)
	}
	return sb.String()
}

// tailGap reports whether lines were left out between line next and the
// tail: a diagnostic that runs on into the tail needs no separator.
func (w *window) tailGap(next int) bool {
	return len(w.tail) == w.tailStart || w.tail[w.tailStart].num != next
}

const tailSeparator = "[...]"

// fit drops lines until head, marker, errors and tail fit the budget, and
// returns the marker, whose numbers depend on what was dropped.
func (w *window) fit(path string) string {
	for {
		marker := w.marker(path)
		total := w.headChars + utf8.RuneCountInString(marker) + 1 + w.diag.chars() + w.tailChars
		if w.diag.count() > 0 {
			total += len(tailSeparator) + 1
		}
		if _, gap := w.diag.gap(); gap != "" {
			total += len(gap) + 1
		}
		switch {
		case total <= w.budget:
			return marker
		case len(w.tail)-w.tailStart > 1:
			w.omit(w.popTail())
		case w.dropBlock():
		case len(w.head) > 0:
			r := w.head[len(w.head)-1]
			w.head = w.head[:len(w.head)-1]
			w.headChars -= r.foldCost()
			w.omit(r)
		default:
			return marker // capChars has the last word
		}
	}
}

func (w *window) marker(path string) string {
	var sb strings.Builder
	sb.WriteString("[... ")
	sb.WriteString(strconv.Itoa(w.omitLines))
	sb.WriteString(" lines (")
	sb.WriteString(strconv.Itoa(w.omitChars))
	sb.WriteString(" chars) omitted")
	w.markDiags(&sb)
	if path != "" {
		sb.WriteString("; full output: ")
		sb.WriteString(path)
	} else {
		sb.WriteString("; full output not saved")
	}
	sb.WriteString("]")
	return sb.String()
}

// capChars cuts s to at most n characters, on a character boundary.
func capChars(s string, n int) string {
	if len(s) <= n {
		return s // n bytes hold at most n characters
	}
	return prefixChars(s, n)
}

// markDiags says in the marker that diagnostics from the middle follow.
func (w *window) markDiags(sb *strings.Builder) {
	if w.diag.count() > 0 {
		sb.WriteString("; diagnostics follow with their line numbers")
	}
}
