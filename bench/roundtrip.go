//go:build linux

package main

import (
	"fmt"
	"time"
)

// benchRoundTrip times sequential exec/run calls of short commands on one
// helper, interleaved with the floor so that both see the same machine.
func benchRoundTrip(e *env) (result, error) {
	var res result
	h, err := spawn(e)
	if err != nil {
		return res, err
	}
	defer h.close()
	n := e.reps(500, 30)
	for _, command := range []string{"true", "echo hi"} {
		floor, th, err := roundTrips(h, command, n)
		if err != nil {
			return res, err
		}
		r := ratio(th.median(), floor.median())
		res.add(row{fmt.Sprintf("`exec/run` of `%s`, median", command), fmtDur(floor.median()), fmtDur(th.median()),
			fmtRatio(r), "≤ 1.3x floor", verdict(r <= 1.3)})
		res.add(row{fmt.Sprintf("`exec/run` of `%s`, p95", command), fmtDur(floor.p95()), fmtDur(th.p95()),
			fmtRatio(ratio(th.p95(), floor.p95())), "", ""})
	}
	res.note("round trip: %d sequential calls per command after 10 warm-up calls; the floor allocates a pty, starts `/bin/sh -c COMMAND` on it, reads it to its end and waits, with no RPC.", n)
	return res, nil
}

func roundTrips(h *helper, command string, n int) (floor, th samples, err error) {
	params := map[string]any{"command": command}
	for range 10 {
		if _, err := runOnce(h, params); err != nil {
			return nil, nil, err
		}
	}
	for range n {
		f, _, err := floorShell(command)
		if err != nil {
			return nil, nil, err
		}
		d, err := runOnce(h, params)
		if err != nil {
			return nil, nil, err
		}
		floor, th = append(floor, f), append(th, d)
	}
	return floor, th, nil
}

// runOnce times one exec/run from the request written to the answer read,
// and checks that the command finished.
func runOnce(h *helper, params map[string]any) (time.Duration, error) {
	var a runAnswer
	d, err := h.callInto(&a, "exec/run", params)
	if err == nil && a.ExitCode == nil {
		err = fmt.Errorf("%v: answered %q, not finished", params["command"], a.State)
	}
	return d, err
}
