package session

import (
	"fmt"
	"strings"

	"github.com/termhelper/termhelper/cleaner"
	"github.com/termhelper/termhelper/mask"
	"github.com/termhelper/termhelper/spill"
)

// stream is one output stream of a session: its masker, its cleaner, the
// spill file behind it, and the raw text not yet sent to a host that
// streams output. Secrets are masked in the raw bytes, before anything
// else sees them, so the answers, the spill file, the prompt, the screen
// and the notifications all get the masked text.
type stream struct {
	name  string
	mask  *mask.Masker
	clean *cleaner.Cleaner
	spill *spill.Lazy
	raw   cleaner.UTF8Stream
	fresh strings.Builder // raw text for session/output, not yet sent
	path  string          // the spill file, once anything was cut
	// dropped is what the spill file's cap had dropped at the last take.
	dropped int64
}

func newStream(name, prefix string, opts cleaner.Options, secrets []string) *stream {
	s := &stream{name: name, spill: spill.NewFile(prefix), mask: mask.New(secrets)}
	opts.Spill = s.spill.Open
	s.clean = cleaner.New(opts)
	return s
}

func (s *stream) write(p []byte, keepRaw bool) {
	s.pass(s.mask.Write(p), keepRaw)
}

// end passes on what the masker held back: the stream has ended.
func (s *stream) end(keepRaw bool) {
	s.pass(s.mask.Flush(), keepRaw)
}

func (s *stream) pass(p []byte, keepRaw bool) {
	if len(p) == 0 {
		return
	}
	s.clean.Write(p)
	if keepRaw {
		s.fresh.WriteString(s.raw.Decode(p))
	}
}

// take returns the cleaned text since the last take, with a line saying
// so when the spill file has dropped output since.
func (s *stream) take(final bool) cleaner.Chunk {
	c := s.clean.Take(final)
	if c.FullOutputPath != "" {
		s.path = c.FullOutputPath
	}
	if d := s.spill.Dropped(); d > s.dropped {
		s.dropped = d
		c.Text += capNote(c.Text, d)
		c.Truncated = true
	}
	return c
}

// capNote tells the reader of an answer that the full output file is no
// longer whole.
func capNote(text string, dropped int64) string {
	note := fmt.Sprintf("[... the full output file is capped: it keeps the start and the newest output; %d bytes between them were dropped ...]\n", dropped)
	if text != "" && !strings.HasSuffix(text, "\n") {
		note = "\n" + note
	}
	return note
}

// takeRaw returns the raw text gathered for session/output.
func (s *stream) takeRaw() string {
	t := s.fresh.String()
	s.fresh.Reset()
	return t
}

func (s *stream) close() {
	s.spill.Close()
}

// closeStreamsLocked releases the spill files; it is safe to repeat.
func (s *Session) closeStreamsLocked() {
	s.out.close()
	if s.errOut != nil {
		s.errOut.close()
	}
}

// endStreamsLocked ends the streams at the command's end: the history
// then holds every line, whether or not an answer takes them.
func (s *Session) endStreamsLocked() {
	s.out.clean.End()
	if s.errOut != nil {
		s.errOut.clean.End()
	}
}

// spillAll opens the streams' spill files before the history lets its
// first line go, so that the spill files hold everything it no longer
// does. It runs within the cleaner's OnEmit, under the session's lock.
func (s *Session) spillAll() {
	s.out.clean.Spill()
	if s.errOut != nil {
		s.errOut.clean.Spill()
	}
}

// publishLocked puts the lines the terminal shows now into the history,
// unless it shows a page (a page is not lines: session/screen shows it).
func (s *Session) publishLocked() {
	if s.state == Exited {
		return
	}
	if !s.showsPageLocked() {
		s.out.clean.Publish()
	}
	if s.errOut != nil {
		s.errOut.clean.Publish()
	}
}

// livePendingLocked reports whether publishLocked would add anything.
func (s *Session) livePendingLocked() bool {
	if s.errOut != nil && s.errOut.clean.LivePending() {
		return true
	}
	return !s.showsPageLocked() && s.out.clean.LivePending()
}
