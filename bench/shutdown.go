//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"syscall"
	"time"
)

// hostPatience is how long Claude Code waits after SIGINT before it sends
// SIGTERM, and SIGKILL after that: a server still up then is killed, and
// what it had not ended yet is left behind.
const hostPatience = 100 * time.Millisecond

// benchShutdown times SIGINT to exit with a background session alive and
// a foreground call in flight, as a host quits: once with commands that
// end on SIGTERM, once with commands that ignore it (escalated to SIGKILL).
// The in-flight call's answer must have been written, and neither command
// left.
func benchShutdown(e *env) (result, error) {
	var res result
	n := e.reps(30, 3)
	for _, c := range []struct{ name, command string }{
		{"commands that end on SIGTERM", "sleep 3600"},
		{"commands that ignore SIGTERM", "trap '' TERM HUP INT; sleep 3600"},
	} {
		var s samples
		for range n {
			d, err := shutdownOnce(e, c.command)
			if err != nil {
				return res, fmt.Errorf("%s: %w", c.name, err)
			}
			s = append(s, d)
		}
		res.add(row{"SIGINT to exit, a session and a call in flight, " + c.name + ", median", "",
			fmtDur(s.median()), "", "< 100 ms (the host's SIGTERM)", verdict(s.median() < hostPatience)})
		res.add(row{"SIGINT to exit, " + c.name + ", p95", "", fmtDur(s.p95()), "", "", ""})
	}
	res.note("shutdown: %d runs each of `termhelper --mcp` with a background session and a foreground call, then SIGINT; timed to the helper's exit (its in-flight answer written, both commands gone).", n)
	return res, nil
}

// shutdownOnce starts a helper with command as a background session and
// again as a call in flight, interrupts it, and times it to its exit.
func shutdownOnce(e *env, command string) (time.Duration, error) {
	h, err := spawn(e, "--mcp")
	if err != nil {
		return 0, err
	}
	defer h.close()
	if _, _, _, err := h.call("initialize", mcpInitialize); err != nil {
		return 0, err
	}
	h.wmu.Lock()
	fmt.Fprintln(h.stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	h.wmu.Unlock()
	raw, _, _, err := h.call("tools/call", map[string]any{"name": "terminal",
		"arguments": map[string]any{"command": command, "background": true, "yield_ms": 0}})
	if err != nil {
		return 0, err
	}
	var bg struct {
		StructuredContent struct{ Pid int } `json:"structuredContent"`
	}
	if err := json.Unmarshal(raw, &bg); err != nil || bg.StructuredContent.Pid == 0 {
		return 0, fmt.Errorf("the background start: %s", raw)
	}
	fg, _, err := h.send("tools/call", map[string]any{"name": "terminal", "arguments": map[string]any{"command": command}})
	if err != nil {
		return 0, err
	}
	time.Sleep(300 * time.Millisecond) // the call under way
	start := time.Now()
	if err := h.cmd.Process.Signal(syscall.SIGINT); err != nil {
		return 0, err
	}
	<-h.exited
	took := time.Since(start)
	select {
	case <-fg:
	default:
		return 0, fmt.Errorf("the call in flight got no answer; stderr: %s", h.stderr.String())
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", bg.StructuredContent.Pid)); err == nil {
		syscall.Kill(-bg.StructuredContent.Pid, syscall.SIGKILL)
		return 0, fmt.Errorf("the background command %d outlived the helper", bg.StructuredContent.Pid)
	}
	return took, nil
}
