package mask

import (
	"bytes"
	"encoding/binary"
)

// minFiltered is the shortest secret the filter finds; shorter ones are
// searched for one by one.
const minFiltered = 8

// gram is the width of the pieces of secrets the filter looks up.
const gram = 4

// filter finds every occurrence of many secrets in one pass over the
// input, whatever their number. An occurrence of a secret of at least
// shortest bytes spans at least one of the positions 0, stride, 2*stride,
// ...; at each such position the filter looks up the 4 bytes found there
// among all 4-byte pieces of the secrets (a bit set first, so most
// positions cost a load and a multiply), and checks the candidates whole.
type filter struct {
	secrets [][]byte
	stride  int
	bits    [1 << 16 / 64]uint64
	pieces  map[uint32][]piece
}

// piece is where a 4-byte piece sits in a secret.
type piece struct{ secret, off int }

func newFilter(secrets [][]byte) *filter {
	f := &filter{secrets: secrets, pieces: map[uint32][]piece{}}
	shortest := len(secrets[0])
	for i, s := range secrets {
		shortest = min(shortest, len(s))
		for off := 0; off+gram <= len(s); off++ {
			g := binary.LittleEndian.Uint32(s[off:])
			f.pieces[g] = append(f.pieces[g], piece{i, off})
			h := hash(g)
			f.bits[h/64] |= 1 << (h % 64)
		}
	}
	f.stride = shortest - gram + 1
	return f
}

func hash(g uint32) uint32 { return g * 0x9E3779B1 >> 16 }

// find appends every occurrence in buf to spans; one occurrence may be
// appended more than once.
func (f *filter) find(buf []byte, spans []span) []span {
	for p := 0; p+gram <= len(buf); p += f.stride {
		g := binary.LittleEndian.Uint32(buf[p:])
		if h := hash(g); f.bits[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		for _, c := range f.pieces[g] {
			s := f.secrets[c.secret]
			i := p - c.off
			if i >= 0 && i+len(s) <= len(buf) && bytes.Equal(buf[i:i+len(s)], s) {
				spans = append(spans, span{i, i + len(s), c.secret})
			}
		}
	}
	return spans
}
