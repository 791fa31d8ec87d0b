//go:build linux

package e2e

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/termhelper/termhelper/persist"
)

// persistConnectEnv makes this test binary, run again, a bare client of a
// background helper: it connects to the socket named, sends a hello and
// prints the welcome (see TestPersistRefusesAnotherUser).
const persistConnectEnv = "TERMHELPER_E2E_PERSIST_CONNECT"

func init() {
	if path := os.Getenv(persistConnectEnv); path != "" {
		os.Exit(bareHello(path))
	}
}

func bareHello(path string) int {
	c, err := net.DialTimeout("unix", path, watchdog)
	if err != nil {
		fmt.Println("dial:", err)
		return 1
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(watchdog))
	fmt.Fprintln(c, `{"version":"?","root":"?","settings":{}}`)
	line, err := bufio.NewReader(c).ReadString('\n')
	fmt.Print(line)
	if err != nil {
		fmt.Println("read:", err)
	}
	return 0
}

// persistent is a root and a rendezvous folder of a test's own, and the
// flags and environment that meet its background helper there.
type persistent struct {
	t    *testing.T
	root string
	dir  string
}

func newPersistent(t *testing.T) *persistent {
	root, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	p := &persistent{t: t, root: root, dir: filepath.Join(t.TempDir(), "rdv")}
	t.Cleanup(p.endHelper) // registered first: runs after the clients stop
	return p
}

func (p *persistent) env() opt { return withEnv(persist.FolderEnv + "=" + p.dir) }

// connect spawns a relay to the root's background helper, as a host does.
func (p *persistent) connect(grace string) *client { return p.connectIn("ndjson", grace) }

// connectIn is connect in another framing.
func (p *persistent) connectIn(framing, grace string) *client {
	c := start(p.t, framing, p.root, []string{"--persist", grace}, p.env())
	c.run("initialize", map[string]any{"capabilities": map[string]any{"outputStream": true}})
	return c
}

// helpers are the background helpers of the root: a child a helper has
// just forked shows the helper's command line until it executes its own
// program, and is not counted.
func (p *persistent) helpers() []int {
	pids := pidsWith("__persist\x00--root\x00" + p.root + "\x00")
	return slices.DeleteFunc(slices.Clone(pids), func(pid int) bool { return slices.Contains(pids, parent(pid)) })
}

// endHelper stops the root's background helper, as a person would.
func (p *persistent) endHelper() {
	for _, pid := range p.helpers() {
		syscall.Kill(pid, syscall.SIGTERM)
	}
	waitFor(p.t, "the background helper to end", func() bool { return len(p.helpers()) == 0 })
}

// kill9 ends a relay as a dropped link does: no goodbye.
func kill9(t *testing.T, c *client) {
	c.cmd.Process.Kill()
	within(t, c.exited, "the relay to die")
}

// counter prints a numbered line every 50 ms, with the marker in its
// command line.
func counter(m string) string {
	return fmt.Sprintf("i=0; while :; do i=$((i+1)); echo n$i; sleep 0.05; done # %s", m)
}

var counterLine = regexp.MustCompile(`(?m)^n(\d+)\r?$`)

// numbers are the counter's line numbers in out, in order.
func numbers(out string) []int {
	var ns []int
	for _, m := range counterLine.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[1])
		ns = append(ns, n)
	}
	return ns
}

// readOn reads the counter of r over c from the cursor of r, the last
// answer an earlier connection received, each cursor twice: every line
// after those seen, none missing, none twice.
func readOn(t *testing.T, c *client, r result, seen []int) {
	t.Helper()
	cursor, next := r.Cursor, []int{}
	for len(next) < 20 {
		got := c.run("session/read", map[string]any{"sessionId": r.SessionID, "cursor": cursor, "yieldMs": 30000})
		again := c.run("session/read", map[string]any{"sessionId": r.SessionID, "cursor": cursor})
		if !strings.HasPrefix(again.Output, got.Output) {
			t.Fatalf("cursor %d read twice: %q, then %q", cursor, got.Output, again.Output)
		}
		next, cursor = append(next, numbers(got.Output)...), got.Cursor
	}
	if next[0] != seen[len(seen)-1]+1 {
		t.Fatalf("read on from n%d, got %v", seen[len(seen)-1], next)
	}
	for i := 1; i < len(next); i++ {
		if next[i] != next[i-1]+1 {
			t.Fatalf("a line missing or twice: %v", next)
		}
	}
}

// A background server keeps running across a SIGKILL of the process the
// host spawned; a second connection lists it and reads on from where the
// first answer ended: no line missing, none twice.
func TestPersistServerOutlivesItsConnection(t *testing.T) {
	t.Parallel()
	p := newPersistent(t)
	m := marker()
	c1 := p.connect("60s")
	r := c1.exec(map[string]any{"command": counter(m), "background": true, "yieldMs": 500})
	seen := numbers(r.Output)
	if r.State != "background" || len(seen) == 0 {
		t.Fatalf("not a running counter: %s", describe(r))
	}
	kill9(t, c1)
	c2 := start(t, "ndjson", p.root, []string{"--persist", "60s"}, p.env())
	init, rerr := c2.call("initialize", map[string]any{})
	if rerr != nil || !strings.Contains(string(init), `"restored":[{"sessionId":"`+r.SessionID+`"`) {
		t.Fatalf("initialize does not say the session was restored: %s %v", init, rerr)
	}
	raw, rerr := c2.call("session/list", map[string]any{})
	if rerr != nil || !strings.Contains(string(raw), `"sessionId":"`+r.SessionID+`"`) {
		t.Fatalf("the session is not listed after the relay died: %s %v", raw, rerr)
	}
	readOn(t, c2, r, seen)
	c2.run("session/kill", map[string]any{"sessionId": r.SessionID})
	noneLeft(t, m)
}

// After the last connection, the sessions stay for the grace period, and
// then every tree ends and the background helper exits.
func TestPersistGraceEndsEverything(t *testing.T) {
	t.Parallel()
	p := newPersistent(t)
	m := marker()
	c := p.connect("2s")
	c.exec(map[string]any{"command": counter(m), "background": true, "yieldMs": 0})
	kill9(t, c)
	if len(pidsWith(m)) == 0 {
		t.Fatal("the counter did not outlive its connection")
	}
	noneLeft(t, m)
	waitFor(t, "the background helper to exit", func() bool { return len(p.helpers()) == 0 })
}

// A rendezvous folder removed under an idle helper (a test's temporary
// folder, a cleaned /tmp) does not keep it alive: the grace still ends it.
func TestPersistGraceEndsWithTheFolderGone(t *testing.T) {
	t.Parallel()
	p := newPersistent(t)
	m := marker()
	c := p.connect("2s")
	c.exec(map[string]any{"command": counter(m), "background": true, "yieldMs": 0})
	kill9(t, c)
	must(t, os.RemoveAll(p.dir))
	noneLeft(t, m)
	waitFor(t, "the background helper to exit", func() bool { return len(p.helpers()) == 0 })
}

// Two hosts attached at once both work, each in its own framing, and
// both see a session's events.
func TestPersistTwoHostsAtOnce(t *testing.T) {
	t.Parallel()
	p := newPersistent(t)
	c1, c2 := p.connect("60s"), p.connectIn("lsp", "60s")
	cmd, open := gated(t, "echo both-see-this")
	r := c1.exec(map[string]any{"command": cmd, "background": true, "yieldMs": 0})
	if r2 := c2.exec(map[string]any{"command": "echo second"}); !strings.Contains(r2.Output, "second") {
		t.Fatalf("the second host's command: %s", describe(r2))
	}
	open()
	for _, c := range []*client{c1, c2} {
		n := c.note("session/exited")
		if !strings.Contains(string(n.Params), `"sessionId":"`+r.SessionID+`"`) {
			t.Fatalf("exited of another session: %s", n.Params)
		}
	}
	if n := len(p.helpers()); n != 1 {
		t.Fatalf("%d background helpers for one root", n)
	}
}

// Relays started at the same moment start one background helper.
func TestPersistOneHelperForRelaysAtOnce(t *testing.T) {
	t.Parallel()
	p := newPersistent(t)
	done := make(chan *client, 3)
	for range 3 {
		go func() {
			done <- start(t, "ndjson", p.root, []string{"--persist", "60s"}, p.env())
		}()
	}
	for range 3 {
		c := within(t, done, "a relay")
		c.run("initialize", map[string]any{})
	}
	if n := len(p.helpers()); n != 1 {
		t.Fatalf("%d background helpers for one root", n)
	}
}

// A connection whose settings differ from the background helper's is
// refused with the setting named, to the host and on stderr.
func TestPersistSettingsMustAgree(t *testing.T) {
	t.Parallel()
	p := newPersistent(t)
	p.connect("60s")
	c := start(t, "ndjson", p.root, []string{"--persist", "61s"}, p.env())
	_, rerr := c.call("initialize", map[string]any{})
	if rerr == nil || rerr.Code != -32008 || !strings.Contains(rerr.Message, "persist (1m0s there, 1m1s here)") ||
		!strings.Contains(string(rerr.Data), `"setting":"persist"`) {
		t.Fatalf("want the persist setting named, got %+v", rerr)
	}
	within(t, c.exited, "the refused relay to exit")
	if !strings.Contains(c.stderr.String(), "another persist") {
		t.Fatalf("stderr does not say why: %s", c.stderr)
	}
	// An MCP client gets the refusal as the error of its initialize.
	m := start(t, "ndjson", p.root, []string{"--mcp", "--persist", "61s"}, p.env())
	_, rerr = m.call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "e2e", "version": "1"}})
	if rerr == nil || rerr.Code != -32008 || !strings.Contains(rerr.Message, "another persist") {
		t.Fatalf("the MCP client was not told: %+v", rerr)
	}
}

// A socket left by a helper that died is replaced, not trusted.
func TestPersistStaleSocketReplaced(t *testing.T) {
	t.Parallel()
	p := newPersistent(t)
	must(t, os.Mkdir(p.dir, 0o700))
	place := persist.PlaceOf(p.dir, p.root)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: place.Socket, Net: "unix"})
	must(t, err)
	ln.SetUnlinkOnClose(false)
	ln.Close() // the socket file stays; nobody answers at it
	c := p.connect("60s")
	if r := c.exec(map[string]any{"command": "echo served"}); !strings.Contains(r.Output, "served") {
		t.Fatalf("not served over a stale socket: %s", describe(r))
	}
}

// A rendezvous folder others could open or swap is refused, with why.
func TestPersistFolderRefused(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		make func(dir string) error
		want string
	}{
		"open to others": {func(dir string) error { return mkdirMode(dir, 0o755) }, "has mode 0755"},
		"a link": {func(dir string) error {
			real := dir + "-real"
			if err := os.Mkdir(real, 0o700); err != nil {
				return err
			}
			return os.Symlink(real, dir)
		}, "is a symbolic link"},
		"another user's": {func(dir string) error {
			if os.Getuid() != 0 {
				return errSkip
			}
			if err := os.Mkdir(dir, 0o700); err != nil {
				return err
			}
			return os.Chown(dir, 65534, 65534)
		}, "belongs to uid 65534"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := newPersistent(t)
			if err := tc.make(p.dir); err == errSkip {
				t.Skip("needs root to give a folder to another user")
			} else {
				must(t, err)
			}
			c := start(t, "ndjson", p.root, []string{"--persist", "60s"}, p.env())
			_, rerr := c.call("initialize", map[string]any{})
			if rerr == nil || !strings.Contains(rerr.Message, tc.want) {
				t.Fatalf("want %q, got %+v", tc.want, rerr)
			}
			if len(p.helpers()) != 0 {
				t.Fatal("a background helper started in a refused folder")
			}
		})
	}
}

var errSkip = fmt.Errorf("skip")

func mkdirMode(dir string, mode os.FileMode) error {
	if err := os.Mkdir(dir, mode); err != nil {
		return err
	}
	return os.Chmod(dir, mode)
}

// A process of another user that reaches the socket is refused by the
// peer check itself: the client runs as nobody but keeps the capability
// to pass the folder's 0700 (CAP_DAC_OVERRIDE), so only SO_PEERCRED
// stands between it and the helper.
func TestPersistRefusesAnotherUser(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("needs root to connect as another user")
	}
	p := newPersistent(t)
	p.connect("60s")
	dir, err := os.MkdirTemp("", "th-e2e-bin")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	must(t, os.Chmod(dir, 0o755))
	self, err := os.Executable()
	must(t, err)
	bin := filepath.Join(dir, "e2e.test")
	must(t, exec.Command("cp", self, bin).Run())
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), persistConnectEnv+"="+persist.PlaceOf(p.dir, p.root).Socket)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534},
		AmbientCaps: []uintptr{1 /* CAP_DAC_OVERRIDE */}}
	out, err := cmd.CombinedOutput()
	if errors.Is(err, syscall.EPERM) {
		t.Skipf("cannot start a process as another user with a capability here: %v", err)
	}
	if err != nil {
		t.Fatalf("the other user's client: %v\n%s", err, out)
	}
	var w persist.Welcome
	if json.Unmarshal(out, &w) != nil || !strings.Contains(w.Error, "a connection from uid 65534 refused") {
		t.Fatalf("another user was not refused by the peer check: %s", out)
	}
}

// SIGKILL of the background helper itself leaves no process behind, and
// the next connection starts a new one over its socket.
func TestPersistKilledHelperLeavesNothing(t *testing.T) {
	t.Parallel()
	p := newPersistent(t)
	m := marker()
	c := p.connect("60s")
	c.exec(map[string]any{"command": counter(m), "background": true, "yieldMs": 0})
	if len(pidsWith(m)) == 0 {
		t.Fatal("the counter is not running")
	}
	for _, pid := range p.helpers() {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	noneLeft(t, m)
	// Its socket is left behind; the next host gets a new helper there.
	c2 := p.connect("60s")
	if r := c2.exec(map[string]any{"command": "echo anew"}); !strings.Contains(r.Output, "anew") {
		t.Fatalf("no new helper after the old one was killed: %s", describe(r))
	}
}

// The same through --mcp: a background session outlives a SIGKILL of the
// spawned process, and the next MCP connection lists it, reads it and
// ends it.
func TestPersistMCP(t *testing.T) {
	t.Parallel()
	p := newPersistent(t)
	m := marker()
	o := mcpOpts{root: p.root, args: []string{"--persist", "60s"}, env: []string{persist.FolderEnv + "=" + p.dir}}
	h1 := startMCP(t, o)
	r := structured(t, h1.call(map[string]any{"command": counter(m), "background": true, "yield_ms": 300}))
	if r.State != "background" {
		t.Fatalf("not running in the background: %s", fmt.Sprintf("%+v", r))
	}
	h1.cmd.Process.Kill()
	h2 := startMCP(t, o)
	if list := text(h2.call(map[string]any{"list": true})); !strings.Contains(list, "session "+r.SessionID+" · background") {
		t.Fatalf("not listed over the next connection: %s", list)
	}
	if out := text(h2.call(map[string]any{"session_id": r.SessionID, "input": "", "yield_ms": 30000})); len(numbers(out)) == 0 {
		t.Fatalf("no lines read over the next connection: %s", out)
	}
	h2.call(map[string]any{"session_id": r.SessionID, "kill": true})
	noneLeft(t, m)
}

// Each attached host has its own initialize: an untrusted host's commands
// are asked about, of that host alone, while a trusted host attached at
// the same time runs its own unasked.
func TestPersistApprovalGoesToTheRequester(t *testing.T) {
	t.Parallel()
	p := newPersistent(t)
	var asked [2]atomic.Int32
	hosts := make([]*client, 2)
	for i, trusted := range []bool{false, true} {
		c := start(t, "ndjson", p.root, []string{"--persist", "60s"}, p.env())
		c.onRequest = func(message) any {
			asked[i].Add(1)
			return map[string]any{"decision": "allow"}
		}
		c.run("initialize", map[string]any{"trusted": trusted, "capabilities": map[string]any{"approval": true}})
		hosts[i] = c
	}
	if r := hosts[0].exec(map[string]any{"command": "echo one"}); !strings.Contains(r.Output, "one") {
		t.Fatalf("the untrusted host's command: %s", describe(r))
	}
	if r := hosts[1].exec(map[string]any{"command": "echo two"}); !strings.Contains(r.Output, "two") {
		t.Fatalf("the trusted host's command: %s", describe(r))
	}
	if a, b := asked[0].Load(), asked[1].Load(); a != 1 || b != 0 {
		t.Fatalf("asked the untrusted host %d times and the trusted one %d times; want 1 and 0", a, b)
	}
}

// A host that asked for a heartbeat and falls silent without closing its
// link (a stream that stalls, as kubectl exec's can) is gone: with
// --persist its connection ends, the relay exits, and its sessions wait
// for the next connection, which finds them running.
func TestPersistHeartbeatKeepsTheSessions(t *testing.T) {
	t.Parallel()
	p := newPersistent(t)
	m := marker()
	c1 := p.connect("60s")
	_, rerr := c1.call("initialize", map[string]any{"heartbeatMs": 200})
	if rerr != nil {
		t.Fatalf("initialize: %v", rerr.Message)
	}
	r := c1.exec(map[string]any{"command": "sleep 600 # " + m, "background": true, "yieldMs": 0})
	if r.State != "background" {
		t.Fatalf("not running in the background: %s", describe(r))
	}
	within(t, c1.exited, "the relay's exit after three silent heartbeats")
	c2 := p.connect("60s")
	alive := c2.run("session/read", map[string]any{"sessionId": r.SessionID})
	if alive.State != "background" {
		t.Fatalf("the session did not wait for the next connection: %s", describe(alive))
	}
	c2.run("session/kill", map[string]any{"sessionId": r.SessionID})
	noneLeft(t, m)
}

// An MCP client of a background helper that goes silent past the config's
// heartbeat_ms is gone, as without --persist: its sessions are kept for
// the grace, then end, not for as long as its relay lingers.
func TestPersistMCPHeartbeat(t *testing.T) {
	t.Parallel()
	p := newPersistent(t)
	m := marker()
	o := mcpOpts{root: p.root, args: []string{"--persist", "1s"}, config: "heartbeat_ms = 200\n",
		env: []string{persist.FolderEnv + "=" + p.dir}}
	h := startMCP(t, o)
	// Pings until the command runs: a first call can take longer than
	// three heartbeats (a fresh helper, a race-detector build).
	stop := pinging(t, pingOf(h))
	h.call(map[string]any{"command": counter(m), "background": true, "yield_ms": 0})
	stop()
	// The client stays connected and says nothing more.
	noneLeft(t, m)
	waitFor(t, "the background helper to exit", func() bool { return len(p.helpers()) == 0 })
}

// The sandbox mode the environment asks for (TERMHELPER_SANDBOX) is a
// setting like the config's: a relay that asks for another one than the
// background helper runs with is refused, not served unconfined.
func TestPersistSandboxEnvMustAgree(t *testing.T) {
	t.Parallel()
	p := newPersistent(t)
	start(t, "ndjson", p.root, []string{"--persist", "60s"}, p.env(), sandboxOff).run("initialize", map[string]any{})
	// The second relay asks for the default even where the whole run has
	// the sandbox off (.ci/run's pass with TERMHELPER_SANDBOX=off).
	c := start(t, "ndjson", p.root, []string{"--persist", "60s"}, p.env(), withEnv("TERMHELPER_SANDBOX="))
	raw, rerr := c.call("initialize", map[string]any{})
	if rerr == nil || rerr.Code != -32008 || !strings.Contains(string(rerr.Data), `"setting":"TERMHELPER_SANDBOX"`) {
		t.Fatalf("a relay that did not ask for sandbox off was served by a helper that has it: %s %+v", raw, rerr)
	}
}

// A confined command is not served by the background helper that runs
// it, where its sandbox lets it reach the socket (a rendezvous outside
// the runtime folder: no XDG_RUNTIME_DIR in a container or an ssh login
// without a session manager): a host of its own there would be served
// outside its sandbox, and could type into, read and end every session
// of the root.
func TestPersistSocketRefusedToConfinedCommands(t *testing.T) {
	t.Parallel()
	p := newPersistent(t)
	c := start(t, "ndjson", p.root, []string{"--persist", "60s"}, p.env())
	init, rerr := c.call("initialize", map[string]any{})
	if rerr != nil || !strings.Contains(string(init), `"mode":"workspace-write"`) {
		t.Skipf("no sandbox here: %s %v", init, rerr)
	}
	self, err := os.Executable()
	must(t, err)
	sock := persist.PlaceOf(p.dir, p.root).Socket
	raw, rerr := c.call("exec/run", map[string]any{"command": persistConnectEnv + "=" + sock + " " + self})
	if rerr != nil || !strings.Contains(string(raw), "dial:") && !strings.Contains(string(raw), "own sessions refused") {
		t.Fatalf("a confined command reached the background helper: %s %v", raw, rerr)
	}
}

// Refused connections do not keep an idle background helper: a client
// whose hello is refused, again and again, does not restart the grace.
func TestPersistRefusedConnectionsKeepNoHelper(t *testing.T) {
	t.Parallel()
	p := newPersistent(t)
	kill9(t, p.connect("2s"))
	sock := persist.PlaceOf(p.dir, p.root).Socket
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
			if c, err := net.DialTimeout("unix", sock, watchdog); err == nil {
				c.SetDeadline(time.Now().Add(watchdog))
				fmt.Fprintln(c, `{"version":"?","root":"?","settings":{}}`)
				bufio.NewReader(c).ReadString('\n')
				c.Close()
			}
		}
	}()
	waitFor(t, "the background helper to exit", func() bool { return len(p.helpers()) == 0 })
}
