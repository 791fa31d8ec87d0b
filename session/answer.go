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
	// Done, when it closes, ends the wait as a deadline does: the caller
	// gave up (a cancelled request), the session goes on.
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
		s.mu.Lock()
		if s.state == Exited {
			return s.finishLocked()
		}
		if o.Now || (!o.UntilExit && s.state == Waiting) || (o.OnOutput && s.pendingLocked()) {
			return s.aliveLocked()
		}
		ch := s.changed
		var out chan struct{}
		if o.OnOutput {
			if s.outputSeen == nil {
				s.outputSeen = make(chan struct{})
			}
			out = s.outputSeen
		}
		s.mu.Unlock()
		select {
		case <-ch:
		case <-out:
		case <-deadline:
			o.Now = true
		case <-o.Done:
			o.Now = true
		}
	}
}

func (s *Session) pendingLocked() bool {
	return s.out.clean.Pending() || (s.errOut != nil && s.errOut.clean.Pending())
}

// aliveLocked builds an alive answer and unlocks.
func (s *Session) aliveLocked() Result {
	r := Result{ID: s.id, Pid: s.proc.Pid, State: s.visibleState()}
	s.takeLocked(&r, false)
	if s.prompt != nil {
		p := *s.prompt
		r.Prompt = &p
	}
	s.handed = true
	s.mu.Unlock()
	return r
}

// finishLocked builds the finished answer and unlocks. A session never
// handed to the host is forgotten at once; others linger for late reads.
func (s *Session) finishLocked() Result {
	r := s.summaryLocked()
	s.takeLocked(&r, true)
	s.closeStreamsLocked() // the final take flushed everything
	handed := s.handed
	s.mu.Unlock()
	if !handed {
		s.m.forget(s.id)
	}
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
