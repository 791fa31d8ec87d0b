//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// numbered is a server that prints a numbered line every 50 ms, n lines,
// with m in its command line to find its processes by.
func numbered(n int, m string) string {
	return fmt.Sprintf(`i=1; while [ $i -le %d ]; do echo "line $i"; i=$((i+1)); sleep 0.05; done; : %s`, n, m)
}

// wantNumbered is every line of numbered(n), once each.
func wantNumbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// readFrom reads a session from cursor with read until the command has
// ended and nothing is left after the cursor, and returns what it read.
// Every cursor is read twice: the second read gives the first's text
// again, followed by whatever came meanwhile.
func readFrom(t *testing.T, cursor int64, read func(cursor int64, wait bool) result) string {
	t.Helper()
	var got strings.Builder
	for range 5000 {
		r := read(cursor, true)
		again := read(cursor, false)
		require.True(t, strings.HasPrefix(again.Output, r.Output),
			"cursor %d read twice: %q, then %q", cursor, r.Output, again.Output)
		got.WriteString(r.Output)
		require.GreaterOrEqual(t, r.Cursor, cursor, "the cursor went back")
		cursor = r.Cursor
		if r.ExitCode != nil && !r.More {
			return got.String()
		}
	}
	t.Fatalf("no end after 5000 reads; read so far:\n%s", got.String())
	return ""
}

// TestCursorReadsEveryLineOnce: a host that reads a server's output from
// cursor to cursor gets every line once, none missing, none twice, while
// reads without a cursor take their news as before and take nothing from
// it; once the server has ended, the same cursor gives the same text.
func TestCursorReadsEveryLineOnce(t *testing.T) {
	t.Parallel()
	c := start(t, "ndjson", t.TempDir(), nil)
	m := marker()
	r := c.exec(map[string]any{"command": numbered(200, m), "background": true, "yieldMs": 300})
	require.Equal(t, "background", r.State, describe(r))
	id, first := r.SessionID, r.Output
	require.Equal(t, int64(len(first)), r.Cursor, "the first answer's cursor is the end of its output %q", first)
	reads := 0
	got := readFrom(t, 0, func(cursor int64, wait bool) result {
		if reads++; reads%3 == 0 {
			c.run("session/read", map[string]any{"sessionId": id}) // a consuming read between
		}
		p := map[string]any{"sessionId": id, "cursor": cursor}
		if wait {
			p["yieldMs"] = 10000
		}
		return c.run("session/read", p)
	})
	require.Equal(t, wantNumbered(200), got)
	for range 2 {
		all := c.run("session/read", map[string]any{"sessionId": id, "cursor": 0})
		assert.Equal(t, got, all.Output, "cursor 0 after the end")
		assert.Equal(t, int64(len(got)), all.Cursor)
		assert.False(t, all.More)
	}
	raw, rerr := c.call("session/list", nil)
	require.Nil(t, rerr)
	assert.Contains(t, string(raw), fmt.Sprintf(`"cursor":%d`, len(got)), "session/list: %s", raw)
	noneLeft(t, m)
}

// TestCursorOlderThanWhatIsKept: a cursor older than the history kept in
// memory (at least the last MiB) answers with the oldest line kept, says
// how many bytes it skipped, and names the spill file, which holds it all.
func TestCursorOlderThanWhatIsKept(t *testing.T) {
	t.Parallel()
	c := start(t, "ndjson", t.TempDir(), nil)
	m := marker()
	r := c.exec(map[string]any{"command": "seq 1 400000; : " + m, "background": true, "yieldMs": 0, "mode": "pipes"})
	require.Equal(t, "background", r.State, describe(r))
	end := c.run("session/read", map[string]any{"sessionId": r.SessionID, "until": "exit", "yieldMs": 60000})
	require.NotNil(t, end.ExitCode, describe(end))
	for range 2 {
		old := c.run("session/read", map[string]any{"sessionId": r.SessionID, "cursor": 0})
		require.Greater(t, old.Skipped, int64(0), describe(old))
		assert.True(t, old.Truncated, "a read that skipped says so in truncated too")
		assert.True(t, old.More, "the kept MiB does not fit one answer")
		assert.LessOrEqual(t, len([]rune(old.Output)), 16000)
		firstKept, err := strconv.Atoi(strings.SplitN(old.Output, "\n", 2)[0])
		require.NoError(t, err, "output %.80q", old.Output)
		skipped := int64(0)
		for i := 1; i < firstKept; i++ {
			skipped += int64(len(strconv.Itoa(i)) + 1)
		}
		assert.Equal(t, skipped, old.Skipped, "skipped counts the bytes of lines 1 to %d", firstKept-1)
		assert.Less(t, skipped, end.Cursor-1<<20, "at least the last MiB is kept")
		require.NotNil(t, old.FullOutputPath)
		full, err := os.ReadFile(*old.FullOutputPath)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(string(full), "1\n2\n3\n"), "the spill file starts with %.20q", full)
		assert.True(t, strings.HasSuffix(string(full), "\n400000\n"), "the spill file holds the end")
	}
	last := c.run("session/read", map[string]any{"sessionId": r.SessionID, "cursor": end.Cursor - 7})
	assert.Equal(t, "400000\n", last.Output)
	assert.Zero(t, last.Skipped)
	_, rerr := c.call("session/read", map[string]any{"sessionId": r.SessionID, "cursor": end.Cursor + 1})
	require.NotNil(t, rerr, "a cursor past the end")
	assert.Equal(t, -32602, rerr.Code)
	assert.Contains(t, rerr.Message, `"cursor"`)
}

// TestCursorCoversBothStreams: where stderr is apart, one cursor counts
// both streams' lines in the order they came, and a read from it splits
// them again.
func TestCursorCoversBothStreams(t *testing.T) {
	t.Parallel()
	c := start(t, "ndjson", t.TempDir(), nil)
	r := c.exec(map[string]any{"command": "echo out1; sleep 0.2; echo err1 >&2; sleep 0.2; echo out2; sleep 30",
		"mode": "pipes", "background": true, "yieldMs": 0})
	require.Equal(t, "background", r.State, describe(r))
	var all result
	waitFor(t, "three lines", func() bool {
		all = c.run("session/read", map[string]any{"sessionId": r.SessionID, "cursor": 0})
		return all.Cursor == int64(len("out1\nerr1\nout2\n"))
	})
	assert.Equal(t, "out1\nout2\n", all.Output)
	require.NotNil(t, all.Stderr)
	assert.Equal(t, "err1\n", *all.Stderr)
	from := c.run("session/read", map[string]any{"sessionId": r.SessionID, "cursor": len("out1\n")})
	assert.Equal(t, "out2\n", from.Output)
	assert.Equal(t, "err1\n", *from.Stderr)
	c.run("session/kill", map[string]any{"sessionId": r.SessionID, "signal": "SIGKILL"})
}

// pingOf is a ping of h's client, for pinging.
func pingOf(h *mcpHost) func() {
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), watchdog)
		defer cancel()
		h.cs.Ping(ctx, &sdk.PingParams{})
	}
}

// pinging calls ping every 100 ms until the returned stop is called (or
// the test ends): a host that keeps its heartbeat while it waits for
// answers, however slow the machine makes them.
func pinging(t *testing.T, ping func()) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
				ping()
			}
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() { close(done) })
		<-finished
	}
	t.Cleanup(stop)
	return stop
}

// TestHeartbeatEndsASilentHost: a host that asked for a heartbeat and
// then sends nothing, its pipes still open, is gone after three periods:
// its commands' trees end and the helper exits, as when a host dies.
func TestHeartbeatEndsASilentHost(t *testing.T) {
	t.Parallel()
	c := start(t, "ndjson", t.TempDir(), []string{"--log-level", "info"})
	m := marker()
	r := c.exec(map[string]any{"command": "sleep " + m, "background": true, "yieldMs": 0})
	require.Equal(t, "background", r.State, describe(r))
	// initialize may come late; the heartbeat counts from it.
	raw, rerr := c.call("initialize", map[string]any{"heartbeatMs": 200})
	require.Nil(t, rerr)
	assert.Contains(t, string(raw), `"restored":[]`)
	within(t, c.exited, "the helper's exit after three silent heartbeats")
	noneLeft(t, m)
	assert.Contains(t, c.stderr.String(), "heartbeats")
}

// TestHeartbeatKeptByPings: a host that sends $/ping more often than its
// heartbeat keeps its commands, long past three periods.
func TestHeartbeatKeptByPings(t *testing.T) {
	t.Parallel()
	c := start(t, "ndjson", t.TempDir(), nil)
	pinging(t, func() { c.send(map[string]any{"jsonrpc": "2.0", "method": "$/ping"}) })
	_, rerr := c.call("initialize", map[string]any{"heartbeatMs": 500})
	require.Nil(t, rerr)
	m := marker()
	r := c.exec(map[string]any{"command": "sleep " + m, "background": true, "yieldMs": 0})
	require.Equal(t, "background", r.State, describe(r))
	time.Sleep(3 * time.Second) // six heartbeats, three of them enough to end a silent host
	_, rerr = c.call("$/ping", nil)
	require.Nil(t, rerr, "$/ping as a request is answered")
	alive := c.run("session/read", map[string]any{"sessionId": r.SessionID})
	assert.Equal(t, "background", alive.State, describe(alive))
	_, rerr = c.call("initialize", map[string]any{"heartbeatMs": 50})
	require.NotNil(t, rerr, "a heartbeat under 100 ms")
	assert.Equal(t, -32602, rerr.Code)
	c.run("session/kill", map[string]any{"sessionId": r.SessionID})
	noneLeft(t, m)
}

// toolRead is what the cursor tests read of a terminal tool result's
// structured content: the fields whose names every form of it shares, and
// the session's id in either spelling. A result without a state is a
// finished command's.
type toolRead struct {
	State     string `json:"state"`
	Output    string `json:"output"`
	Cursor    int64  `json:"cursor"`
	More      bool   `json:"more"`
	SessionID string `json:"sessionId"`
	Snake     string `json:"session_id"`
}

func readOf(t *testing.T, res *sdk.CallToolResult) toolRead {
	t.Helper()
	require.False(t, res.IsError, text(res))
	data, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var r toolRead
	require.NoError(t, json.Unmarshal(data, &r), "%s", data)
	r.SessionID += r.Snake
	return r
}

// asResult is a tool's read as a native answer.
func (r toolRead) asResult() result {
	out := result{State: r.State, Output: r.Output, Cursor: r.Cursor, More: r.More, SessionID: r.SessionID}
	if r.State == "" {
		out.ExitCode = new(int)
	}
	return out
}

// TestMCPCursor: the terminal tool reads from a cursor too: every line
// of a server once, and a cursor's text again when asked twice.
func TestMCPCursor(t *testing.T) {
	t.Parallel()
	h := startMCP(t, mcpOpts{})
	m := marker()
	res := h.call(map[string]any{"command": numbered(100, m), "background": true, "yield_ms": 300})
	r := readOf(t, res)
	require.Equal(t, "background", r.State, text(res))
	got := readFrom(t, 0, func(cursor int64, wait bool) result {
		args := map[string]any{"session_id": r.SessionID, "input": "", "cursor": cursor}
		if wait {
			args["yield_ms"] = 10000
		}
		return readOf(t, h.call(args)).asResult()
	})
	require.Equal(t, wantNumbered(100), got)
	res = h.call(map[string]any{"session_id": r.SessionID, "input": "x", "cursor": 0})
	assert.True(t, res.IsError, "a cursor with input to type")
	noneLeft(t, m)
}

// TestMCPHeartbeat: with heartbeat_ms in the user's config, a client that
// sends nothing for three periods is gone and its commands end; one that
// pings keeps them.
func TestMCPHeartbeat(t *testing.T) {
	t.Parallel()
	t.Run("silent", func(t *testing.T) {
		t.Parallel()
		h := startMCP(t, mcpOpts{config: "heartbeat_ms = 200\n"})
		stop := pinging(t, pingOf(h)) // until the command runs
		m := marker()
		res := h.call(map[string]any{"command": "sleep " + m, "background": true, "yield_ms": 0})
		require.Equal(t, "background", readOf(t, res).State, text(res))
		stop()
		done := make(chan error, 1)
		go func() { done <- h.cs.Wait() }()
		within(t, done, "the helper's end after three silent heartbeats")
		noneLeft(t, m)
	})
	t.Run("pinging", func(t *testing.T) {
		t.Parallel()
		h := startMCP(t, mcpOpts{config: "heartbeat_ms = 500\n"})
		pinging(t, pingOf(h))
		m := marker()
		res := h.call(map[string]any{"command": "sleep " + m, "background": true, "yield_ms": 0})
		id := readOf(t, res).SessionID
		time.Sleep(3 * time.Second) // six heartbeats
		res = h.call(map[string]any{"session_id": id, "input": ""})
		assert.Equal(t, "background", readOf(t, res).State)
		h.call(map[string]any{"session_id": id, "kill": true})
		noneLeft(t, m)
	})
}
