package session

import (
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/termhelper/termhelper/cleaner"
	"github.com/termhelper/termhelper/platform"
)

// Config holds the manager's limits.
type Config struct {
	MaxSessions int           // live sessions at once (64)
	Linger      time.Duration // how long a finished session stays readable (10 min)
	Grace       time.Duration // from the polite signal to SIGKILL (2 s)
	QuietPrompt time.Duration // quiet time before a prompt-like line counts as waiting where the OS cannot tell (3 s)
	Cleaner     cleaner.Options
	// History is how much of each session's output is kept in memory for
	// reads from a cursor, at least (1 MiB).
	History int
	Log     *slog.Logger // nil: discard
}

func (c *Config) fill() {
	if c.MaxSessions <= 0 {
		c.MaxSessions = 64
	}
	if c.Linger <= 0 {
		c.Linger = 10 * time.Minute
	}
	if c.Grace <= 0 {
		c.Grace = 2 * time.Second
	}
	if c.QuietPrompt <= 0 {
		c.QuietPrompt = 3 * time.Second
	}
	if c.Cleaner.MaxStreamChars <= 0 {
		c.Cleaner.MaxStreamChars = 16000 // the cleaner's own default, which reads from a cursor hold to
	}
	if c.History <= 0 {
		c.History = historyKeep
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
}

// Manager owns every session of one helper.
type Manager struct {
	cfg          Config
	log          *slog.Logger
	notify       Notifier
	streamOutput atomic.Bool
	tagBase      string

	mu       sync.Mutex
	sessions map[string]*Session
	next     int
	starting int // slots reserved by starts under way
	closed   bool
	wg       sync.WaitGroup
	// lingering holds the timers that forget finished sessions; Close
	// stops them.
	lingering map[string]*time.Timer

	stateFile string // where this helper records its commands ("" : nowhere)
	saveMu    sync.Mutex
	dirty     chan struct{}
	stopSaver chan struct{}
	saverDone chan struct{}
	stopOnce  sync.Once
}

// NewManager returns a manager; n receives the notifications.
func NewManager(cfg Config, n Notifier) *Manager {
	cfg.fill()
	return &Manager{cfg: cfg, log: cfg.Log, notify: n, sessions: map[string]*Session{}, lingering: map[string]*time.Timer{},
		tagBase: fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano()),
		dirty:   make(chan struct{}, 1), stopSaver: make(chan struct{}), saverDone: make(chan struct{})}
}

// StreamOutput turns session/output notifications on or off.
func (m *Manager) StreamOutput(on bool) { m.streamOutput.Store(on) }

// Start starts a command and returns its session. The fork and exec
// happen outside the manager's lock, in a slot reserved under it, so the
// session limit holds under concurrent starts while other calls go on.
func (m *Manager) Start(spec Spec) (*Session, error) {
	id, err := m.reserve()
	if err != nil {
		return nil, err
	}
	s := &Session{id: id, spec: spec, m: m, tag: m.tagBase + "-" + id,
		changed: make(chan struct{}), done: make(chan struct{}), state: Running}
	if spec.Background {
		s.state = Background
	}
	proc, err := s.start()
	if err != nil {
		m.release(nil)
		return nil, err
	}
	s.proc = proc
	s.setUp()
	if !m.admit(s) {
		m.release(proc)
		return nil, ErrClosed
	}
	s.run()
	m.markDirty()
	return s, nil
}

// start starts the session's process, with its watcher, if it has one.
func (s *Session) start() (*platform.Process, error) {
	ps := s.spec.Spec
	ps.Tag = s.tag
	if s.spec.Watch != nil {
		w, err := s.spec.Watch(s.id, &ps)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrStart, err)
		}
		s.watcher = w
	}
	proc, err := startProcess(ps)
	if err != nil {
		s.closeWatcher()
		return nil, fmt.Errorf("%w: %v", ErrStart, err)
	}
	return proc, nil
}

// reserve takes a slot for a session about to start, and its id. The
// slot counts as a live session, and as one Close waits for.
func (m *Manager) reserve() (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return "", ErrClosed
	}
	if m.liveLocked()+m.starting >= m.cfg.MaxSessions {
		return "", fmt.Errorf("%w (limit %d)", ErrTooMany, m.cfg.MaxSessions)
	}
	m.starting++
	m.wg.Add(1)
	m.next++
	return strconv.Itoa(m.next), nil
}

// admit turns a reserved slot into the started session, unless the
// manager closed meanwhile.
func (m *Manager) admit(s *Session) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false
	}
	m.starting--
	m.sessions[s.id] = s
	return true
}

// release gives a reserved slot back; a process started in it when the
// manager had closed meanwhile is ended first.
func (m *Manager) release(proc *platform.Process) {
	if proc != nil {
		proc.Kill(platform.SIGKILL, 0)
		proc.Wait()
		proc.Close()
	}
	m.mu.Lock()
	m.starting--
	m.mu.Unlock()
	m.wg.Done()
}

// setUp prepares a started session's streams.
func (s *Session) setUp() {
	s.started = time.Now()
	s.lastOutput, s.screenChanged = s.started, s.started
	prefix := "s" + s.id + "-" + strconv.FormatInt(s.started.UnixNano(), 36)
	opts := s.m.cfg.Cleaner
	if s.spec.PTY {
		// Programs that place the cursor by row count on the real height.
		opts.Cols, opts.Rows = s.spec.Cols, s.spec.Rows
	}
	s.addSecrets(s.spec.Mask)
	for _, values := range s.spec.MaskFiles {
		s.addSecrets(values)
	}
	if s.spec.ReadyPattern != nil || s.watcher != nil {
		opts.OnCommit = s.committedLine
	}
	s.hist = newHistory(s.m.cfg.History)
	s.hist.dropped = s.spillAll
	opts.SpillLong = true // what the history lets go is in the spill file
	opts.OnEmit = func(line string) { s.hist.add(line, false) }
	s.out = newStream("output", prefix+"-output", opts, s.secrets)
	if s.proc.Stderr != nil {
		opts.Cols = 0 // stderr kept apart is a pipe, even beside a terminal
		opts.OnEmit = func(line string) { s.hist.add(line, true) }
		s.errOut = newStream("stderr", prefix+"-stderr", opts, s.secrets)
	}
}

func (m *Manager) liveLocked() int {
	n := 0
	for _, s := range m.sessions {
		select {
		case <-s.done:
		default:
			n++
		}
	}
	return n
}

// Get returns a live or lingering session.
func (m *Manager) Get(id string) (*Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	return s, nil
}

// List describes every session the host knows of, oldest first, and every
// command still running in the foreground, whose call has not answered
// yet: listed with its id, a host can end it by id while it runs.
func (m *Manager) List() []Info {
	m.mu.Lock()
	all := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		all = append(all, s)
	}
	m.mu.Unlock()
	var out []Info
	for _, s := range all {
		s.mu.Lock()
		listed := s.handed || s.exit == nil
		s.mu.Unlock()
		if listed {
			out = append(out, s.Info())
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].StartedAt.Before(out[j].StartedAt) })
	return out
}

// finished is called by a session's reaper once it has ended.
func (m *Manager) finished(s *Session) {
	m.mu.Lock()
	if _, ok := m.sessions[s.id]; ok && !m.closed {
		m.lingering[s.id] = time.AfterFunc(m.cfg.Linger, func() { m.forget(s.id) })
	}
	m.mu.Unlock()
	m.markDirty()
	go func() {
		s.wg.Wait()
		m.wg.Done()
	}()
}

func (m *Manager) forget(id string) {
	m.mu.Lock()
	s := m.sessions[id]
	delete(m.sessions, id)
	if t := m.lingering[id]; t != nil {
		t.Stop()
		delete(m.lingering, id)
	}
	m.mu.Unlock()
	if s != nil {
		s.mu.Lock()
		s.closeStreamsLocked()
		s.mu.Unlock()
	}
}

// shutdownGrace is how long a command has between SIGTERM and SIGKILL
// when the helper itself is stopping: hosts wait little for a server they
// are quitting (Claude Code sends SIGINT, SIGTERM 100 ms later, then
// SIGKILL), and a tree still up when the helper is killed is left behind.
const shutdownGrace = 20 * time.Millisecond

// Close ends every session's process tree and waits for their goroutines.
// It is safe to call more than once.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	for id, t := range m.lingering {
		t.Stop()
		delete(m.lingering, id)
	}
	var live []*Session
	for _, s := range m.sessions {
		select {
		case <-s.done: // ended: its ids may be someone else's now
		default:
			live = append(live, s)
		}
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range live {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.proc.Kill(platform.SIGTERM, shutdownGrace)
		}()
	}
	wg.Wait()
	m.wg.Wait()
	// What a command left that kept nothing of it (no tag, no session)
	// is still the helper's child: it ends with the helper, and so does
	// the sandbox's spare.
	platform.DropSpare()
	platform.EndStrays()
	m.removeState()
}
