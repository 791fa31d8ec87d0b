package sandbox

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// bpfProg assembles a classic BPF program whose jumps name labels, so that
// a rule can be added without recounting every offset after it.
type bpfProg struct {
	ins    []unix.SockFilter
	labels map[string]int
	jumps  []bpfJump
}

// bpfJump is a conditional jump waiting for its targets; "" is the next
// instruction.
type bpfJump struct {
	at     int
	jt, jf string
}

func (p *bpfProg) stmt(code uint16, k uint32) {
	p.ins = append(p.ins, unix.SockFilter{Code: code, K: k})
}

func (p *bpfProg) jump(op uint16, k uint32, jt, jf string) {
	p.jumps = append(p.jumps, bpfJump{len(p.ins), jt, jf})
	p.stmt(unix.BPF_JMP|op|unix.BPF_K, k)
}

// goTo jumps always; its target is resolved as jt.
func (p *bpfProg) goTo(label string) {
	p.jumps = append(p.jumps, bpfJump{at: len(p.ins), jt: label})
	p.stmt(unix.BPF_JMP|unix.BPF_JA, 0)
}

func (p *bpfProg) label(name string) {
	if p.labels == nil {
		p.labels = map[string]int{}
	}
	p.labels[name] = len(p.ins)
}

func (p *bpfProg) ret(k uint32) { p.stmt(unix.BPF_RET|unix.BPF_K, k) }

// load puts the 32-bit word at off in the seccomp data in the accumulator.
func (p *bpfProg) load(off uint32) { p.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, off) }

// assemble resolves the labels. Classic BPF only jumps forward, by at most
// 255 instructions for a conditional jump.
func (p *bpfProg) assemble() ([]unix.SockFilter, error) {
	out := append([]unix.SockFilter(nil), p.ins...)
	for _, j := range p.jumps {
		jt, err := p.offset(j.at, j.jt)
		if err != nil {
			return nil, err
		}
		jf, err := p.offset(j.at, j.jf)
		if err != nil {
			return nil, err
		}
		if out[j.at].Code&0xf0 == unix.BPF_JA {
			out[j.at].K = uint32(jt)
			continue
		}
		if jt > 255 || jf > 255 {
			return nil, fmt.Errorf("bpf: jump from %d too far", j.at)
		}
		out[j.at].Jt, out[j.at].Jf = uint8(jt), uint8(jf)
	}
	return out, nil
}

func (p *bpfProg) offset(from int, label string) (int, error) {
	if label == "" {
		return 0, nil
	}
	to, ok := p.labels[label]
	if !ok || to <= from {
		return 0, fmt.Errorf("bpf: no label %q after %d", label, from)
	}
	return to - from - 1, nil
}
