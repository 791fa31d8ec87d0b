package cleaner

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// ErrUnknownEncoding is returned by [CheckEncoding] for a name that
// golang.org/x/text does not know.
var ErrUnknownEncoding = errors.New("unknown encoding")

// CheckEncoding reports whether name is usable as Options.Encoding. New
// falls back to UTF-8 for an unknown name, so callers validate first.
func CheckEncoding(name string) error {
	_, err := lookupEncoding(name)
	return err
}

// lookupEncoding returns nil for UTF-8. WHATWG names are tried first, then
// IANA names and aliases, which cover the DOS code pages such as cp437.
func lookupEncoding(name string) (encoding.Encoding, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	switch n {
	case "", "utf-8", "utf8":
		return nil, nil
	}
	if e, err := htmlindex.Get(n); err == nil {
		return e, nil
	}
	if e, err := ianaindex.IANA.Encoding(n); err == nil && e != nil {
		return e, nil
	}
	return nil, fmt.Errorf("%w: %q", ErrUnknownEncoding, name)
}

// utf16LE decodes a stream whose byte order mark was already consumed.
func utf16LE() transform.Transformer {
	return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewDecoder()
}

// xform runs a decoding transformer over a stream, carrying over input that
// ends inside a character.
type xform struct {
	t   transform.Transformer
	src []byte
	dst []byte
}

func newXform(t transform.Transformer) *xform {
	return &xform{t: t, dst: make([]byte, 16<<10)}
}

// run decodes p and hands complete UTF-8 to out.
func (x *xform) run(p []byte, eof bool, out func([]byte)) {
	x.src = append(x.src, p...)
	for len(x.src) > 0 {
		nDst, nSrc, err := x.t.Transform(x.dst, x.src, eof)
		if nDst > 0 {
			out(x.dst[:nDst])
		}
		x.src = x.src[:copy(x.src, x.src[nSrc:])]
		switch {
		case err == nil:
			return
		case errors.Is(err, transform.ErrShortDst) && (nDst > 0 || nSrc > 0):
		case errors.Is(err, transform.ErrShortSrc) && !eof:
			return
		default:
			// A decoder that cannot make progress: replace a byte and go on
			// rather than stall the stream.
			out([]byte(string(utf8.RuneError)))
			x.src = x.src[:copy(x.src, x.src[1:])]
		}
	}
}

// UTF8Stream turns chunks of bytes into valid UTF-8 text, carrying a
// character split across chunks over to the next call. Invalid bytes become
// U+FFFD, one per byte, so the result does not depend on where chunks split.
type UTF8Stream struct {
	pend [utf8.UTFMax]byte
	n    int
}

// Decode returns the text of p that is complete so far.
func (u *UTF8Stream) Decode(p []byte) string {
	b := make([]byte, 0, u.n+len(p))
	b = append(b, u.pend[:u.n]...)
	b = append(b, p...)
	end := incompleteTail(b)
	u.n = copy(u.pend[:], b[end:])
	return validString(b[:end])
}

// Flush returns what is still held, at the end of the stream.
func (u *UTF8Stream) Flush() string {
	s := validString(u.pend[:u.n])
	u.n = 0
	return s
}

// incompleteTail returns where a character that may still be completed by
// later bytes starts, or len(b).
func incompleteTail(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

// validString converts b, replacing each invalid byte with U+FFFD.
func validString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			sb.WriteRune(utf8.RuneError)
		} else {
			sb.Write(b[:n])
		}
		b = b[n:]
	}
	return sb.String()
}
