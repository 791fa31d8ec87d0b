package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/policy"
	"github.com/termhelper/termhelper/rpc"
	"github.com/termhelper/termhelper/wire"
)

// client is the test's end of an in-process MCP connection.
type client struct {
	t    *testing.T
	conn net.Conn
	in   *bufio.Reader
}

func connect(t *testing.T) *client {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	cfg := config.Default()
	eng := engine.New(engine.Options{Root: root, Config: cfg, Policy: policy.New(cfg, root, nil)})
	srv := rpc.New(eng, rpc.Options{Front: Front(eng, "test")})
	a, b := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(context.Background(), b, wire.NDJSON)
	}()
	t.Cleanup(func() {
		a.Close()
		<-done
	})
	return &client{t: t, conn: a, in: bufio.NewReader(a)}
}

type reply struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (c *client) call(method, params string) reply {
	c.t.Helper()
	c.conn.SetDeadline(time.Now().Add(30 * time.Second))
	_, err := c.conn.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + "}\n"))
	require.NoError(c.t, err)
	return c.next()
}

func TestVersionNegotiation(t *testing.T) {
	c := connect(t)
	for asked, want := range map[string]string{"2025-06-18": "2025-06-18", "2024-11-05": "2024-11-05", "2099-01-01": versions[0]} {
		r := c.call("initialize", `{"protocolVersion":"`+asked+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)
		require.Nil(t, r.Error)
		var res struct {
			ProtocolVersion string
			ServerInfo      struct{ Name string }
			Capabilities    map[string]any
		}
		require.NoError(t, json.Unmarshal(r.Result, &res))
		assert.Equal(t, want, res.ProtocolVersion, "asked %s", asked)
		assert.Equal(t, "termhelper", res.ServerInfo.Name)
		assert.Contains(t, res.Capabilities, "tools")
	}
	assert.Equal(t, "{}", string(c.call("ping", `{}`).Result))
}

func TestBadToolCalls(t *testing.T) {
	c := connect(t)
	r := c.call("tools/call", `{"name":"shell","arguments":{}}`)
	require.NotNil(t, r.Error)
	assert.Equal(t, -32602, r.Error.Code)
	for args, want := range map[string]string{
		`{"comand":"ls"}`:                   `unknown field "comand"`,
		`{"command":5}`:                     `argument "command" must be a string`,
		`{}`:                                `give "command" to run`,
		`{"command":"ls","session_id":"1"}`: `not both`,
		`{"session_id":"42","kill":true}`:   `no such session`,
	} {
		r := c.call("tools/call", `{"name":"terminal","arguments":`+args+`}`)
		require.Nil(t, r.Error, args)
		var res toolResult
		require.NoError(t, json.Unmarshal(r.Result, &res))
		assert.True(t, res.IsError, args)
		require.Len(t, res.Content, 1)
		assert.Contains(t, res.Content[0].Text, want, args)
	}
}

func TestToolSchemaNamesEveryArgument(t *testing.T) {
	props := inputSchema["properties"].(schema)
	var a Args
	data, _ := json.Marshal(a)
	var fields map[string]any
	require.NoError(t, json.Unmarshal(data, &fields))
	for name := range fields {
		p, ok := props[name].(schema)
		require.True(t, ok, "argument %q has no schema", name)
		assert.NotEmpty(t, p["description"], name)
	}
	assert.Len(t, props, len(fields), "every schema property is an argument")
	assert.True(t, strings.Contains(toolDescription, "secret: ask the user"))
}

// next reads the next message that is not a notification.
func (c *client) next() reply {
	c.t.Helper()
	c.conn.SetDeadline(time.Now().Add(30 * time.Second))
	for {
		line, err := c.in.ReadBytes('\n')
		require.NoError(c.t, err)
		var r reply
		require.NoError(c.t, json.Unmarshal(line, &r))
		if r.Method == "" {
			return r
		}
	}
}

func TestCancelEndsTheWaitNotTheSession(t *testing.T) {
	c := connect(t)
	r := c.call("tools/call", `{"name":"terminal","arguments":{"command":"sleep 30","background":true,"yield_ms":0}}`)
	var res struct {
		StructuredContent struct{ SessionID string }
	}
	require.NoError(t, json.Unmarshal(r.Result, &res))
	id := res.StructuredContent.SessionID
	require.NotEmpty(t, id)
	_, err := c.conn.Write([]byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"terminal","arguments":{"session_id":"` + id + `","until":"exit"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"user"}}` + "\n"))
	require.NoError(t, err)
	r = c.next()
	assert.Equal(t, "5", string(r.ID), "the cancelled wait answers at once")
	var alive toolResult
	require.NoError(t, json.Unmarshal(r.Result, &alive))
	assert.Contains(t, alive.Content[0].Text, "session "+id+" running in the background")
	r = c.call("tools/call", `{"name":"terminal","arguments":{"session_id":"`+id+`","kill":true}}`)
	assert.Contains(t, string(r.Result), "killed (SIGTERM)", "the session went on until killed")
}
