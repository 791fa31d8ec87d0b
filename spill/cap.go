package spill

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// A command that prints for ever (a background `cat /dev/urandom`, a
// chatty server left on for days) must not fill the disk: a spill file
// holds at most MaxBytes. It keeps the first HeadBytes, where a failure to
// start shows, and the newest output, where the command stands now;
// between them one marker line says how much was dropped. Past the cap the
// file is rewritten aside and renamed over its path, so a host reading it
// always reads a whole file.
const (
	MaxBytes  = 64 << 20
	HeadBytes = 16 << 20
)

// markerRoom is room enough for the marker line.
const markerRoom = 200

// cutSearch is how far a cut looks for a line's end before it settles for
// a character's.
const cutSearch = 64 << 10

// capped is a spill file's size bookkeeping.
type capped struct {
	max, head int64 // MaxBytes and HeadBytes, smaller in tests
	size      int64 // bytes in the file
	headEnd   int64 // the head's length once the first cut is made, else 0
	markerLen int64
	dropped   int64 // bytes of output dropped in all
}

// Write appends p to the file, making room first whenever the next piece
// of it would take the file past the cap.
func (l *Lazy) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return 0, os.ErrClosed
	}
	c, done := &l.capped, 0
	piece := max(1, (c.max-c.head)/4)
	for done < len(p) {
		n := int(min(int64(len(p)-done), piece))
		if c.size+int64(n) > c.max {
			if err := l.makeRoom(); err != nil {
				return done, err
			}
		}
		n, err := l.f.Write(p[done : done+n])
		c.size += int64(n)
		done += n
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// SetCap sets the most bytes the file holds and how many of its first
// ones it keeps (MaxBytes and HeadBytes unless set); head is at most half
// of max.
func (l *Lazy) SetCap(max, head int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.capped.max, l.capped.head = max, min(head, max/2)
}

// Dropped is how many bytes of output the cap has dropped so far.
func (l *Lazy) Dropped() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.capped.dropped
}

// makeRoom rewrites the file as its head, the marker, and the newest
// half of what the cap leaves for the rest, cut at a line's start.
func (l *Lazy) makeRoom() error {
	c := &l.capped
	old := l.f
	headEnd := c.headEnd
	if headEnd == 0 {
		headEnd = cutPoint(old, min(c.head, c.size), false)
	}
	restStart := headEnd + c.markerLen
	keep := max(0, c.max-headEnd-markerRoom) / 2
	tailStart := cutPoint(old, max(restStart, c.size-keep), true)
	dropped := c.dropped + tailStart - restStart
	marker := fmt.Sprintf("[... %d bytes of output dropped here: a spill file keeps its first %d bytes and its newest output, %d bytes in all ...]\n",
		dropped, c.head, c.max)
	if !endsLine(old, headEnd) {
		marker = "\n" + marker
	}
	nf, err := l.rewrite(old, headEnd, marker, tailStart)
	if err != nil {
		return err
	}
	old.Close()
	l.f = nf
	c.headEnd, c.markerLen, c.dropped = headEnd, int64(len(marker)), dropped
	c.size = headEnd + c.markerLen + (c.size - tailStart)
	return nil
}

// rewrite copies old's head, the marker and old's tail to a new file in
// the same folder, renames it over the spill's path, and returns it open
// to go on writing.
func (l *Lazy) rewrite(old *os.File, headEnd int64, marker string, tailStart int64) (*os.File, error) {
	nf, err := os.CreateTemp(filepath.Dir(l.path), "."+filepath.Base(l.path)+"-*")
	if err != nil {
		return nil, fmt.Errorf("spill file: %w", err)
	}
	_, err1 := io.Copy(nf, io.NewSectionReader(old, 0, headEnd))
	_, err2 := io.WriteString(nf, marker)
	_, err3 := io.Copy(nf, io.NewSectionReader(old, tailStart, l.capped.size-tailStart))
	err = firstOf(err1, err2, err3, nf.Close())
	var f *os.File
	if err == nil {
		f, err = l.replace(old, nf.Name())
	}
	if err != nil {
		os.Remove(nf.Name())
		return nil, fmt.Errorf("spill file: %w", err)
	}
	return f, nil
}

// replace renames tmp over the spill's path and opens the result. Windows
// renames neither a file that is open nor over one, so both are closed
// first; should the rename fail, the old file is opened again as l.f, so
// that the spill goes on as it was.
func (l *Lazy) replace(old *os.File, tmp string) (*os.File, error) {
	old.Close()
	err := os.Rename(tmp, l.path)
	f, oerr := os.OpenFile(l.path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		if oerr == nil {
			l.f = f
		}
		return nil, err
	}
	return f, oerr
}

// cutPoint moves at to a line's start: after the last newline before it
// (after the first one from it, when forward), within cutSearch; else to
// the start of a character.
func cutPoint(f *os.File, at int64, forward bool) int64 {
	from := max(0, at-cutSearch)
	if forward {
		from = at
	}
	buf := make([]byte, at-from+cutSearch)
	n, _ := f.ReadAt(buf, from)
	buf = buf[:n]
	rel := int(at - from)
	if forward {
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			return from + int64(i) + 1
		}
		for rel < len(buf) && !utf8.RuneStart(buf[rel]) {
			rel++
		}
		return from + int64(rel)
	}
	if i := bytes.LastIndexByte(buf[:min(rel, len(buf))], '\n'); i >= 0 {
		return from + int64(i) + 1
	}
	for rel > 0 && rel < len(buf) && !utf8.RuneStart(buf[rel]) {
		rel--
	}
	return from + int64(rel)
}

// endsLine reports whether the file's first n bytes end with a newline
// (or are none).
func endsLine(f *os.File, n int64) bool {
	if n == 0 {
		return true
	}
	b := []byte{0}
	f.ReadAt(b, n-1)
	return b[0] == '\n'
}

func firstOf(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
