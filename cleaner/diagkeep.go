package cleaner

import (
	"slices"
	"sort"
	"strconv"
)

// pool keeps diagnostics within a budget: the first ones while they fill
// half of it, then the latest ones, the oldest of those left out first.
// When the diagnostics alone do not fit, the first and the last are shown
// whole and the rest counted. A pool that does not roll keeps the first
// ones only.
type pool struct {
	budget     int
	rolling    bool
	first      []block
	firstChars int
	frozen     bool // first is full: later blocks roll through last
	last       []block
	lastStart  int // last[lastStart:] is in use
	lastChars  int
	dropped    int // blocks left out of the budget, all between first and last
}

func (p *pool) chars() int { return p.firstChars + p.lastChars }

func (p *pool) len() int { return len(p.first) + len(p.last) - p.lastStart }

// add keeps b, leaving out older blocks or b itself to stay in budget;
// what is left out goes to w's omission count.
func (p *pool) add(b block, w *window) {
	firstBudget := p.budget
	if p.rolling {
		firstBudget /= 2
	}
	if !p.frozen && p.firstChars+b.chars <= firstBudget {
		p.first = append(p.first, b)
		p.firstChars += b.chars
		return
	}
	p.frozen = true
	if !p.rolling {
		w.omitBlock(b)
		return
	}
	for p.chars()+b.chars > p.budget && p.lastStart < len(p.last) {
		w.omitBlock(p.popOldest())
	}
	if p.chars()+b.chars > p.budget {
		p.dropped++
		w.omitBlock(b)
		return
	}
	p.last = append(p.last, b)
	p.lastChars += b.chars
}

func (p *pool) popOldest() block {
	b := p.last[p.lastStart]
	p.last[p.lastStart] = block{}
	p.lastStart++
	p.lastChars -= b.chars
	p.dropped++
	if p.lastStart > 16 && p.lastStart > len(p.last)/2 {
		p.last = p.last[:copy(p.last, p.last[p.lastStart:])]
		p.lastStart = 0
	}
	return b
}

// popNewest takes back the latest block kept, to make room for a marker.
func (p *pool) popNewest() (block, bool) {
	if n := len(p.last); n > p.lastStart {
		b := p.last[n-1]
		p.last = p.last[:n-1]
		p.lastChars -= b.chars
		return b, true
	}
	if n := len(p.first); n > 0 {
		b := p.first[n-1]
		p.first = p.first[:n-1]
		p.firstChars -= b.chars
		return b, true
	}
	return block{}, false
}

// diags is what the window holds of the middle of a stream: the kept
// diagnostics, the block being read, and the last omitted lines for a
// trigger's lookbehind. All of it is bounded whatever the stream.
// Errors and the rest (warnings, loose error-like lines) have separate
// budgets, so that a log full of lines that say "error" never pushes out a
// compiler's error; the rest keeps its first ones only, and once it is full
// lines are no longer scanned for error words, which keeps a long log
// cheap.
type diags struct {
	strong, weak pool
	blockCap     int // characters one block may take

	cur     block
	open    bool
	scratch []run // storage of cur's lines, reused
	took    [maxLookback]run

	back    [backRing]run // omitted lines, a ring
	backEnd int
	nback   int
}

func newDiags(budget int) diags {
	d := diags{strong: pool{budget: budget * 7 / 20, rolling: true}, weak: pool{budget: budget / 10}}
	d.blockCap = max(d.strong.budget/3, 1)
	return d
}

// chars is what the diagnostics cost shown.
func (d *diags) chars() int {
	c := d.strong.chars() + d.weak.chars()
	if d.open {
		c += d.cur.chars
	}
	return c
}

func (d *diags) remember(r run) {
	d.back[d.backEnd] = r
	d.backEnd = (d.backEnd + 1) % backRing
	d.nback = min(d.nback+1, backRing)
}

// lookback returns the remembered lines that belong before a trigger of
// kind k on line num, oldest first, and forgets them.
func (d *diags) lookback(k kind, num int) []run {
	took := &d.took
	n := 0
	for i := 0; i < d.nback && n < maxLookback; i++ {
		r := d.back[(d.backEnd-1-i+backRing)%backRing]
		if r.num+r.count != num {
			break
		}
		num = r.num
		take, stop := lookback(k, r.text)
		if stop {
			break
		}
		if take {
			took[n] = r
			n++
		}
	}
	d.nback = 0
	out := took[:n]
	slices.Reverse(out)
	return out
}

// middle takes a run that left the tail: into the diagnostic being read,
// as the start of a new one, or omitted.
func (w *window) middle(r run) {
	d := &w.diag
	if d.open {
		switch v := d.cur.next(r.text); v {
		case vKeep, vLast:
			w.grow(r)
			if v == vLast {
				w.closeBlock()
			}
			return
		case vSkip:
			w.omit(r)
			return
		}
		w.closeBlock()
	}
	k, strong := classify(r.text, !d.weak.frozen)
	if k == kindNone || !strong && d.weak.frozen {
		w.omit(r)
		d.remember(r)
		return
	}
	w.openBlock(k, strong, r)
}

// openBlock starts a diagnostic of kind k on trigger r, with the omitted
// lines just before r that belong to it.
func (w *window) openBlock(k kind, strong bool, r run) {
	d := &w.diag
	d.open = true
	d.cur = newBlock(k, strong, d.scratch[:0])
	for _, b := range d.lookback(k, r.num) {
		w.unomit(b)
		w.grow(b)
	}
	w.grow(r)
}

// grow adds r to the block being read, within its size: past it, the
// block keeps its first lines, or its first headKeep and its latest.
func (w *window) grow(r run) {
	b := &w.diag.cur
	c := r.errCost()
	full := func() bool { return len(b.lines) >= maxBlockLines || b.chars+c > w.diag.blockCap }
	for b.headKeep > 0 && full() && len(b.lines) > b.headKeep {
		old := b.lines[b.headKeep]
		b.lines = slices.Delete(b.lines, b.headKeep, b.headKeep+1)
		b.chars -= old.errCost()
		w.omit(old)
	}
	if full() {
		w.omit(r)
		return
	}
	b.lines = append(b.lines, r)
	b.chars += c
}

// closeBlock ends the block being read and hands it to its pool.
func (w *window) closeBlock() {
	d := &w.diag
	if !d.open {
		return
	}
	d.open = false
	b := d.cur
	d.scratch, d.cur = b.lines[:0], block{}
	if len(b.lines) == 0 {
		return
	}
	b.lines = slices.Clone(b.lines)
	if b.strong {
		d.strong.add(b, w)
	} else {
		d.weak.add(b, w)
	}
}

func (w *window) omitBlock(b block) {
	for _, r := range b.lines {
		w.omit(r)
	}
}

func (w *window) unomit(r run) {
	w.omitLines -= r.count
	w.omitChars -= r.rawCost()
}

// dropBlock leaves out a kept diagnostic to make room for the markers:
// the latest loose one first, then, among errors, the oldest of the latest
// ones, so that the first and the last stay.
func (w *window) dropBlock() bool {
	if b, ok := w.diag.weak.popNewest(); ok {
		w.omitBlock(b)
		return true
	}
	p := &w.diag.strong
	if len(p.last)-p.lastStart > 1 {
		w.omitBlock(p.popOldest())
		return true
	}
	if b, ok := p.popNewest(); ok {
		w.omitBlock(b)
		return true
	}
	return false
}

// kept returns the kept diagnostics in the order of the stream.
func (d *diags) kept() []block {
	var all []block
	for _, p := range []*pool{&d.strong, &d.weak} {
		all = append(all, p.first...)
		all = append(all, p.last[p.lastStart:]...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].lines[0].num < all[j].lines[0].num })
	return all
}

func (d *diags) count() int { return d.strong.len() + d.weak.len() }

// gap returns the line number of the first of the last diagnostics kept
// and the marker that goes before it, when diagnostics between the first
// and the last were left out.
func (d *diags) gap() (int, string) {
	p := &d.strong
	if p.dropped == 0 || p.lastStart == len(p.last) {
		return -1, ""
	}
	n := strconv.Itoa(p.dropped)
	if p.dropped == 1 {
		return p.last[p.lastStart].lines[0].num, "[... 1 more diagnostic omitted]"
	}
	return p.last[p.lastStart].lines[0].num, "[... " + n + " more diagnostics omitted]"
}
