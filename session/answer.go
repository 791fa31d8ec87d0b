package session

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/termhelper/termhelper/sandbox"
)

// AnswerOpts says when an answer is due. The session's end is always one.
type AnswerOpts struct {
	Yield     time.Duration // answer alive after this long; 0: no limit
	OnOutput  bool          // answer as soon as there is new output
	UntilExit bool          // a prompt does not end the wait
	Now       bool          // answer with what there is, at once
	// Done ends the wait when closed (a cancelled request): the answer is
	// given as things stand, and the session goes on.
	Done <-chan struct{}
	// Stable answers once the rendered screen has not changed for this
	// long, as a person waits for a full-screen program to finish drawing.
	Stable time.Duration
	// UntilReady answers as soon as the command is ready (its ready line
	// or port); a Yield that passes first answers with Ready false.
	UntilReady bool
	// Cursor, if set, reads the history from this position instead of
	// taking the news since the last answer: nothing is consumed, and
	// OnOutput waits for output after it.
	Cursor *int64

	cancelled bool // Done was closed
}

// Answer waits until an answer is due and returns it: finished once the
// command has ended and its output is drained, alive otherwise.
func (s *Session) Answer(o AnswerOpts) Result {
	s.enterAnswer()
	defer s.leaveAnswer()
	var deadline <-chan time.Time
	if o.Yield > 0 {
		t := time.NewTimer(o.Yield)
		defer t.Stop()
		deadline = t.C
	}
	for {
		r, due, wake := s.answerIfDue(o)
		switch {
		case due:
			return s.withPorts(r)
		case wake.checkPort:
			s.checkPort()
		default:
			s.wait(wake, deadline, &o)
		}
	}
}

// wait blocks until something may have made the answer due.
func (s *Session) wait(w wakeups, deadline <-chan time.Time, o *AnswerOpts) {
	var after <-chan time.Time
	if w.after > 0 {
		t := time.NewTimer(w.after)
		defer t.Stop()
		after = t.C
	}
	select {
	case <-w.changed:
	case <-w.output:
	case <-after:
	case <-deadline:
		o.Now = true
	case <-o.Done:
		o.Now, o.Done, o.cancelled = true, nil, true
	}
}

// withPorts adds the listening ports to an alive answer about a server:
// the process table is read only when such an answer is given.
func (s *Session) withPorts(r Result) Result {
	if r.Exit == nil && (s.spec.Background || s.wantsReady()) {
		r.Ports = listeningPorts(s.proc)
	}
	return r
}

// wakeups are what an answer that is not yet due waits on.
type wakeups struct {
	changed <-chan struct{}
	output  <-chan struct{} // nil unless the answer wants output
	after   time.Duration   // a look again after this long; 0: none
	// checkPort: the ready port is due for a look, which the answer
	// takes outside the lock before it looks again.
	checkPort bool
}

// answerIfDue returns the answer if o makes one due now, else what to wait
// for. A finished session never handed to the host is forgotten once its
// answer is built; others linger for late reads.
func (s *Session) answerIfDue(o AnswerOpts) (Result, bool, wakeups) {
	s.mu.Lock()
	if s.state == Exited && o.Cursor != nil {
		r := s.summaryLocked()
		s.readLocked(&r, *o.Cursor)
		s.mu.Unlock()
		return r, true, wakeups{}
	}
	if s.state == Exited {
		r := s.finalAnswerLocked()
		handed := s.handed
		s.mu.Unlock()
		if !handed {
			s.m.forget(s.id)
		}
		return r, true, wakeups{}
	}
	defer s.mu.Unlock()
	w := wakeups{changed: s.changed}
	if s.timedOut && !o.cancelled {
		// Killed at its timeout: the answer is the end, which the kill
		// brings within the grace.
		return Result{}, false, w
	}
	if o.Now || s.aliveDueLocked(o, &w) {
		return s.aliveAnswerLocked(o.Cursor), true, wakeups{}
	}
	if o.OnOutput || o.Stable > 0 {
		if s.outputSeen == nil {
			s.outputSeen = make(chan struct{})
		}
		w.output = s.outputSeen
	}
	return Result{}, false, w
}

// aliveDueLocked reports whether a live session's answer is due now, and
// sets when to look again where time alone can make it due.
func (s *Session) aliveDueLocked(o AnswerOpts, w *wakeups) bool {
	switch {
	case !o.UntilExit && s.state == Waiting, o.OnOutput && s.pendingLocked(o.Cursor):
		return true
	case o.UntilReady:
		if s.spec.ReadyPort > 0 && !s.ready {
			w.after = portPoll
			w.checkPort = time.Since(s.portChecked) >= portPoll
		}
		return s.ready
	case o.Stable > 0:
		settled, left := s.settledLocked(o.Stable)
		w.after = left
		return settled
	}
	return false
}

// pendingLocked reports whether there is news since the last answer: on a
// page, any change to it. From a cursor, whether there is output after it.
func (s *Session) pendingLocked(cursor *int64) bool {
	if cursor != nil {
		return s.hist.end > *cursor || s.livePendingLocked()
	}
	if s.errOut != nil && s.errOut.clean.Pending() {
		return true
	}
	if s.showsPageLocked() {
		return s.out.clean.Generation() != s.answeredGen
	}
	return s.out.clean.Pending()
}

// aliveAnswerLocked builds an alive answer, with the news since the last
// one or, from a cursor, the history after it; the session is handed to
// the host from now on.
func (s *Session) aliveAnswerLocked(cursor *int64) Result {
	r := Result{ID: s.id, Pid: s.proc.Pid, State: s.visibleState()}
	switch {
	case cursor != nil:
		s.publishLocked()
		s.readLocked(&r, *cursor)
	default:
		s.takeLocked(&r, false)
		if s.spec.PTY {
			s.answeredGen = s.out.clean.Generation()
		}
	}
	if s.wantsReady() {
		ready := s.ready
		r.Ready = &ready
	}
	if s.prompt != nil {
		p := *s.prompt
		r.Prompt = &p
	}
	s.handed = true
	s.lastCall = time.Now()
	if s.spec.Timeout > 0 {
		r.EndsIn, r.Renews = s.capEndLocked(s.lastCall).Sub(s.lastCall), s.renewsLocked()
	}
	return r
}

// finalAnswerLocked builds the finished answer. The final take flushes
// everything, so the spill files are released.
func (s *Session) finalAnswerLocked() Result {
	r := s.summaryLocked()
	s.takeLocked(&r, true)
	s.closeStreamsLocked()
	r.Denied = s.deniedLocked()
	r.Masked = s.maskedLocked()
	if s.watcher != nil {
		r.Opened = s.watcher.Opened()
	}
	return r
}

// maskedLocked names the MaskFiles whose values the output held, sorted.
func (s *Session) maskedLocked() []string {
	var out []string
	for name, values := range s.spec.MaskFiles {
		if slices.ContainsFunc(values, s.seenLocked) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// seenLocked reports whether a stream masked secret.
func (s *Session) seenLocked(secret string) bool {
	for _, st := range []*stream{s.out, s.errOut} {
		if st != nil && st.mask.Seen(secret) {
			return true
		}
	}
	return false
}

// deniedLocked is what the sandbox refused the command: its process's
// own refusals, then the watcher's. It is read after the final take, so
// the watcher has seen every line.
func (s *Session) deniedLocked() []sandbox.Denial {
	d := s.proc.Denied()
	if s.watcher != nil {
		d = append(d, s.watcher.Denied()...)
	}
	return d
}

// readLocked reads the history from cursor into r, at most the stream
// cap in all.
func (s *Session) readLocked(r *Result, cursor int64) {
	sp := s.hist.read(cursor, s.m.cfg.Cleaner.MaxStreamChars)
	r.Output = s.scrub(sp.output.String())
	if s.errOut != nil {
		e := s.scrub(sp.stderr.String())
		r.Stderr = &e
	}
	r.Cursor, r.Skipped, r.More = sp.next, sp.skipped, sp.more
	r.FullOutputPath = s.out.clean.SpillPath()
	if r.FullOutputPath == "" && s.errOut != nil {
		r.FullOutputPath = s.errOut.clean.SpillPath()
	}
	r.Truncated = sp.skipped > 0
}

func (s *Session) takeLocked(r *Result, final bool) {
	defer func() { r.Cursor = s.hist.end }()
	c := s.takeOutputLocked(r, final)
	r.Output = s.scrub(c.Text)
	r.Truncated = c.Truncated
	r.FullOutputPath = s.out.path
	if s.errOut != nil {
		e := s.errOut.take(final)
		text := s.scrub(e.Text)
		r.Stderr = &text
		r.Truncated = r.Truncated || e.Truncated
		if r.FullOutputPath == "" {
			r.FullOutputPath = s.errOut.path
		}
	}
}

func (s *Session) summaryLocked() Result {
	return Result{ID: s.id, Pid: s.proc.Pid, State: Exited, Exit: s.exit, Cursor: s.hist.end,
		Duration: s.ended.Sub(s.started), TimedOut: s.timedOut, KilledBy: s.killedBy, Timeout: s.spec.Timeout,
		Renews: s.renewsLocked()}
}

func (s *Session) summaryResult() Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.summaryLocked()
}

// Summary is the one line for a tool-activity card: "exit 0 · 412ms",
// "timed out · 60000ms", "killed (SIGTERM) · 5.1s", followed by " · the
// output held values of .env, masked" when it did (Result.Masked).
func Summary(r Result) string { return summary(r) + maskedNote(r) }

func summary(r Result) string {
	switch {
	case r.Exit == nil:
		return string(r.State)
	case r.TimedOut && r.Renews:
		return fmt.Sprintf("timed out · %dms without a call", r.Timeout.Milliseconds())
	case r.TimedOut:
		return fmt.Sprintf("timed out · %dms", r.Timeout.Milliseconds())
	case r.KilledBy != "":
		return fmt.Sprintf("killed (%s) · %s", r.KilledBy, FormatDuration(r.Duration))
	case r.Exit.Signal != "":
		return fmt.Sprintf("exit %d (%s) · %s", r.Exit.Code, r.Exit.Signal, FormatDuration(r.Duration))
	}
	return fmt.Sprintf("exit %d · %s", r.Exit.Code, FormatDuration(r.Duration))
}

// maskedNote tells that the command opened the project's .env files, and
// that the output held their values, which the model sees as ********.
func maskedNote(r Result) string {
	note := ""
	if len(r.Opened) > 0 {
		note = " · read " + strings.Join(r.Opened, ", ")
	}
	if len(r.Masked) > 0 {
		note += " · the output held values of " + strings.Join(r.Masked, ", ") + ", masked"
	}
	return note
}

// FormatDuration writes 412ms, 1.3s or 2m5s.
func FormatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}
