//go:build linux

// Package e2e drives the built termhelper binary over its real protocol,
// with real processes and terminals.
package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "termhelper-e2e")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "termhelper")
	if err := buildBinary(); err != nil {
		fmt.Fprintln(os.Stderr, "building termhelper:", err)
		os.Exit(1)
	}
	code := m.Run()
	removeThrowawayUser()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildBinary builds the helper the tests drive into binary, or, where
// TERMHELPER_E2E_BIN names one built already, uses that: a run as
// another user (.ci/run runs the sandbox's tests as an ordinary one)
// needs neither the source nor a Go toolchain.
func buildBinary() error {
	if prebuilt := os.Getenv("TERMHELPER_E2E_BIN"); prebuilt != "" {
		binary = prebuilt
		return nil
	}
	build := exec.Command("go", "build", "-race", "-o", binary, "..")
	if os.Getenv("TERMHELPER_E2E_NORACE") != "" {
		build = exec.Command("go", "build", "-o", binary, "..")
	}
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	return build.Run()
}

// watchdog is the longest any single answer may take in these tests; it
// is not a timing assertion, only a guard against a hang.
const watchdog = 60 * time.Second

type message struct {
	ID     *json.RawMessage `json:"id,omitempty"`
	Method string           `json:"method,omitempty"`
	Params json.RawMessage  `json:"params,omitempty"`
	Result json.RawMessage  `json:"result,omitempty"`
	Error  *rpcError        `json:"error,omitempty"`
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// client is a host: it spawns termhelper and speaks to it in one framing.
type client struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	// stdoutReader is the host's end of the helper's output.
	stdoutReader io.ReadCloser
	lsp          bool
	stderr       *lockedWriter // the helper's log, read while it writes
	exited       chan struct{}
	waitErr      error
	readDone     chan struct{} // closed when the helper's output has ended

	mu      sync.Mutex
	next    int
	pending map[string]chan message
	notes   chan message
	// onRequest answers requests from the helper (approval/request).
	onRequest func(m message) any
}

type opt func(*exec.Cmd)

func withEnv(kv ...string) opt {
	return func(c *exec.Cmd) { c.Env = append(c.Env, kv...) }
}

// withArgs adds arguments to the helper's command line.
func withArgs(args ...string) opt {
	return func(c *exec.Cmd) { c.Args = append(c.Args, args...) }
}

// logOf is the helper's log about the session whose command contains
// marker (its "started" line names it), for a failure's message.
func (c *client) logOf(marker string) string {
	lines := strings.Split(c.stderr.String(), "\n")
	id := ""
	for _, l := range lines {
		if _, rest, ok := strings.Cut(l, "session="); ok && strings.Contains(l, "msg=started") && strings.Contains(l, marker) {
			id = "session=" + strings.Fields(rest + " ")[0]
		}
	}
	var out []string
	for _, l := range lines {
		if id != "" && strings.Contains(l+" ", id+" ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// start spawns the helper with root as its project root.
func start(t *testing.T, framing, root string, args []string, opts ...opt) *client {
	t.Helper()
	all := append([]string{"--root", root, "--framing", framing}, args...)
	cmd := exec.Command(binary, all...)
	// No login shell by default: the user's real rc files would make the
	// tests depend on this machine (TestLoginEnvironment brings its own).
	cmd.Env = append(os.Environ(), "TERMHELPER_CONFIG_DIR="+filepath.Join(root, ".cfg-"+t.Name()), "SHELL=")
	for _, o := range opts {
		o(cmd)
	}
	return startCmd(t, framing, cmd)
}

// startCmd spawns cmd as the helper (or what carries it: ssh, docker
// exec) and speaks to it in framing.
func startCmd(t *testing.T, framing string, cmd *exec.Cmd) *client {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	must(t, err)
	// A pipe of the test's own, not StdoutPipe: Wait closes that one as
	// soon as the helper exits, and an answer the helper wrote just
	// before (a refusal) would be lost unread.
	stdout, w, err := os.Pipe()
	must(t, err)
	cmd.Stdout = w
	c := &client{t: t, cmd: cmd, stdin: stdin, stdoutReader: stdout, lsp: framing == "lsp", stderr: &lockedWriter{w: &strings.Builder{}},
		exited: make(chan struct{}), readDone: make(chan struct{}), pending: map[string]chan message{}, notes: make(chan message, 10000)}
	cmd.Stderr = c.stderr
	err = cmd.Start()
	w.Close()
	must(t, err)
	t.Cleanup(func() { stdout.Close() })
	go c.readLoop(bufio.NewReader(stdout))
	go func() {
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(func() { c.stop() })
	return c
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// String is what was written so far, for a writer that is a Stringer.
func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.(fmt.Stringer).String()
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// stop closes stdin and waits for the helper. At EOF the helper first
// finishes the requests in hand, which may include a command a test left
// running: after a short wait it gets SIGTERM, which ends every tree at
// once, and it is killed only if that fails too.
func (c *client) stop() {
	c.stdin.Close()
	select {
	case <-c.exited:
		return
	case <-time.After(5 * time.Second):
		c.cmd.Process.Signal(syscall.SIGTERM)
	}
	select {
	case <-c.exited:
	case <-time.After(watchdog):
		c.cmd.Process.Kill()
		<-c.exited
		c.t.Errorf("helper did not exit after stdin EOF and SIGTERM; stderr:\n%s", c.stderr)
	}
}

func (c *client) readLoop(r *bufio.Reader) {
	defer close(c.readDone)
	for {
		data, err := c.readFrame(r)
		if err != nil {
			return
		}
		var m message
		if err := json.Unmarshal(data, &m); err != nil {
			c.t.Errorf("helper sent bad JSON %q: %v", data, err)
			return
		}
		switch {
		case m.Method != "" && m.ID != nil:
			go c.answer(m)
		case m.Method != "":
			c.notes <- m
		default:
			c.deliver(m)
		}
	}
}

func (c *client) readFrame(r *bufio.Reader) ([]byte, error) {
	if !c.lsp {
		return r.ReadBytes('\n')
	}
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	buf := make([]byte, n)
	_, err := io.ReadFull(r, buf)
	return buf, err
}

func (c *client) deliver(m message) {
	key := "null"
	if m.ID != nil {
		key = string(*m.ID)
	}
	c.mu.Lock()
	ch := c.pending[key]
	delete(c.pending, key)
	c.mu.Unlock()
	if ch == nil {
		c.notes <- m // an answer to a raw message: kept for the test to see
		return
	}
	ch <- m
}

func (c *client) answer(m message) {
	var result any
	if c.onRequest != nil {
		result = c.onRequest(m)
	}
	if e, ok := result.(*rpcError); ok {
		c.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": e})
		return
	}
	c.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
}

func (c *client) send(v any) {
	data, err := json.Marshal(v)
	must(c.t, err)
	c.sendRaw(data)
}

func (c *client) sendRaw(data []byte) {
	var frame []byte
	if c.lsp {
		frame = append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(data))), data...)
	} else {
		frame = append(append([]byte{}, data...), '\n')
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stdin.Write(frame)
}

// call sends a request and waits for its answer.
func (c *client) call(method string, params any) (json.RawMessage, *rpcError) {
	c.t.Helper()
	ch := c.callAsync(method, params)
	return c.await(ch, method)
}

func (c *client) callAsync(method string, params any) chan message {
	c.mu.Lock()
	c.next++
	id := c.next
	ch := make(chan message, 1)
	c.pending[strconv.Itoa(id)] = ch
	c.mu.Unlock()
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return ch
}

func (c *client) await(ch chan message, what string) (json.RawMessage, *rpcError) {
	c.t.Helper()
	select {
	case m := <-ch:
		return m.Result, m.Error
	case <-c.exited:
		// A helper that answers and then exits (a refusal) may be seen
		// gone before its answer is read: all it wrote is read first.
		select {
		case m := <-ch:
			return m.Result, m.Error
		case <-c.readDone:
			select {
			case m := <-ch:
				return m.Result, m.Error
			default:
			}
		case <-time.After(watchdog):
		}
		c.t.Fatalf("%s: helper exited (%v); stderr:\n%s", what, c.waitErr, c.stderr)
	case <-time.After(watchdog):
		c.t.Fatalf("%s: no answer within %s; stderr:\n%s", what, watchdog, c.stderr)
	}
	return nil, nil
}

// result is a decoded answer of either shape.
type result struct {
	ExitCode       *int    `json:"exitCode"`
	Signal         *string `json:"signal"`
	DurationMs     int64   `json:"durationMs"`
	TimedOut       bool    `json:"timedOut"`
	Output         string  `json:"output"`
	Stderr         *string `json:"stderr"`
	Truncated      bool    `json:"truncated"`
	FullOutputPath *string `json:"fullOutputPath"`
	Summary        string  `json:"summary"`
	SessionID      string  `json:"sessionId"`
	Pid            int     `json:"pid"`
	State          string  `json:"state"`
	Prompt         *struct {
		Text   string `json:"text"`
		Secret bool   `json:"secret"`
	} `json:"prompt"`
	Ready     *bool `json:"ready"`
	Ports     []int `json:"ports"`
	Screen    bool  `json:"screen"`
	EndsInMs  int64 `json:"endsInMs"`
	CapRenews bool  `json:"capRenews"`
	// Cursor is the position after the output; Skipped and More are
	// those of a read from a cursor.
	Cursor  int64 `json:"cursor"`
	Skipped int64 `json:"skipped"`
	More    bool  `json:"more"`
	// Sandbox is a finished answer's report of what the sandbox stopped
	// (see denied); a policy/check answer's mode.
	Sandbox json.RawMessage `json:"sandbox"`
}

// denial is one thing the sandbox stopped, as a finished answer names it.
type denial struct {
	Kind string `json:"kind"`
	Host string `json:"host"`
	Port int    `json:"port"`
	Path string `json:"path"`
}

// denied lists what the sandbox stopped, as "kind host:port" or "kind
// path".
func (r result) denied() []string {
	var report struct {
		Denied []denial `json:"denied"`
	}
	if json.Unmarshal(r.Sandbox, &report) != nil {
		return nil
	}
	var out []string
	for _, d := range report.Denied {
		if d.Host != "" {
			out = append(out, fmt.Sprintf("%s %s:%d", d.Kind, d.Host, d.Port))
		} else {
			out = append(out, d.Kind+" "+d.Path)
		}
	}
	return out
}

// run calls a method that answers in a result shape, failing on an error.
func (c *client) run(method string, params any) result {
	c.t.Helper()
	raw, rerr := c.call(method, params)
	if rerr != nil {
		c.t.Fatalf("%s %v: error %d %s", method, params, rerr.Code, rerr.Message)
	}
	var r result
	must(c.t, json.Unmarshal(raw, &r))
	return r
}

func (c *client) exec(params map[string]any) result {
	c.t.Helper()
	return c.run("exec/run", params)
}

// note waits for the next notification of method.
func (c *client) note(method string) message {
	c.t.Helper()
	deadline := time.After(watchdog)
	for {
		select {
		case m := <-c.notes:
			if m.Method == method {
				return m
			}
		case <-deadline:
			c.t.Fatalf("no %s notification within %s", method, watchdog)
		}
	}
}

// marker returns a number unique to this test, for finding its processes.
var markerSeq struct {
	sync.Mutex
	n int
}

func marker() string {
	markerSeq.Lock()
	defer markerSeq.Unlock()
	markerSeq.n++
	// The whole pid: another test binary running at the same time (a
	// second checkout, another job on the machine) must never share one.
	return fmt.Sprintf("9%07d%03d", os.Getpid(), markerSeq.n%1000)
}

// procs lists the processes in /proc.
func procs() []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// pidsWith lists processes whose command line contains s.
func pidsWith(s string) []int {
	var out []int
	for _, pid := range procs() {
		b, ok := cmdline(strconv.Itoa(pid))
		if !ok || !strings.Contains(string(b), s) {
			continue
		}
		if st, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); strings.Contains(string(st), ") Z") {
			continue
		}
		out = append(out, pid)
	}
	return out
}

// cmdline is a process's command line. A process in the middle of an
// execve (a trampoline becoming the command, a shell becoming its
// program) reads as empty until the new program's arguments are in place,
// which on a loaded machine, the program read from disk, takes
// milliseconds: it is read again until they are, or until the process is
// gone. A kernel thread, empty for good, has no program.
func cmdline(pid string) ([]byte, bool) {
	for deadline := time.Now().Add(time.Second); ; time.Sleep(time.Millisecond) {
		b, err := os.ReadFile("/proc/" + pid + "/cmdline")
		if err != nil {
			return nil, false
		}
		if _, err := os.Readlink("/proc/" + pid + "/exe"); len(b) > 0 || err != nil || time.Now().After(deadline) {
			return b, len(b) > 0
		}
	}
}

// noneLeft waits (within the watchdog) until no process has s in its command
// line, and fails if one stays.
func noneLeft(t *testing.T, s string) {
	t.Helper()
	noneLeftBy(t, fmt.Sprintf("processes with %q in their command line", s), func() []int { return pidsWith(s) })
}

// noneLeftBy waits (within the watchdog) until list finds no process, and
// fails, naming and killing them, if some stay.
func noneLeftBy(t *testing.T, what string, list func() []int) {
	t.Helper()
	deadline := time.Now().Add(watchdog)
	for time.Now().Before(deadline) {
		if len(list()) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	var left []string
	for _, p := range list() {
		b, _ := cmdline(strconv.Itoa(p))
		left = append(left, fmt.Sprintf("%d %q", p, b))
		syscall.Kill(p, syscall.SIGKILL)
	}
	t.Fatalf("%s left behind: %s", what, strings.Join(left, ", "))
}

// waitFor polls cond until it holds or the watchdog fires.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !eventually(cond) {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// eventually is whether cond holds within the watchdog.
func eventually(cond func() bool) bool {
	for deadline := time.Now().Add(watchdog); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// gated returns command made to wait until open is called before it
// runs: a test can take an answer while the command is surely alive, and
// then let it go on, however slow the machine.
func gated(t *testing.T, command string) (gatedCommand string, open func()) {
	gate := filepath.Join(t.TempDir(), "gate")
	return fmt.Sprintf("while [ ! -e %s ]; do sleep 0.01; done; %s", gate, command),
		func() { must(t, os.WriteFile(gate, nil, 0o600)) }
}

// growing calls try with limitMs, then with twice that, and so on up to
// maxMs, for as long as try reports that the machine outran the limit: it
// had not got the command to where the test needs it (its children
// started, its prompt read, its next frame drawn) within it. A test of a
// short limit so holds on any machine, and still fails when what it waits
// for never comes.
func growing(t *testing.T, limitMs, maxMs int, try func(limitMs int) (outrun bool)) {
	t.Helper()
	for ; limitMs <= maxMs; limitMs *= 2 {
		if !try(limitMs) {
			return
		}
		t.Logf("this machine outran a limit of %d ms: again with twice that", limitMs)
	}
	t.Fatalf("this machine outran every limit up to %d ms", maxMs)
}

var framings = []string{"ndjson", "lsp"}

// nextNote returns the next unsolicited message (a notification, or an
// answer to a raw message).
func (c *client) nextNote() message {
	c.t.Helper()
	select {
	case m := <-c.notes:
		return m
	case <-time.After(watchdog):
		c.t.Fatalf("no message within %s", watchdog)
	}
	return message{}
}

// within waits for ch or fails at the watchdog.
func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(watchdog):
		t.Fatalf("%s: nothing within %s", what, watchdog)
	}
	var zero T
	return zero
}

// describe is an answer's every field but its output, for a failure's
// message: how the command ended says where its output went.
func describe(r result) string {
	r.Output = ""
	b, err := json.Marshal(r)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
