//go:build linux

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMCPInterruptMidCall: SIGINT (what Claude Code sends first when it
// quits) or SIGTERM with a background session alive and a foreground call
// in flight, both commands ignoring SIGTERM: the call's answer is still
// written, termhelper exits, and neither command is left. How soon it
// exits is measured by the bench (shutdown), within the 100 ms Claude
// Code waits before SIGTERM and then SIGKILL.
func TestMCPInterruptMidCall(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			root, err := filepath.EvalSymlinks(t.TempDir())
			require.NoError(t, err)
			cmd := exec.Command(binary, "--mcp", "--root", root)
			cmd.Env = append(cmd.Environ(), "TERMHELPER_CONFIG_DIR="+filepath.Join(root, ".cfg"), "SHELL=")
			in, err := cmd.StdinPipe()
			require.NoError(t, err)
			out, err := cmd.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			lines := make(chan map[string]any, 16)
			go readLines(out, lines)
			send := func(v string) { fmt.Fprintln(in, v) }
			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`)
			within(t, lines, "the answer to initialize")
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			bg, fg := marker(), marker()
			send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"terminal","arguments":{"command":"` + stubborn + bg + `","background":true,"yield_ms":0}}}`)
			within(t, lines, "the background session's start")
			send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"terminal","arguments":{"command":"` + stubborn + fg + `"}}}`)
			waitFor(t, "the foreground command running", func() bool { return len(pidsWith(fg)) > 0 })
			require.NoError(t, cmd.Process.Signal(sig))
			answer := within(t, lines, "the in-flight call's answer")
			assert.EqualValues(t, 3, answer["id"], "%v", answer)
			// SIGKILL, or SIGTERM when it came before the trap was set;
			// or, when it came after the spare had started the command but
			// before the call took the session in, the refusal of a helper
			// shutting down (the command is ended all the same).
			assert.Regexp(t, `SIG(KILL|TERM)|shutting down`, fmt.Sprint(answer["result"]), "the call says how its command ended")
			_, open := <-lines
			assert.False(t, open, "nothing after the answer")
			require.NoError(t, cmd.Wait())
			noneLeft(t, fg)
			noneLeft(t, bg)
		})
	}
}

// stubborn starts a command line that ignores SIGTERM, SIGINT and SIGHUP,
// and so does the sleep it runs.
const stubborn = "trap '' TERM INT HUP; sleep "

// readLines decodes each line of r into lines, and closes it at EOF.
func readLines(r io.Reader, lines chan<- map[string]any) {
	defer close(lines)
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			lines <- m
		}
	}
}
