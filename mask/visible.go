package mask

import "sort"

// A terminal shows neither escape sequences nor most control characters,
// so a secret with colour codes or NULs between its characters still
// shows whole on the host's terminal. The Masker therefore looks for
// secrets in the visible text: the bytes left once escape sequences (CSI,
// OSC, DCS, SOS, PM, APC, two-byte and charset sequences) and the C0
// controls other than tab, newline and carriage return are taken out.
// Text rewritten in place (backspace, cursor movement, a carriage return
// and more text) is beyond it: the cleaner renders that, and the answers
// are checked again after rendering.

// invisible marks the bytes that show nothing on a terminal: ESC starts a
// sequence, the other C0 controls and DEL are not drawn.
var invisible = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = c != '\t' && c != '\n' && c != '\r'
	}
	t[0x7f] = true
	return t
}()

const esc = 0x1b

// seg is where a run of visible bytes starts, in the visible text and in
// the raw bytes.
type seg struct{ vis, raw int }

// projection is the visible text of a buffer and the map back to it.
type projection struct {
	vis  []byte
	segs []seg // nil: every byte is visible, vis is the buffer itself
	end  int   // the raw bytes parsed; an escape sequence cut by the end of the buffer starts here

	ownVis  []byte // reused buffers, never the caller's
	ownSegs []seg
}

// raw is the raw offset of visible byte k (k == len(vis): p.end).
func (p *projection) raw(k int) int {
	if k >= len(p.vis) {
		return p.end
	}
	if p.segs == nil {
		return k
	}
	i := sort.Search(len(p.segs), func(i int) bool { return p.segs[i].vis > k }) - 1
	return p.segs[i].raw + k - p.segs[i].vis
}

// project fills p with buf's visible text. An escape sequence that buf
// ends before it is complete is left out of it, unless whole: then its
// bytes count as invisible.
func (p *projection) project(buf []byte, whole bool) {
	p.end = len(buf)
	if !hasInvisible(buf) {
		p.vis, p.segs = buf, nil
		return
	}
	vis, segs := p.ownVis[:0], p.ownSegs[:0]
	for i := 0; i < len(buf); {
		j := i
		for j < len(buf) && !invisible[buf[j]] {
			j++
		}
		if j > i {
			segs = append(segs, seg{len(vis), i})
			vis = append(vis, buf[i:j]...)
		}
		if j == len(buf) {
			break
		}
		i = j + 1
		if buf[j] == esc {
			if i = seqEnd(buf, j); i < 0 {
				if !whole {
					p.end = j
				}
				break
			}
		}
	}
	if segs == nil {
		segs = []seg{}
	}
	p.ownVis, p.ownSegs = vis, segs
	p.vis, p.segs = vis, segs
}

func hasInvisible(buf []byte) bool {
	for _, c := range buf {
		if invisible[c] {
			return true
		}
	}
	return false
}

// visible returns s without what a terminal would not show.
func visible(s string) string {
	var p projection
	p.project([]byte(s), true)
	return string(p.vis)
}

// seqEnd returns where the escape sequence that starts at buf[i] (an ESC)
// ends, or -1 when buf ends first.
func seqEnd(buf []byte, i int) int {
	j := i + 1
	if j >= len(buf) {
		return -1
	}
	switch c := buf[j]; {
	case c == '[':
		return csiEnd(buf, j+1)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		return stringEnd(buf, j+1)
	case c == esc:
		return j // a new sequence starts: this one was cut short
	case c >= 0x20 && c <= 0x2f: // intermediates, then a final byte
		for j++; j < len(buf) && buf[j] >= 0x20 && buf[j] <= 0x2f; j++ {
		}
		if j >= len(buf) {
			return -1
		}
	}
	return j + 1
}

// csiEnd finds the final byte of a control sequence; ESC, CAN and SUB cut
// it short.
func csiEnd(buf []byte, j int) int {
	for ; j < len(buf); j++ {
		switch c := buf[j]; {
		case c >= 0x40 && c <= 0x7e, c == 0x18, c == 0x1a:
			return j + 1
		case c == esc:
			return j
		}
	}
	return -1
}

// stringEnd finds the end of an OSC, DCS, SOS, PM or APC string: BEL, the
// string terminator ESC \, or CAN or SUB; another ESC cuts it short.
func stringEnd(buf []byte, j int) int {
	for ; j < len(buf); j++ {
		switch buf[j] {
		case 0x07, 0x18, 0x1a:
			return j + 1
		case esc:
			switch {
			case j+1 >= len(buf):
				return -1
			case buf[j+1] == '\\':
				return j + 2
			}
			return j
		}
	}
	return -1
}
