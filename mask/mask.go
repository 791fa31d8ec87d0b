// Package mask keeps secrets out of what a command's output turns into:
// every occurrence of a secret in a byte stream becomes ********, also when
// the secret is split across writes, and SecretValues picks the values of
// secret-looking environment variables to mask.
package mask

import (
	"bytes"
	"slices"
)

// Replacement stands for a masked secret.
const Replacement = "********"

// Masker replaces secrets in a stream of bytes as a terminal shows it:
// secrets are looked for in the visible text (see visible.go), so colour
// codes or control characters between a secret's characters do not hide
// it, and the escape sequences among its characters are kept, after its
// Replacement. Every byte that belongs to an occurrence of a secret is
// masked, and each run of such bytes (where
// occurrences overlap or touch) becomes one Replacement, so that no part
// of an overlapping secret is left in clear. The output does not depend on
// how the input is split into writes: a Masker holds back only a tail that
// is the start of some secret, until the next write or Flush decides it;
// it never lets such a tail go on a timer, since the rest of the secret
// could follow. A quiet command whose last bytes begin a secret (rare:
// secrets seldom start the way prompts end) shows them once more output,
// or its end, comes. It is not safe for concurrent use.
type Masker struct {
	secrets [][]byte
	maxLen  int
	first   [256]bool // the first bytes of the secrets
	short   []int     // secrets too short for the filter: searched one by one
	long    []int     // the secrets the filter finds, by the filter's numbers
	filter  *filter   // finds the longer ones in one pass
	stale   bool      // secrets were added since short and filter were made
	seen    []bool    // which secrets were found

	held        []byte // the undecided tail of the input
	pre         int    // leading bytes of held already known to be masked
	lastMasked  bool   // the last byte decided was masked
	join, out   []byte // reused buffers
	spans       []span
	heldScratch []byte
	proj        projection // the visible text of the bytes at hand
}

// span is a run of visible bytes to mask: an occurrence of a secret (its
// number where it was found, the filter's or the Masker's), or -1 for a
// run decided before.
type span struct{ start, end, secret int }

// New returns a Masker for secrets; empty ones are ignored.
func New(secrets []string) *Masker {
	m := &Masker{}
	for _, s := range secrets {
		m.Add(s)
	}
	return m
}

// Add masks secret from now on. Bytes already returned stay as they were.
// What a terminal would not show of secret itself is left out of it.
func (m *Masker) Add(secret string) {
	secret = visible(secret)
	if secret == "" || slices.ContainsFunc(m.secrets, func(s []byte) bool { return string(s) == secret }) {
		return
	}
	m.secrets = append(m.secrets, []byte(secret))
	m.seen = append(m.seen, false)
	m.maxLen = max(m.maxLen, len(secret))
	m.first[secret[0]] = true
	m.stale = true
}

// index prepares the search after secrets were added.
func (m *Masker) index() {
	m.short, m.long, m.filter, m.stale = m.short[:0], m.long[:0], nil, false
	var long [][]byte
	for i, s := range m.secrets {
		if len(s) < minFiltered {
			m.short = append(m.short, i)
		} else {
			m.long = append(m.long, i)
			long = append(long, s)
		}
	}
	if len(long) > 0 {
		m.filter = newFilter(long)
	}
}

// Seen reports whether secret was found in the output so far (a secret
// not added reports false).
func (m *Masker) Seen(secret string) bool {
	secret = visible(secret)
	i := slices.IndexFunc(m.secrets, func(s []byte) bool { return string(s) == secret })
	return i >= 0 && m.seen[i]
}

// Active reports whether there is anything to mask.
func (m *Masker) Active() bool { return len(m.secrets) > 0 }

// Write masks p and returns what can be passed on now; the rest is held
// back. The result is valid until the next call.
func (m *Masker) Write(p []byte) []byte {
	if len(m.secrets) == 0 && len(m.held) == 0 {
		return p
	}
	buf := p
	if len(m.held) > 0 {
		m.join = append(append(m.join[:0], m.held...), p...)
		buf = m.join
	}
	return m.process(buf, false)
}

// Flush returns the tail held back, masked: the stream has ended.
func (m *Masker) Flush() []byte {
	if len(m.held) == 0 {
		return nil
	}
	m.join = append(m.join[:0], m.held...)
	out := m.process(m.join, true)
	m.lastMasked = false
	return out
}

// maxHeld bounds the bytes held back: a tail that begins a secret and is
// followed by this much invisible output (or one escape sequence this
// long) is let go, the beginning of the secret masked.
const maxHeld = 4096

// process masks buf up to the first byte that may start a secret not yet
// complete (all of it when final) and keeps the rest for later.
func (m *Masker) process(buf []byte, final bool) []byte {
	p := &m.proj
	p.project(buf, final)
	spans := m.find(p.vis)
	cut := len(p.vis)
	if !final {
		cut = m.partialStart(p.vis)
	}
	if !final && len(buf)-p.raw(cut) > maxHeld {
		p.project(buf, true)
		spans = append(m.find(p.vis), span{cut, len(p.vis), -1})
		cut = len(p.vis)
	}
	return m.emit(buf, spans, cut)
}

// emit writes buf up to the visible byte cut with each run of masked
// visible bytes replaced by one Replacement (the invisible bytes among
// them kept, in their place), and holds the rest.
func (m *Masker) emit(buf []byte, spans []span, cut int) []byte {
	p := &m.proj
	cutRaw := p.raw(cut)
	out, pos, pre, lastEnd := m.out[:0], 0, 0, -1
	if cut == 0 {
		pre = m.pre // nothing decided: what was known stays known
	}
	for i := 0; i < len(spans) && spans[i].start < cut; {
		r := spans[i]
		for i++; i < len(spans) && spans[i].start <= r.end; i++ {
			r.end = max(r.end, spans[i].end)
		}
		out = append(out, buf[pos:p.raw(r.start)]...)
		if r.start > 0 || !m.lastMasked {
			out = append(out, Replacement...)
		}
		last := min(r.end, cut)
		out = m.invisibleIn(out, buf, r.start, last)
		lastEnd, pos = r.end, p.raw(last-1)+1
		if r.end > cut {
			pre = r.end - cut
		}
	}
	if len(out) == 0 && pos == 0 {
		out = buf[:cutRaw] // nothing masked: no copy
	} else {
		out = append(out, buf[pos:cutRaw]...)
		m.out = out
	}
	if cut > 0 {
		m.lastMasked = lastEnd >= cut
	}
	m.heldScratch = append(m.heldScratch[:0], buf[cutRaw:]...)
	m.held, m.heldScratch = m.heldScratch, m.held
	m.pre = pre
	return out
}

// invisibleIn appends the invisible bytes between the visible bytes start
// and end-1 of a masked run: they change the terminal's state, not the
// text.
func (m *Masker) invisibleIn(out, buf []byte, start, end int) []byte {
	p := &m.proj
	if p.segs == nil {
		return out
	}
	for k := start; k+1 < end; k++ {
		out = append(out, buf[p.raw(k)+1:p.raw(k+1)]...)
	}
	return out
}

// find returns every occurrence of every secret in buf, and the part
// already known to be masked, ordered by start.
func (m *Masker) find(buf []byte) []span {
	spans := m.spans[:0]
	if m.pre > 0 {
		spans = append(spans, span{0, m.pre, -1})
	}
	if m.stale {
		m.index()
	}
	if m.filter != nil {
		from := len(spans)
		spans = m.filter.find(buf, spans)
		for _, sp := range spans[from:] {
			m.seen[m.long[sp.secret]] = true
		}
	}
	for _, k := range m.short {
		s := m.secrets[k]
		for off := 0; ; {
			i := bytes.Index(buf[off:], s)
			if i < 0 {
				break
			}
			spans = append(spans, span{off + i, off + i + len(s), k})
			m.seen[k] = true
			off += i + 1
		}
	}
	if len(spans) > 1 {
		slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	}
	m.spans = spans
	return spans
}

// partialStart returns where the earliest secret that the input may still
// complete starts: a tail of buf that is a proper prefix of a secret.
func (m *Masker) partialStart(buf []byte) int {
	for j := max(0, len(buf)-m.maxLen+1); j < len(buf); j++ {
		if !m.first[buf[j]] {
			continue
		}
		tail := buf[j:]
		for _, s := range m.secrets {
			if len(s) > len(tail) && bytes.HasPrefix(s, tail) {
				return j
			}
		}
	}
	return len(buf)
}
