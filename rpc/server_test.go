package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/policy"
	"github.com/termhelper/termhelper/wire"
)

const watchdog = 30 * time.Second

// host is the test's end of an in-process connection to a Server.
type host struct {
	t    *testing.T
	conn net.Conn
	in   *bufio.Reader
	done chan struct{} // closed when Serve returns
	root string
}

type msg struct {
	ID     *json.RawMessage `json:"id"`
	Method string           `json:"method"`
	Params json.RawMessage  `json:"params"`
	Result json.RawMessage  `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// serve starts a Server with the default policy over net.Pipe.
func serve(t *testing.T, afterFirst func()) *host {
	t.Helper()
	return serveConfig(t, config.Default(), afterFirst)
}

func serveConfig(t *testing.T, cfg config.Config, afterFirst func()) *host {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	store, err := policy.OpenStore(t.TempDir(), root)
	require.NoError(t, err)
	eng := engine.New(engine.Options{Root: root, Config: cfg, Store: store,
		Policy: policy.New(cfg, root, store), BaseEnv: func() []string { return []string{"PATH=" + os.Getenv("PATH")} }})
	srv := New(eng, Options{AfterFirst: afterFirst})
	a, b := net.Pipe()
	h := &host{t: t, conn: a, in: bufio.NewReader(a), done: make(chan struct{}), root: root}
	go func() {
		defer close(h.done)
		srv.Serve(context.Background(), b, wire.NDJSON)
	}()
	t.Cleanup(h.close)
	return h
}

func (h *host) close() {
	h.conn.Close()
	select {
	case <-h.done:
	case <-time.After(watchdog):
		h.t.Error("Serve did not return after the host went away")
	}
}

// send writes raw lines in one write.
func (h *host) send(lines ...string) {
	h.conn.SetWriteDeadline(time.Now().Add(watchdog))
	_, err := h.conn.Write([]byte(strings.Join(lines, "\n") + "\n"))
	require.NoError(h.t, err)
}

func (h *host) next() msg {
	h.t.Helper()
	h.conn.SetReadDeadline(time.Now().Add(watchdog))
	line, err := h.in.ReadBytes('\n')
	require.NoError(h.t, err, "no message within the watchdog")
	var m msg
	require.NoError(h.t, json.Unmarshal(line, &m), "%q", line)
	return m
}

// call sends one request and returns its answer, skipping notifications.
func (h *host) call(method, params string) msg {
	h.t.Helper()
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":%s}`, method, params))
	for {
		if m := h.next(); m.Method == "" {
			return m
		}
	}
}

func TestPipelinedUntrustedCommandNeverRuns(t *testing.T) {
	for i := range 200 {
		h := serve(t, nil)
		h.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"trusted":false}}`,
			`{"jsonrpc":"2.0","id":2,"method":"exec/run","params":{"command":"touch ran-untrusted"}}`)
		got := map[string]msg{}
		for len(got) < 2 {
			m := h.next()
			got[string(*m.ID)] = m
		}
		require.NotNil(t, got["2"].Error, "round %d: the untrusted command was not refused", i)
		require.Equal(t, CodeNotApproved, got["2"].Error.Code, "round %d", i)
		require.NoFileExists(t, filepath.Join(h.root, "ran-untrusted"), "round %d", i)
		h.close()
	}
}

func TestPipelinedApprovalIsAskedFirst(t *testing.T) {
	for i := range 200 {
		h := serve(t, nil)
		h.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"trusted":false,"capabilities":{"approval":true}}}`,
			`{"jsonrpc":"2.0","id":2,"method":"exec/run","params":{"command":"touch ran-untrusted"}}`)
		m := h.next()
		require.Equal(t, "1", string(*m.ID), "round %d: initialize is answered first", i)
		m = h.next()
		require.Equal(t, "approval/request", m.Method, "round %d: %+v", i, m)
		h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"decision":"deny"}}`, *m.ID))
		m = h.next()
		require.NotNil(t, m.Error, "round %d", i)
		require.Equal(t, CodeNotApproved, m.Error.Code)
		require.NoFileExists(t, filepath.Join(h.root, "ran-untrusted"))
		h.close()
	}
}

func TestMethodTableAndErrorCodes(t *testing.T) {
	h := serve(t, nil)
	for _, c := range []struct{ method, params, field string }{
		{"no/such", `{}`, "-32601"},
		{"exec/run", `{"command":5}`, `"command"`},
		{"exec/run", `{"command":"true","mode":"tty"}`, `"mode"`},
		{"exec/run", `{"command":"true","yieldMs":-1}`, `"yieldMs"`},
		{"exec/run", `{"command":"  "}`, `"command"`},
		{"exec/run", `[1]`, "object"},
		{"session/write", `{"sessionId":"1"}`, `"input"`},
		{"session/read", `{}`, `"sessionId"`},
		{"session/read", `{"sessionId":"1","until":"later"}`, `"until"`},
		{"session/kill", `{"sessionId":"1","signal":"SIGSTOP"}`, `"signal"`},
		{"session/resize", `{"sessionId":"1","cols":0,"rows":5}`, `"cols"`},
		{"policy/check", `{}`, `"command"`},
		{"trash/restore", `{"id":3}`, `"id"`},
	} {
		m := h.call(c.method, c.params)
		require.NotNil(t, m.Error, "%s %s", c.method, c.params)
		if c.field == "-32601" {
			assert.Equal(t, -32601, m.Error.Code)
			continue
		}
		assert.Equal(t, -32602, m.Error.Code, "%s %s: %s", c.method, c.params, m.Error.Message)
		assert.Contains(t, m.Error.Message, c.field, "%s %s", c.method, c.params)
	}
	for _, c := range []struct {
		method, params string
		code           int
	}{
		{"session/read", `{"sessionId":"42"}`, CodeNoSession},
		// The top of the root's volume: "/" on Unix; C:\ on Windows, where
		// "/" has no drive, is not absolute, and is taken from the root.
		{"exec/run", fmt.Sprintf(`{"command":"true","cwd":%q}`, filepath.VolumeName(h.root)+string(filepath.Separator)), CodeOutsideRoot},
		{"exec/run", `{"command":"sudo true"}`, CodeBlocked},
	} {
		m := h.call(c.method, c.params)
		require.NotNil(t, m.Error, "%s %s", c.method, c.params)
		assert.Equal(t, c.code, m.Error.Code, "%s %s: %s", c.method, c.params, m.Error.Message)
	}
	m := h.call("exec/run", `{"command":"sudo true"}`)
	assert.Contains(t, string(m.Error.Data), `"reasons"`)
	m = h.call("shutdown", `null`)
	require.Nil(t, m.Error)
	m = h.call("exec/run", `{"command":"true"}`)
	require.NotNil(t, m.Error)
	assert.Equal(t, -32600, m.Error.Code, "refused once shut down")
}

func TestApprovalRoundTrip(t *testing.T) {
	// A command the policy asks about that leaves a trace: touch under sh;
	// on Windows cmd's mkdir, which needs no PowerShell.
	cfg, create, exists := config.Default(), "touch", assert.FileExists
	if runtime.GOOS == "windows" {
		cfg.Shell, create, exists = "cmd", "mkdir", assert.DirExists
	}
	h := serveConfig(t, cfg, nil)
	require.Nil(t, h.call("initialize", `{"capabilities":{"approval":true}}`).Error)
	for _, c := range []struct {
		decision string
		ran      bool
	}{{"deny", false}, {"allow", true}, {"always", true}} {
		file := "ran-" + c.decision
		h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":9,"method":"exec/run","params":{"command":"%s %s"}}`, create, file))
		req := h.next()
		require.Equal(t, "approval/request", req.Method)
		assert.Contains(t, string(req.Params), `"command":"`+create+` `+file+`"`)
		assert.Contains(t, string(req.Params), `"reasons":[`)
		h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"decision":%q}}`, *req.ID, c.decision))
		m := h.next()
		if !c.ran {
			require.NotNil(t, m.Error)
			assert.Equal(t, CodeNotApproved, m.Error.Code)
			assert.Equal(t, "user declined to run this command", m.Error.Message)
			assert.NoFileExists(t, filepath.Join(h.root, file))
			assert.NoDirExists(t, filepath.Join(h.root, file))
			continue
		}
		require.Nil(t, m.Error, "%+v", m.Error)
		exists(t, filepath.Join(h.root, file))
	}
	// "always" on the command: the next one is not asked.
	m := h.call("exec/run", `{"command":"`+create+` again"}`)
	require.Nil(t, m.Error, "%+v", m.Error)
	exists(t, filepath.Join(h.root, "again"))
}

// A host whose input ends right after the first answer: every goroutine
// of the helper ends, the work started after the first answer included.
func TestInputEndAfterFirstAnswerLeavesNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	afterFirst := make(chan struct{})
	h := serve(t, func() { close(afterFirst) })
	h.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	h.next()
	h.conn.Close()
	select {
	case <-h.done:
	case <-time.After(watchdog):
		t.Fatal("Serve did not return")
	}
	select {
	case <-afterFirst:
	default:
		t.Fatal("the work after the first answer did not run before Serve returned")
	}
	deadline := time.Now().Add(watchdog)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), before, "goroutines left running")
}
