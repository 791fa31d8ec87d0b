//go:build linux

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// soakDuration is how long TestSoak runs: about ten seconds in the normal
// suite, longer with TERMHELPER_SOAK (make soak).
func soakDuration(t *testing.T) time.Duration {
	v := os.Getenv("TERMHELPER_SOAK")
	if v == "" {
		return 10 * time.Second
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("TERMHELPER_SOAK=%q: want a duration such as 5m", v)
	}
	return d
}

// TestSoak sends random valid and invalid messages at full speed, in both
// framings. Every request with an id is answered exactly once, every piece
// of garbage once with a null id, the helper never crashes, and its
// memory, threads and open files are as flat at the end as after a warm-up.
func TestSoak(t *testing.T) {
	d := soakDuration(t)
	for _, framing := range framings {
		t.Run(framing, func(t *testing.T) { soak(t, framing, d/time.Duration(len(framings))) })
	}
}

func soak(t *testing.T, framing string, d time.Duration) {
	c := start(t, framing, t.TempDir(), nil)
	sk := newSoaker(c)
	go sk.watchUnsolicited()
	warm := max(d/4, time.Second)
	sk.run(warm)
	early := sk.settle(usage{}, "after the warm-up")
	sk.run(d - warm)
	began := time.Now()
	end := sk.settle(early, "at the end")
	t.Logf("usage at the end %+v, settled in %s", end, time.Since(began).Round(time.Millisecond))
	sk.checkGarbageAnswered()
	if s := c.stderr.String(); strings.Contains(s, "panic:") || strings.Contains(s, "DATA RACE") {
		t.Fatalf("the helper reported a failure:\n%s", s)
	}
	t.Logf("%s: %d requests, %d pieces of garbage; usage after the warm-up %+v", framing, sk.requests.Load(), sk.garbage.Load(), early)
	began = time.Now()
	c.stdin.Close()
	defer func() { t.Logf("exited %s after its input closed", time.Since(began).Round(time.Millisecond)) }()
	select {
	case <-c.exited:
	case <-time.After(watchdog):
		t.Fatalf("the helper did not exit after its input closed; stderr:\n%s", c.stderr)
	}
}

// soaker drives one helper.
type soaker struct {
	c        *client
	seed     uint64
	requests atomic.Int64
	garbage  atomic.Int64 // messages answerable only with a null id
	nullIDs  atomic.Int64 // answers with a null id
	execs    chan struct{}
	wmu      sync.Mutex // one frame at a time on the helper's input

	mu      sync.Mutex
	pending []pendingCall
}

type pendingCall struct {
	ch   chan message
	what string
}

func newSoaker(c *client) *soaker {
	seed := rand.Uint64()
	c.t.Logf("seed %d", seed)
	return &soaker{c: c, seed: seed, execs: make(chan struct{}, 8)}
}

// soakSenders write at once; each frame is written whole.
const soakSenders = 3

// run sends messages from several writers until d has passed.
func (sk *soaker) run(d time.Duration) {
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for w := range soakSenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(sk.seed, uint64(w)+uint64(time.Now().UnixNano())))
			for i := 0; i < 10_000_000 && time.Now().Before(deadline); i++ {
				sk.sendOne(r)
			}
		}()
	}
	wg.Wait()
}

// sendOne sends one random message, valid or not.
func (sk *soaker) sendOne(r *rand.Rand) {
	switch n := r.IntN(100); {
	case n < 4:
		sk.call("initialize", map[string]any{"clientInfo": map[string]string{"name": "soak"},
			"capabilities": map[string]bool{"outputStream": r.IntN(2) == 0}})
	case n < 16:
		sk.call("policy/check", map[string]any{"command": randomCommand(r)})
	case n < 28:
		sk.call("session/list", nil)
	case n < 36:
		sk.execEcho(r)
	case n < 48:
		sk.call("session/read", map[string]any{"sessionId": "s" + strconv.Itoa(r.IntN(1e6))})
	case n < 58:
		sk.call("no/such/method", map[string]any{"x": r.IntN(10)})
	case n < 68:
		sk.call(pick(r, "exec/run", "session/read", "session/kill", "policy/check"), map[string]any{
			"command": r.IntN(5), "sessionId": true, "signal": []int{1}, "yieldMs": "soon"})
	case n < 70:
		sk.call(pick(r, "session/list", "no/such/method", "session/read"),
			map[string]any{"sessionId": "s1", "pad": strings.Repeat("p", 1<<10+r.IntN(2<<20))})
	case n < 78:
		sk.rawCall(func(id int) []byte {
			return []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) +
				`,"method":"policy/check","params":{"command":"echo ` + "\xff\xfe\xc3" + `"}}`)
		})
	case n < 89:
		sk.sendGarbage(randomGarbage(r))
	default:
		sk.sendGarbage(truncated(r))
	}
}

func pick(r *rand.Rand, s ...string) string { return s[r.IntN(len(s))] }

func randomCommand(r *rand.Rand) string {
	return pick(r, "echo hi", "ls -la", "rm -rf /", "git push --force", "cat .env", "npm install", "x=1; y=2")
}

// execEcho runs echo, with at most a few at once: each becomes a session
// the helper keeps readable for a while, which is not a leak.
func (sk *soaker) execEcho(r *rand.Rand) {
	select {
	case sk.execs <- struct{}{}:
	default:
		sk.call("session/list", nil)
		return
	}
	ch := sk.callAsync("exec/run", map[string]any{"command": "echo soak " + strconv.Itoa(r.IntN(1000)),
		"mode": pick(r, "pty", "pipes")})
	relay := make(chan message, 1)
	go func() {
		m := <-ch
		<-sk.execs
		relay <- m
	}()
	sk.track(relay, "exec/run")
}

func (sk *soaker) call(method string, params any) {
	sk.track(sk.callAsync(method, params), method)
}

func (sk *soaker) callAsync(method string, params any) chan message {
	return sk.rawAsync(func(id int) []byte {
		data, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		must(sk.c.t, err)
		return data
	})
}

// rawCall sends a request written by hand, with a fresh id.
func (sk *soaker) rawCall(build func(id int) []byte) {
	sk.track(sk.rawAsync(build), "raw request")
}

// rawAsync registers a fresh id, then sends the request built for it. The
// client's lock is not held while writing: at full speed the helper's
// answers must keep being read while a write waits.
func (sk *soaker) rawAsync(build func(id int) []byte) chan message {
	c := sk.c
	c.mu.Lock()
	c.next++
	id := c.next
	ch := make(chan message, 1)
	c.pending[strconv.Itoa(id)] = ch
	c.mu.Unlock()
	sk.requests.Add(1)
	sk.write(build(id), true)
	return ch
}

// write sends data framed as a message, or as a bare line.
func (sk *soaker) write(data []byte, framed bool) {
	var frame []byte
	switch {
	case framed && sk.c.lsp:
		frame = append(fmt.Appendf(nil, "Content-Length: %d\r\n\r\n", len(data)), data...)
	default:
		frame = append(append([]byte{}, data...), '\n')
	}
	sk.wmu.Lock()
	defer sk.wmu.Unlock()
	sk.c.stdin.Write(frame)
}

func (sk *soaker) track(ch chan message, what string) {
	sk.mu.Lock()
	sk.pending = append(sk.pending, pendingCall{ch, what})
	sk.mu.Unlock()
}

// sendGarbage writes bytes that are no message, as one bad line in the
// client's framing (a bad header line in LSP).
func (sk *soaker) sendGarbage(b []byte) {
	sk.garbage.Add(1)
	// In LSP, what opens like JSON goes as a body that is not JSON.
	sk.write(b, b[0] == '{' || b[0] == '[')
}

// randomGarbage is a line of random bytes that no reader could take for a
// message or a header: it holds no colon, no newline, and not only blanks.
func randomGarbage(r *rand.Rand) []byte {
	b := make([]byte, 1+r.IntN(300))
	for i := range b {
		b[i] = byte(r.IntN(256))
		for b[i] == '\n' || b[i] == '\r' || b[i] == ':' {
			b[i] = byte(r.IntN(256))
		}
	}
	b[0] = pick(r, "h", "Z", "\xff", "\x01", "}")[0]
	return b
}

// truncated is a request cut short: its id cannot be read.
func truncated(r *rand.Rand) []byte {
	full := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/list","params":{"a":[1,2,3]}}`, r.IntN(1e6))
	return []byte(full[:1+r.IntN(len(full)-2)])
}

// watchUnsolicited reads what is not an answer to a tracked request:
// notifications, answers with a null id, and any second answer to an id.
func (sk *soaker) watchUnsolicited() {
	for {
		select {
		case m := <-sk.c.notes:
			switch {
			case m.Method != "":
			case m.ID == nil || string(*m.ID) == "null":
				sk.nullIDs.Add(1)
			default:
				sk.c.t.Errorf("an answer to no request sent, or a second answer: id %s", *m.ID)
			}
		case <-sk.c.exited:
			return
		}
	}
}

// awaitAll waits for every request sent so far to be answered.
func (sk *soaker) awaitAll() {
	sk.mu.Lock()
	all := sk.pending
	sk.pending = nil
	sk.mu.Unlock()
	for _, p := range all {
		select {
		case m := <-p.ch:
			if m.Result == nil && m.Error == nil {
				sk.c.t.Fatalf("%s: an answer with neither result nor error", p.what)
			}
		case <-sk.c.exited:
			sk.c.t.Fatalf("the helper exited (%v); stderr:\n%s", sk.c.waitErr, sk.c.stderr)
		case <-time.After(watchdog):
			missing := map[string]int{}
			for _, q := range all {
				select {
				case <-q.ch:
				default:
					missing[q.what]++
				}
			}
			sk.c.t.Fatalf("%s: no answer within %s; unanswered of %d: %v; stderr:\n%s", p.what, watchdog, len(all), missing, sk.c.stderr)
		}
	}
}

// checkGarbageAnswered waits until each piece of garbage has had its one
// null-id answer.
func (sk *soaker) checkGarbageAnswered() {
	t := sk.c.t
	waitFor(t, "an answer to every piece of garbage", func() bool { return sk.nullIDs.Load() >= sk.garbage.Load() })
	time.Sleep(200 * time.Millisecond) // room for an extra answer to show
	if got, want := sk.nullIDs.Load(), sk.garbage.Load(); got != want {
		t.Fatalf("%d answers with a null id for %d pieces of garbage", got, want)
	}
}

// usage is what the helper holds.
type usage struct {
	RSSKiB, Threads, FDs int
}

func readUsage(pid int) (usage, error) {
	var u usage
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return u, err
	}
	for _, line := range bytes.Split(status, []byte("\n")) {
		k, v, _ := strings.Cut(string(line), ":")
		f := strings.Fields(v)
		switch {
		case len(f) == 0:
		case k == "VmRSS":
			u.RSSKiB, _ = strconv.Atoi(f[0])
		case k == "Threads":
			u.Threads, _ = strconv.Atoi(f[0])
		}
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	u.FDs = len(fds)
	return u, err
}

// settle waits for every answer, then for the helper's usage to come
// back within bounds of base (none when base is zero), and returns it.
// The bounds are generous: the runtime keeps what it grew, and finished
// commands stay readable for a while.
func (sk *soaker) settle(base usage, when string) usage {
	t := sk.c.t
	sk.awaitAll()
	pid := sk.c.cmd.Process.Pid
	var u usage
	deadline := time.Now().Add(watchdog)
	for {
		var err error
		if u, err = readUsage(pid); err != nil {
			t.Fatalf("reading the helper's usage: %v", err)
		}
		if base == (usage{}) || usageWithin(u, base) {
			return u
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s the helper holds %+v, after the warm-up %+v", when, u, base)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func usageWithin(u, base usage) bool {
	return u.FDs <= base.FDs+4 && u.Threads <= base.Threads+16 && u.RSSKiB <= base.RSSKiB*3/2+64<<10
}

// TestGarbageFirstThenAValidRequest: random bytes with a letter among them,
// sent before anything else, lock no framing: the valid request after them
// is answered, in either framing, and the garbage gets a -32700 (as a
// line: the host's framing is not known yet).
func TestGarbageFirstThenAValidRequest(t *testing.T) {
	for _, lsp := range []bool{false, true} {
		fr := map[bool]string{false: "ndjson", true: "lsp"}[lsp]
		// The client speaks fr; the helper detects it (the last --framing wins).
		c := start(t, fr, t.TempDir(), []string{"--framing", "auto"})
		c.stdin.Write([]byte("\x01hello\xfe world\n"))
		if _, rerr := c.call("session/list", nil); rerr != nil {
			t.Fatalf("lsp %v: session/list: %d %s", lsp, rerr.Code, rerr.Message)
		}
		if lsp {
			continue // the answer to garbage went out as a line, which this client's LSP reader passes over
		}
		if m := c.nextNote(); m.Error == nil || m.Error.Code != -32700 {
			t.Fatalf("lsp %v: the garbage was answered with %+v", lsp, m)
		}
	}
}
