//go:build linux

package main

import (
	"bufio"
	"os/exec"
	"time"
)

// idleSettle is how long a helper sits after initialize before its idle
// RSS is read, so that work started at launch has settled.
const idleSettle = 500 * time.Millisecond

// benchStart times spawn to the answer of initialize, against a Go
// program that answers one line and exits, spawned the same way.
func benchStart(e *env) (result, error) {
	var res result
	var floor, th samples
	var idle []int64
	n := e.reps(60, 5)
	for i := range n {
		f, err := spawnEcho(e.self)
		if err != nil {
			return res, err
		}
		d, rss, err := startOnce(e, i < e.reps(5, 1))
		if err != nil {
			return res, err
		}
		floor, th = append(floor, f), append(th, d)
		if rss > 0 {
			idle = append(idle, rss)
		}
	}
	res.add(row{"start to `initialize` answer, median", fmtDur(floor.median()), fmtDur(th.median()),
		fmtRatio(ratio(th.median(), floor.median())), "< 5 ms", verdict(th.median() < 5*time.Millisecond)})
	res.add(row{"start to `initialize` answer, p95", fmtDur(floor.p95()), fmtDur(th.p95()),
		fmtRatio(ratio(th.p95(), floor.p95())), "", ""})
	rss := medianInt(idle)
	res.add(row{"idle RSS after start", "", fmtMiB(rss), "", "< 8 MiB", verdict(rss < 8*1024)})
	res.note("start: %d spawns each; the floor is this bench's own binary answering one line (a Go program doing nothing else); idle RSS is VmRSS %s after initialize, median of %d helpers.",
		n, idleSettle, len(idle))
	return res, nil
}

// startOnce spawns a helper and times it to the answer of initialize;
// with idle set it also reads its RSS once it has settled.
func startOnce(e *env, idle bool) (time.Duration, int64, error) {
	h, err := spawn(e)
	if err != nil {
		return 0, 0, err
	}
	defer h.close()
	params := map[string]any{"clientInfo": map[string]string{"name": "bench", "version": "1"}}
	_, _, at, err := h.call("initialize", params)
	if err != nil {
		return 0, 0, err
	}
	d := at.Sub(h.started)
	if !idle {
		return d, 0, nil
	}
	time.Sleep(idleSettle)
	rss, err := statusKiB(h.pid(), "VmRSS")
	return d, rss, err
}

// spawnEcho times the floor: spawn, one line in, one line out.
func spawnEcho(self string) (time.Duration, error) {
	cmd := exec.Command(self, "child", "echo")
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	in.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n"))
	_, err = bufio.NewReader(out).ReadBytes('\n')
	d := time.Since(t0)
	in.Close()
	cmd.Wait()
	return d, err
}
