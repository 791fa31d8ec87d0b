//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// benchConcurrency starts many background sessions that each print a line
// every 10 ms, measures the helper's CPU and memory while they run, then
// kills them all and looks for leftover processes and descriptors.
func benchConcurrency(e *env) (result, error) {
	var res result
	n, window := e.reps(100, 10), time.Duration(e.reps(10, 2))*time.Second
	h, base, err := concurrencyHelper(e, n)
	if err != nil {
		return res, err
	}
	defer h.close()
	ids, err := startTickers(e, h, n, window+30*time.Second)
	if err != nil {
		return res, err
	}
	cpu, rss, hwm, err := loadOver(h.pid(), window)
	if err != nil {
		return res, err
	}
	res.add(row{fmt.Sprintf("%d sessions, a line each 10 ms: helper CPU", n), "", fmt.Sprintf("%.0f%% of a core", cpu), "", "", ""})
	res.add(row{fmt.Sprintf("%d sessions: helper RSS (peak)", n), "", fmt.Sprintf("%s (%s)", fmtMiB(rss), fmtMiB(hwm)), "", "", ""})
	took, err := killAll(h, ids)
	if err != nil {
		return res, err
	}
	left, fds := leftovers(h.pid(), base)
	res.add(row{"kill all: processes left", "", fmt.Sprint(len(left)), "", "0", verdict(len(left) == 0)})
	res.add(row{"kill all: helper fds, before start then after kill", "", fmt.Sprintf("%d, %d", base, fds), "", "no growth", verdict(fds <= base)})
	if fds > base {
		res.note("concurrency: the helper's fds after the kill, by target: %s", fdTargets(h.pid()))
	}
	res.note("concurrency: %d background sessions of this bench's child printing a line every 10 ms; CPU is the helper's utime+stime over %s; the host reads nothing meanwhile. session/kill (SIGTERM) of all %d at once took %s; leftovers are live processes carrying the helper's TERMHELPER_SESSION tag.",
		n, window, n, fmtDur(took))
	return res, nil
}

// concurrencyHelper spawns a helper allowing n live sessions, runs one
// command so that lazily made descriptors exist, and counts its fds.
func concurrencyHelper(e *env, n int) (*helper, int, error) {
	cfg := filepath.Join(e.tmp, "concurrency.toml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("[limits]\nmax_sessions = %d\n", n+16)), 0o600); err != nil {
		return nil, 0, err
	}
	h, err := spawn(e, "--config", cfg)
	if err != nil {
		return nil, 0, err
	}
	if _, err := runOnce(h, map[string]any{"command": "true"}); err != nil {
		h.close()
		return nil, 0, err
	}
	time.Sleep(200 * time.Millisecond)
	fds, err := fdCount(h.pid())
	return h, fds, err
}

func startTickers(e *env, h *helper, n int, life time.Duration) ([]string, error) {
	command := fmt.Sprintf("%s child tick -every 10ms -for %s", shellQuote(e.self), life)
	var ids []string
	for range n {
		var a runAnswer
		_, err := h.callInto(&a, "exec/run", map[string]any{"command": command, "background": true, "yieldMs": 10})
		if err != nil {
			return ids, err
		}
		if a.SessionID == "" {
			return ids, fmt.Errorf("background command answered finished: %+v", a)
		}
		ids = append(ids, a.SessionID)
	}
	return ids, nil
}

// loadOver returns the helper's CPU use (percent of one core) over d,
// after a settling second, and its RSS and peak RSS at the end, in KiB.
func loadOver(pid int, d time.Duration) (float64, int64, int64, error) {
	time.Sleep(time.Second)
	c0, err := cpuTicks(pid)
	if err != nil {
		return 0, 0, 0, err
	}
	t0 := time.Now()
	time.Sleep(d)
	c1, err := cpuTicks(pid)
	if err != nil {
		return 0, 0, 0, err
	}
	cpu := 100 * float64(c1-c0) / clockTicks / time.Since(t0).Seconds()
	rss, err := statusKiB(pid, "VmRSS")
	if err != nil {
		return 0, 0, 0, err
	}
	hwm, err := statusKiB(pid, "VmHWM")
	return cpu, rss, hwm, err
}

// killAll sends session/kill for every session at once and waits for
// every answer.
func killAll(h *helper, ids []string) (time.Duration, error) {
	t0 := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, len(ids))
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var a runAnswer
			if _, err := h.callInto(&a, "session/kill", map[string]any{"sessionId": id}); err != nil {
				errs <- fmt.Errorf("kill %s: %w", id, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	return time.Since(t0), <-errs
}

// leftovers returns the tagged processes still alive and the helper's fd
// count, once it has had up to two seconds to settle back to base.
func leftovers(pid, base int) ([]int, int) {
	var fds int
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		fds, _ = fdCount(pid)
		if fds <= base || time.Now().After(deadline) {
			break
		}
	}
	return tagged(pid), fds
}
