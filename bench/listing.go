//go:build linux

package main

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// benchListing measures the output reader while a host calls session/list
// in a loop, against the same command with no listing, on one helper in
// the same run (the two alternate, so both see the same machine). The
// printing command is itself listed, and a few idle servers stand beside
// it, so every list reads the process table for their ports.
func benchListing(e *env) (result, error) {
	var res result
	size, reps := int64(e.reps(64<<20, 8<<20)), e.reps(5, 1)
	h, err := spawn(e)
	if err != nil {
		return res, err
	}
	defer h.close()
	defer cleanSpills(e)
	if err := startServers(e, h, 4); err != nil {
		return res, err
	}
	command := fmt.Sprintf(`head -c %d /dev/zero | tr '\0' 'a' | fold -w 100`, size)
	var quiet, busy samples
	lists := 0
	for range reps {
		d, _, err := flowWhileListing(h, command, false)
		if err != nil {
			return res, err
		}
		quiet = append(quiet, d)
		d, n, err := flowWhileListing(h, command, true)
		if err != nil {
			return res, err
		}
		busy = append(busy, d)
		lists += n
	}
	q, b := mbps(size, quiet.median()), mbps(size, busy.median())
	res.add(row{fmt.Sprintf("output reader while `session/list` loops, %s", fmtSize(size)),
		fmt.Sprintf("%.0f MB/s (%s)", q, fmtDur(quiet.median())), fmt.Sprintf("%.0f MB/s (%s)", b, fmtDur(busy.median())),
		fmt.Sprintf("%.0f%%", 100*b/q), "", ""})
	res.note("listing: `%s` run in the background and read until its exit, %d times with a host calling `session/list` in a loop meanwhile (%d lists in all, each listing the printing session and 4 idle servers with their ports) and %d times without, alternating, on one helper; the floor column is the run without listing; medians; MB/s count the command's bytes.",
		command, reps, lists, reps)
	return res, nil
}

// startServers starts n background sessions that each listen on a port
// and stay idle.
func startServers(e *env, h *helper, n int) error {
	command := fmt.Sprintf("%s child serve -for 10m", shellQuote(e.self))
	for range n {
		var a runAnswer
		if _, err := h.callInto(&a, "exec/run", map[string]any{"command": command, "background": true, "yieldMs": 0}); err != nil {
			return err
		}
		if a.SessionID == "" {
			return fmt.Errorf("a server answered finished: %+v", a)
		}
	}
	return nil
}

// flowWhileListing runs command in the background to its exit and returns
// how long that took and how many lists were answered meanwhile.
func flowWhileListing(h *helper, command string, list bool) (time.Duration, int, error) {
	t0 := time.Now()
	var a runAnswer
	if _, err := h.callInto(&a, "exec/run", map[string]any{"command": command, "background": true, "yieldMs": 0}); err != nil {
		return 0, 0, err
	}
	if a.SessionID == "" {
		return 0, 0, fmt.Errorf("%s answered finished at once: %+v", command, a)
	}
	var lists atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	if list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, _, _, err := h.call("session/list", nil); err == nil {
					lists.Add(1)
				}
			}
		}()
	}
	var f runAnswer
	_, err := h.callInto(&f, "session/read", map[string]any{"sessionId": a.SessionID, "until": "exit", "yieldMs": 600000})
	d := time.Since(t0)
	close(stop)
	wg.Wait()
	if err == nil && (f.ExitCode == nil || *f.ExitCode != 0) {
		err = fmt.Errorf("%s: not a clean exit: %+v", command, f)
	}
	return d, int(lists.Load()), err
}
