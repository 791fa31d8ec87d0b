package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/termhelper/termhelper/mask"
	"github.com/termhelper/termhelper/platform"
)

// How long the answer waits, after the command's own process ended, for
// the terminal to drain before descendants still holding it are ended.
const drainDeadline = 150 * time.Millisecond

// inputDeadline bounds a write to a command that does not read its input.
const inputDeadline = 10 * time.Second

// quietBeforeCheck is how long output must pause before a look for a
// blocked read: a command printing right now is not blocked on input.
const quietBeforeCheck = 20 * time.Millisecond

// pollInterval paces the check of whether a command is blocked on input.
const pollInterval = 50 * time.Millisecond

// Session is one command and its process tree.
type Session struct {
	id      string
	spec    Spec
	m       *Manager
	proc    *platform.Process
	started time.Time
	tag     string
	watcher Watcher // nil: none

	mu      sync.Mutex
	changed chan struct{} // closed and replaced at every change of state
	// outputSeen is closed at the next output; it exists only while a
	// waiter wants output, so a chunk read wakes nobody who does not.
	outputSeen chan struct{}
	out        *stream
	errOut     *stream // nil when stderr is merged into out
	hist       *history
	state      State
	prompt     *Prompt
	exit       *platform.Exit
	ended      time.Time
	timedOut   bool
	killedBy   string
	secrets    []string
	// ending: the command's own process has ended or is being killed. A
	// terminal read then as unknown, its quiet and its last line are no
	// sign of a prompt: nothing can be waiting any more.
	ending    bool
	handed    bool      // an alive answer named this session to the host
	lastCall  time.Time // the last start, alive answer or end of a call on it
	lastWrite time.Time
	// runsAtWrite is what the platform counted of the runs of the
	// processes waiting when the last input was written (0: unknown).
	runsAtWrite uint64
	lastOutput  time.Time
	// rawSince is when the command was first seen reading keys in raw
	// mode, with all it had printed read, since the terminal was last in
	// line mode or got input: a program that reads keys stays in raw mode,
	// though the kernel shows it blocked only between events.
	rawSince time.Time
	// blockedSeen: the last look saw the command blocked on a read. What
	// it wrote just before that read may still have been on its way to the
	// screen (in the terminal's buffers, or read and not yet taken in),
	// so waiting, and the prompt, are taken at the next look that sees it
	// blocked still.
	blockedSeen bool

	screenGen     uint64    // the cleaner's generation at the last look
	answeredGen   uint64    // the cleaner's generation at the last alive answer
	screenChanged time.Time // when the rendered screen last changed
	ready         bool      // the ready pattern matched, or the port accepted
	portChecked   time.Time // the last look at the ready port

	answering   int            // Answer calls under way
	answersOut  chan struct{}  // closed when the last of them returns
	done        chan struct{}  // closed once exited and drained
	monitorDone chan struct{}  // closed when the monitor has returned
	readers     atomic.Int32   // output readers still reading
	waited      atomic.Bool    // the command's own process has ended
	inflight    atomic.Int32   // chunks read from the command, not yet taken in
	drained     chan struct{}  // closed by the last reader to finish
	wg          sync.WaitGroup // every goroutine of the session
}

// ID is the session's id.
func (s *Session) ID() string { return s.id }

func (s *Session) broadcast() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Session) run() {
	s.drained = make(chan struct{})
	s.monitorDone = make(chan struct{})
	s.readers.Store(1)
	if s.errOut != nil {
		s.readers.Store(2)
	}
	s.wg.Add(4) // reader, reaper, monitor, initial input
	go s.read(s.out, s.proc.Output)
	if s.errOut != nil {
		s.wg.Add(1)
		go s.read(s.errOut, s.proc.Stderr)
	}
	go s.reap()
	go s.monitor()
	go s.writeInitial()
}

// writeInitial writes the command's initial input (Spec.Stdin). A command
// that ends without reading all of it is not worth more than a debug line.
func (s *Session) writeInitial() {
	defer s.wg.Done()
	err := s.proc.WriteInitial()
	if err == nil {
		return
	}
	level := slog.LevelWarn
	if errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.EIO) {
		level = slog.LevelDebug
	}
	s.m.log.Log(context.Background(), level, "initial input not written", "session", s.id, "err", err)
}

func (s *Session) read(st *stream, r io.Reader) {
	defer s.wg.Done()
	defer func() {
		if s.readers.Add(-1) == 0 {
			close(s.drained)
		}
	}()
	buf := make([]byte, 32*1024)
	var total int64
	for {
		n, err := r.Read(buf)
		if n > 0 {
			total += int64(n)
			s.takeIn(st, buf[:n])
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			total += s.readLeft(st, r, buf)
		}
		if err != nil {
			s.m.log.Debug("output ended", "session", s.id, "stream", st.name, "bytes", total,
				"err", err, "processEnded", s.waited.Load())
			s.mu.Lock()
			st.end(s.m.streamOutput.Load())
			s.mu.Unlock()
			return
		}
	}
}

// readLeft takes in what the stream held when the reaper stopped the
// reads (see reap), up to a cap: a stranger still writing to the
// terminal does not keep the reader.
func (s *Session) readLeft(st *stream, r io.Reader, buf []byte) int64 {
	var total int64
	for total < readLeftCap {
		n := s.proc.ReadLeft(r, buf)
		if n == 0 {
			break
		}
		total += int64(n)
		s.takeIn(st, buf[:n])
	}
	return total
}

// readLeftCap is the most readLeft takes in.
const readLeftCap = 1 << 20

// takeIn passes a chunk the command wrote to its stream.
func (s *Session) takeIn(st *stream, p []byte) {
	s.inflight.Add(1)
	defer s.inflight.Add(-1)
	s.mu.Lock()
	defer s.mu.Unlock()
	st.write(p, s.m.streamOutput.Load())
	s.observeLocked(st)
	s.lastOutput = time.Now()
	if s.outputSeen != nil {
		close(s.outputSeen)
		s.outputSeen = nil
	}
}

// reap waits for the command's process, drains its output, ends whatever
// of its tree is left, and publishes the exit.
func (s *Session) reap() {
	defer s.wg.Done()
	exit, _ := s.proc.Wait()
	end := time.Now()
	s.waited.Store(true)
	s.m.log.Debug("process ended", "session", s.id, "pid", s.proc.Pid, "exit", exit.Code, "signal", exit.Signal)
	s.endLiveState()
	if !s.drain() {
		// A descendant keeps the terminal open: end the tree so the
		// terminal closes and the reads return what was buffered.
		s.proc.Kill(platform.SIGTERM, 100*time.Millisecond)
		if !s.waitDrained(500 * time.Millisecond) {
			s.proc.StopReading()
			<-s.drained
		}
	}
	s.mu.Lock()
	s.endStreamsLocked()
	s.exit = &exit
	s.ended = end
	s.state = Exited
	s.prompt = nil
	close(s.done)
	s.broadcast()
	handed := s.handed
	answered := s.answersOutLocked()
	s.mu.Unlock()
	// The answers waiting for this exit are built before the bookkeeping.
	<-answered
	s.proc.Close()
	// The monitor may be telling the host the session waits: that comes
	// first, then the last output, then the exit.
	<-s.monitorDone
	s.flushRaw()
	if handed {
		s.m.notify.Exited(s.id, s.summaryResult())
	}
	// Descendants that let go of the terminal (daemons) end with it, after
	// the answer: finding them takes a walk of the process table.
	if s.proc.Alive() {
		s.proc.Kill(platform.SIGTERM, s.m.cfg.Grace)
	}
	s.closeWatcher()
	s.m.finished(s)
}

// enterAnswer and leaveAnswer count the Answer calls under way: the
// reaper's bookkeeping waits for them, and a renewing cap neither runs
// out while one waits nor counts from before its end.
func (s *Session) enterAnswer() {
	s.mu.Lock()
	s.answering++
	s.lastCall = time.Now()
	s.mu.Unlock()
}

func (s *Session) leaveAnswer() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastCall = time.Now()
	if s.answering--; s.answering == 0 && s.answersOut != nil {
		close(s.answersOut)
		s.answersOut = nil
	}
}

// answersOutLocked is closed once the Answer calls under way now have
// returned. Each returns at once when the session has ended.
func (s *Session) answersOutLocked() <-chan struct{} {
	if s.answering == 0 {
		return closedChan
	}
	s.answersOut = make(chan struct{})
	return s.answersOut
}

var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// closeWatcher closes the watcher once nothing of the tree can use it.
func (s *Session) closeWatcher() {
	if s.watcher != nil {
		s.watcher.Close()
	}
}

func (s *Session) drain() bool {
	return s.waitDrained(drainDeadline)
}

// waitDrained waits up to d for the readers to reach the end of output.
func (s *Session) waitDrained(d time.Duration) bool {
	select {
	case <-s.drained:
		return true // the usual case: no timer needed
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.drained:
		return true
	case <-t.C:
		return false
	}
}

// monitor enforces the lifetime cap, watches for a blocked input read and
// paces session/output notifications.
func (s *Session) monitor() {
	defer s.wg.Done()
	defer close(s.monitorDone)
	var timeout <-chan time.Time
	var capTimer *time.Timer
	if s.spec.Timeout > 0 {
		capTimer = time.NewTimer(s.spec.Timeout)
		defer capTimer.Stop()
		timeout = capTimer.C
	}
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for n := 0; ; n++ {
		select {
		case <-s.done:
			return
		case <-timeout:
			s.mu.Lock()
			left := time.Until(s.capEndLocked(time.Now()))
			s.timedOut = left <= 0
			s.mu.Unlock()
			if left > 0 {
				capTimer.Reset(left)
				continue
			}
			s.endLiveState()
			s.proc.Kill(platform.SIGTERM, s.m.cfg.Grace)
		case <-tick.C:
			if s.inputCheckDue(n) {
				s.checkInput()
			}
			s.flushRaw()
		}
	}
}

// capEndLocked is when the lifetime cap ends the command: Timeout after
// its start, or, for a renewing cap once the command was handed to the
// host, after the last call on it if that is later, and never while a
// call waits on it (a host waiting for its end is not gone).
func (s *Session) capEndLocked(now time.Time) time.Time {
	end := s.started.Add(s.spec.Timeout)
	switch {
	case !s.renewsLocked():
	case s.answering > 0:
		end = later(end, now.Add(s.spec.Timeout))
	default:
		end = later(end, s.lastCall.Add(s.spec.Timeout))
	}
	return end
}

func (s *Session) renewsLocked() bool { return s.spec.TimeoutRenews && s.handed }

// inputCheckDue paces the input check: not while output is flowing (a
// program that prints is not blocked on input), and only every fourth tick
// after a second of quiet; a prompt's own text restores the full pace.
// A waiting session is always checked, to see it resume.
func (s *Session) inputCheckDue(tick int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	quiet := time.Since(s.lastOutput)
	switch {
	case s.state == Waiting || !s.spec.PTY:
		return s.spec.PTY
	case quiet < quietBeforeCheck:
		return false
	case s.blockedSeen:
		return true // the look that confirms a read comes at the next tick
	case quiet > time.Second:
		return tick%4 == 0
	}
	return true
}

// checkInput updates the waiting state from the platform, or where it
// cannot tell, from a quiet terminal showing a prompt-like line. The host
// hears of a new prompt from here, on the monitor's own goroutine, so that
// it always hears of it before the exit (see reap).
func (s *Session) checkInput() {
	if !s.spec.PTY {
		return
	}
	in := s.proc.InputState()
	if in.Unread || s.inflight.Load() > 0 {
		// Output not read, or read but not taken in yet: the prompt or
		// page it ends with is not on the screen an answer would show.
		// Nothing changes until the next look.
		return
	}
	if p := s.updateWaiting(in); p != nil {
		s.m.notify.Waiting(s.id, *p)
	}
}

// updateWaiting applies what the platform saw and returns the prompt the
// host must be told of, if any.
func (s *Session) updateWaiting(in platform.InputState) *Prompt {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == Exited || s.ending {
		return nil
	}
	now := time.Now()
	waiting := s.waitingLocked(in, now)
	if waiting && s.inputUntakenLocked(in, now) {
		s.blockedSeen = false
		return nil
	}
	was := s.state == Waiting
	switch {
	case waiting && !was:
		if !s.blockedSeen {
			s.blockedSeen = true
			return nil
		}
		s.blockedSeen = false
		s.state = Waiting
		s.prompt = &Prompt{Text: s.scrub(s.out.clean.LastLine()), Secret: in.Secret}
		s.broadcast()
		if s.handed {
			p := *s.prompt
			return &p
		}
	case !waiting:
		s.blockedSeen = false
		if was {
			s.state = s.liveState()
			s.prompt = nil
			s.broadcast()
		}
	}
	return nil
}

// inputUntakenLocked tells that the read seen may be the one the last
// input was written to, before the command has woken to take it: where
// the platform counts runs, none since the write (up to untakenWait: a
// part of a line wakes no line-mode read); elsewhere for a poll after it.
func (s *Session) inputUntakenLocked(in platform.InputState, now time.Time) bool {
	since := now.Sub(s.lastWrite)
	if in.Runs == 0 || s.runsAtWrite == 0 {
		return since < pollInterval
	}
	return in.Runs == s.runsAtWrite && since < untakenWait
}

// untakenWait bounds how long input written to a read that has not run
// since keeps the command from counting as waiting again.
const untakenWait = time.Second

// endLiveState records that the command is ending (killed, timed out, or
// its own process gone): a prompt it showed is no longer waiting.
func (s *Session) endLiveState() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ending = true
	if s.state == Waiting {
		s.state = s.liveState()
		s.prompt = nil
		s.broadcast()
	}
}

// waitingLocked decides whether the command waits for a person, from what
// the platform saw at now; where the platform cannot tell, from a quiet
// terminal showing a prompt-like line.
func (s *Session) waitingLocked(in platform.InputState, now time.Time) bool {
	if !in.Known {
		return now.Sub(s.lastOutput) >= s.m.cfg.QuietPrompt && LooksLikePrompt(s.out.clean.LastLine())
	}
	switch {
	case !in.Raw:
		s.rawSince = time.Time{}
	case in.Waiting && s.rawSince.IsZero():
		s.rawSince = now
	}
	if !in.Waiting || !s.spec.Background || !in.Raw {
		return in.Waiting
	}
	// A server reading keys in raw mode may be listening for shortcuts.
	r := rawRead{line: s.out.clean.LastLine(), printed: s.lastOutput.After(s.rawSince),
		quiet: now.Sub(later(s.rawSince, s.lastOutput))}
	return r.question(s.m.cfg.QuietPrompt)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func (s *Session) liveState() State {
	if s.spec.Background {
		return Background
	}
	return Running
}

// LooksLikePrompt tells whether a line ends the way prompts do; it is only
// used where the platform cannot see a blocked read.
func LooksLikePrompt(line string) bool {
	line = strings.TrimRight(line, " \t")
	if line == "" {
		return false
	}
	lower := strings.ToLower(line)
	for _, s := range []string{"[y/n]", "(y/n)", "[yes/no]", "(yes/no)", "password", "passphrase"} {
		if strings.Contains(lower, s) {
			return true
		}
	}
	switch line[len(line)-1] {
	case ':', '?', '>', '$', '#', ']', ')':
		return true
	}
	return false
}

func (s *Session) flushRaw() {
	if !s.m.streamOutput.Load() {
		return
	}
	s.mu.Lock()
	var sends [][2]string
	for _, st := range []*stream{s.out, s.errOut} {
		if st == nil {
			continue
		}
		if t := st.takeRaw(); t != "" {
			sends = append(sends, [2]string{st.name, s.scrub(t)})
		}
	}
	s.mu.Unlock()
	for _, x := range sends {
		s.m.notify.Output(s.id, x[0], x[1])
	}
}

// scrub removes secrets from cleaned text going back to the host: the
// masker on the raw bytes cannot see a secret that escape sequences split.
func (s *Session) scrub(t string) string {
	for _, sec := range s.secrets {
		t = strings.ReplaceAll(t, sec, mask.Replacement)
	}
	return t
}

// addSecrets masks secrets from now on, in every stream. On a terminal a
// newline comes out as CR LF, so a secret with a newline is masked in
// both forms.
func (s *Session) addSecrets(secrets []string) {
	for _, sec := range secrets {
		forms := []string{sec}
		if s.spec.PTY && strings.Contains(sec, "\n") {
			forms = append(forms, strings.ReplaceAll(sec, "\n", "\r\n"))
		}
		for _, f := range forms {
			s.secrets = append(s.secrets, f)
			for _, st := range []*stream{s.out, s.errOut} {
				if st != nil {
					st.mask.Add(f)
				}
			}
		}
	}
}

// Write sends input to the command. A secret input is never logged and is
// scrubbed from any output sent back.
func (s *Session) Write(input string, secret bool) error {
	var runs uint64
	if s.spec.PTY {
		runs = s.proc.InputState().Runs // before the input can wake a read
	}
	s.mu.Lock()
	if s.state == Exited {
		s.mu.Unlock()
		return ErrFinished
	}
	if s.proc.Input == nil {
		s.mu.Unlock()
		return ErrNoTerminal
	}
	if secret {
		if sec := strings.TrimRight(input, "\r\n"); len(sec) >= 3 {
			s.addSecrets([]string{sec})
		}
	}
	s.lastWrite, s.runsAtWrite = time.Now(), runs
	s.rawSince = time.Time{} // what it prints next answers the input
	if s.state == Waiting {
		// Answered: a prompt from now on is a new one.
		s.state = s.liveState()
		s.prompt = nil
	}
	s.mu.Unlock()
	if f, ok := s.proc.Input.(interface{ SetWriteDeadline(time.Time) error }); ok {
		// A command that never reads must not hold the request forever.
		f.SetWriteDeadline(time.Now().Add(inputDeadline))
	}
	if _, err := io.WriteString(s.proc.Input, input); err != nil {
		return fmt.Errorf("%w: %v", ErrInput, err)
	}
	return nil
}

// Resize sets the terminal size.
func (s *Session) Resize(cols, rows int) error {
	if !s.spec.PTY {
		return ErrNoTerminal
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == Exited {
		return ErrFinished
	}
	// The screen first, as a terminal emulator does: the program redraws
	// for the new size as soon as the terminal's SIGWINCH reaches it, and
	// what it draws must land on a screen of that size, not be cut to the
	// old one (the output reader waits for s.mu meanwhile).
	oldCols, oldRows := s.out.clean.Size()
	s.out.clean.Resize(cols, rows)
	if err := s.proc.Resize(cols, rows); err != nil {
		s.out.clean.Resize(oldCols, oldRows)
		return err
	}
	s.observeLocked(s.out)
	return nil
}

// Kill ends the whole tree (sig, then SIGKILL after grace) and returns the
// finished answer. A session that has already ended is not signalled
// again: its ids may belong to unrelated processes by now.
func (s *Session) Kill(sig platform.Signal, grace time.Duration) Result {
	s.mu.Lock()
	ended := s.state == Exited
	if !ended && s.killedBy == "" {
		s.killedBy = sig.String()
	}
	s.mu.Unlock()
	if !ended {
		s.endLiveState()
		s.proc.Kill(sig, grace)
	}
	<-s.done
	return s.Answer(AnswerOpts{})
}

// Cursor is the position after the output the session's history holds
// so far: a cursor past it was never given out.
func (s *Session) Cursor() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hist.end
}

// Command is the command line the session runs.
func (s *Session) Command() string { return s.spec.Command }

// Info describes the session for session/list. Its ports are listed
// outside the session's lock: that reads the process table (lsof on
// macOS), and the output reader must not wait for it.
func (s *Session) Info() Info {
	s.mu.Lock()
	s.publishLocked()
	in := Info{ID: s.id, Pid: s.proc.Pid, Command: s.spec.Command, Cwd: s.spec.Dir,
		State: s.visibleState(), StartedAt: s.started, Exit: s.exit, Cursor: s.hist.end}
	s.mu.Unlock()
	if in.State != Exited {
		in.Ports = listeningPorts(s.proc)
	}
	return in
}

func (s *Session) visibleState() State {
	if s.state == Exited || s.state == Waiting {
		return s.state
	}
	return s.liveState()
}
