//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// benchPrompt measures how long after a prompt is written the helper
// answers "waiting". The command is bash's `read -p`, which stamps the
// wall clock with the builtin $EPOCHREALTIME (no fork) just before it
// writes the prompt and blocks on the terminal.
func benchPrompt(e *env) (result, error) {
	var res result
	bash, err := exec.LookPath("bash")
	if err != nil {
		res.note("prompt: skipped, no bash on PATH")
		return res, nil
	}
	h, err := spawn(e)
	if err != nil {
		return res, err
	}
	defer h.close()
	var th samples
	n := e.reps(20, 3)
	for i := range n {
		d, err := promptOnce(h, bash, filepath.Join(e.root(), fmt.Sprintf("prompt-%d", i)))
		if err != nil {
			return res, err
		}
		th = append(th, d)
	}
	res.add(row{"prompt written to `waiting` answer, median", "", fmtDur(th.median()), "", "< 200 ms",
		verdict(th.median() < 200*time.Millisecond)})
	res.add(row{"prompt written to `waiting` answer, p95", "", fmtDur(th.p95()), "", "< 200 ms",
		verdict(th.p95() < 200*time.Millisecond)})
	res.note("prompt: %d runs of `read -p \"name: \"` in bash; the stamp is $EPOCHREALTIME written just before the prompt; each run is then answered with session/write.", n)
	return res, nil
}

func promptOnce(h *helper, bash, stamp string) (time.Duration, error) {
	script := fmt.Sprintf(`printf %%s "${EPOCHREALTIME/./}" > %s; read -p "name: " x; echo "hi $x"`, shellQuote(stamp))
	command := "exec " + shellQuote(bash) + " -c " + shellQuote(script)
	var a runAnswer
	res, _, at, err := h.call("exec/run", map[string]any{"command": command, "timeoutMs": 30000})
	if err != nil {
		return 0, err
	}
	if err := jsonInto(res, &a); err != nil || a.State != "waiting" || a.Prompt == nil {
		return 0, fmt.Errorf("expected a waiting answer, got %s", res)
	}
	var done runAnswer
	if _, err := h.callInto(&done, "session/write", map[string]any{"sessionId": a.SessionID, "input": "bench\n"}); err != nil {
		return 0, err
	}
	b, err := os.ReadFile(stamp)
	if err != nil {
		return 0, err
	}
	os.Remove(stamp)
	us, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, err
	}
	return at.Sub(time.UnixMicro(us)), nil
}
