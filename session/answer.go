package session

import (
	"fmt"
	"time"
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
}

// Answer waits until an answer is due and returns it: finished once the
// command has ended and its output is drained, alive otherwise.
func (s *Session) Answer(o AnswerOpts) Result {
	var deadline <-chan time.Time
	if o.Yield > 0 {
		t := time.NewTimer(o.Yield)
		defer t.Stop()
		deadline = t.C
	}
	for {
		r, due, wake := s.answerIfDue(o)
		if due {
			return r
		}
		select {
		case <-wake.changed:
		case <-wake.output:
		case <-deadline:
			o.Now = true
		case <-o.Done:
			o.Now, o.Done = true, nil
		}
	}
}

// wakeups are the channels an answer that is not yet due waits on.
type wakeups struct {
	changed <-chan struct{}
	output  <-chan struct{} // nil unless the answer wants output
}

// answerIfDue returns the answer if o makes one due now, else what to wait
// for. A finished session never handed to the host is forgotten once its
// answer is built; others linger for late reads.
func (s *Session) answerIfDue(o AnswerOpts) (Result, bool, wakeups) {
	s.mu.Lock()
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
	if o.Now || (!o.UntilExit && s.state == Waiting) || (o.OnOutput && s.pendingLocked()) {
		return s.aliveAnswerLocked(), true, wakeups{}
	}
	w := wakeups{changed: s.changed}
	if o.OnOutput {
		if s.outputSeen == nil {
			s.outputSeen = make(chan struct{})
		}
		w.output = s.outputSeen
	}
	return Result{}, false, w
}

func (s *Session) pendingLocked() bool {
	return s.out.clean.Pending() || (s.errOut != nil && s.errOut.clean.Pending())
}

// aliveAnswerLocked builds an alive answer; the session is handed to the
// host from now on.
func (s *Session) aliveAnswerLocked() Result {
	r := Result{ID: s.id, Pid: s.proc.Pid, State: s.visibleState()}
	s.takeLocked(&r, false)
	if s.prompt != nil {
		p := *s.prompt
		r.Prompt = &p
	}
	s.handed = true
	return r
}

// finalAnswerLocked builds the finished answer. The final take flushes
// everything, so the spill files are released.
func (s *Session) finalAnswerLocked() Result {
	r := s.summaryLocked()
	s.takeLocked(&r, true)
	s.closeStreamsLocked()
	return r
}

func (s *Session) takeLocked(r *Result, final bool) {
	c := s.out.take(final)
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
	return Result{ID: s.id, Pid: s.proc.Pid, State: Exited, Exit: s.exit,
		Duration: s.ended.Sub(s.started), TimedOut: s.timedOut, KilledBy: s.killedBy, Timeout: s.spec.Timeout}
}

func (s *Session) summaryResult() Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.summaryLocked()
}

// Summary is the one line for a tool-activity card: "exit 0 · 412ms",
// "timed out · 60000ms", "killed (SIGTERM) · 5.1s".
func Summary(r Result) string {
	switch {
	case r.Exit == nil:
		return string(r.State)
	case r.TimedOut:
		return fmt.Sprintf("timed out · %dms", r.Timeout.Milliseconds())
	case r.KilledBy != "":
		return fmt.Sprintf("killed (%s) · %s", r.KilledBy, FormatDuration(r.Duration))
	case r.Exit.Signal != "":
		return fmt.Sprintf("exit %d (%s) · %s", r.Exit.Code, r.Exit.Signal, FormatDuration(r.Duration))
	}
	return fmt.Sprintf("exit %d · %s", r.Exit.Code, FormatDuration(r.Duration))
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
