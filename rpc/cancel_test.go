package rpc

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/termhelper/termhelper/protocol"
)

// pidsWith lists the processes whose command line holds marker.
func pidsWith(t *testing.T, marker string) []string {
	t.Helper()
	needProcessTable(t)
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var pids []string
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err == nil && strings.Contains(string(b), marker) {
			pids = append(pids, filepath.Base(filepath.Dir(d)))
		}
	}
	return pids
}

// needProcessTable skips a test that must read the process table where
// there is none; such a test asks first, before it starts a command that
// may not run there (sleep under Wine).
func needProcessTable(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		// Under Wine, Z:\proc is the Linux host's, of no use for Windows'
		// own processes; the command line is sh's too.
		t.Skip("Windows has no /proc: the process table cannot be read")
	}
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc here: the process table cannot be read")
	}
}

// marker is a sleep duration no other process uses: fixed-width, so that
// no marker holds another, with the pid, so that no other test binary
// running at the same time has it.
func marker() string { return fmt.Sprintf("30.%07d%09d", os.Getpid(), time.Now().UnixNano()%1e9) }

// listed waits until session/list shows a session running command and
// returns its id: the foreground command is listed while its call waits.
func (h *host) listed(command string) string {
	h.t.Helper()
	deadline := time.Now().Add(watchdog)
	for time.Now().Before(deadline) {
		m := h.call("session/list", `{}`)
		require.Nil(h.t, m.Error)
		var list protocol.List
		require.NoError(h.t, json.Unmarshal(m.Result, &list))
		for _, r := range list.Sessions {
			if r.Command == command && r.State == "running" {
				return r.SessionID
			}
		}
		time.Sleep(20 * time.Millisecond) // a poll for an event that has no signal
	}
	h.t.Fatalf("%q was never listed", command)
	return ""
}

// nextWithID reads messages until the answer to id, returning the
// requests and notifications seen before it.
func (h *host) nextWithID(id string) (msg, []msg) {
	h.t.Helper()
	var before []msg
	for {
		m := h.next()
		if m.ID != nil && string(*m.ID) == id && m.Method == "" {
			return m, before
		}
		before = append(before, m)
	}
}

func TestCancelledRunEndsItsTree(t *testing.T) {
	needProcessTable(t)
	h := serve(t, nil)
	m := marker()
	command := "sleep " + m + " & sleep " + m + "; wait"
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":41,"method":"exec/run","params":{"command":%q}}`, command))
	id := h.listed(command)
	require.NotEmpty(t, id)
	require.NotEmpty(t, pidsWith(t, m), "the command runs")
	h.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":41}}`)
	ans, _ := h.nextWithID("41")
	require.NotNil(t, ans.Error, "a cancelled exec/run answers an error")
	assert.Equal(t, protocol.CodeCancelled, ans.Error.Code)
	assert.Empty(t, pidsWith(t, m), "the tree is gone when the cancelled call answers")
}

func TestCancelledWaitLeavesTheSession(t *testing.T) {
	needProcessTable(t)
	h := serve(t, nil)
	m := marker()
	r := h.call("exec/run", fmt.Sprintf(`{"command":"sleep %s","background":true,"yieldMs":0}`, m))
	require.Nil(t, r.Error)
	var alive protocol.Alive
	require.NoError(t, json.Unmarshal(r.Result, &alive))
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":42,"method":"session/read","params":{"sessionId":%q,"until":"exit"}}`, alive.SessionID),
		`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":42}}`)
	ans, _ := h.nextWithID("42")
	require.NotNil(t, ans.Error)
	assert.Equal(t, protocol.CodeCancelled, ans.Error.Code)
	assert.NotEmpty(t, pidsWith(t, m), "only the wait ended")
	r = h.call("session/kill", fmt.Sprintf(`{"sessionId":%q}`, alive.SessionID))
	require.Nil(t, r.Error)
	assert.Empty(t, pidsWith(t, m))
}

func TestCancelledRunWithdrawsItsApprovalQuestion(t *testing.T) {
	h := serve(t, nil)
	require.Nil(t, h.call("initialize", `{"capabilities":{"approval":true}}`).Error)
	h.send(`{"jsonrpc":"2.0","id":43,"method":"exec/run","params":{"command":"touch asked"}}`)
	ask := h.next()
	require.Equal(t, "approval/request", ask.Method)
	h.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":43}}`)
	ans, before := h.nextWithID("43")
	withdrawn := false
	for _, m := range before {
		if m.Method == "$/cancelRequest" && strings.Contains(string(m.Params), `"id":`+string(*ask.ID)) {
			withdrawn = true
		}
	}
	assert.True(t, withdrawn, "the open question is withdrawn with $/cancelRequest")
	require.NotNil(t, ans.Error)
	assert.Equal(t, protocol.CodeCancelled, ans.Error.Code)
	// The host's late answer to the withdrawn question runs nothing.
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"decision":"allow"}}`, *ask.ID))
	require.Nil(t, h.call("session/list", `{}`).Error)
	assert.NoFileExists(t, filepath.Join(h.root, "asked"))
}
