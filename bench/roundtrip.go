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
	h, err := spawnEnv(e, []string{unconfined})
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
	res.note("round trip: %d sequential calls per command after 10 warm-up calls, on a helper with the sandbox off; the floor allocates a pty, starts `/bin/sh -c COMMAND` on it, reads it to its end and waits, with no RPC.", n)
	return res, sandboxedRoundTrip(e, h, n, &res)
}

// unconfined is the helper's environment for a run with the sandbox off.
const unconfined = "TERMHELPER_SANDBOX=off"

// sandboxedRoundTrip times `echo hi` on a helper with the sandbox in
// force (the default) against off, whose sandbox is off, taking turns.
func sandboxedRoundTrip(e *env, off *helper, n int, res *result) error {
	on, st, err := spawnSandboxed(e)
	if err != nil {
		return err
	}
	if on == nil {
		res.note("sandboxed round trip: no sandbox on this machine")
		return nil
	}
	defer on.close()
	if err := backToBack(off, on, n, res); err != nil {
		return err
	}
	if err := idleBefore(off, on, max(n/5, 20), res); err != nil {
		return err
	}
	res.note("sandboxed round trip: a helper with the sandbox in force (%s, network %s) against one with it off (the floor column). Back to back: blocks of %d consecutive calls on one helper, then %d on the other, and so on, after a warm-up block on each, %d calls each recorded, so that every sandboxed call but a block's first follows the previous one at once. Helper idle before: after 10 warm-up calls each, one call on each helper in turn, %d calls each, with %v of quiet before every call, as a host leaves between a model's commands.",
		st.Backend, st.Network, block, block, n, max(n/5, 20), idle)
	return nil
}

// sandboxState is what the answer of initialize says of the helper's
// sandbox.
type sandboxState struct{ Mode, Backend, Network string }

// spawnSandboxed starts a helper with the sandbox in force and returns
// it with its sandbox; a nil helper where this machine has no sandbox.
func spawnSandboxed(e *env) (*helper, sandboxState, error) {
	h, err := spawn(e)
	if err != nil {
		return nil, sandboxState{}, err
	}
	st, err := sandboxOf(h)
	if err != nil || st.Mode == "off" {
		h.close()
		return nil, st, err
	}
	return h, st, nil
}

func sandboxOf(h *helper) (sandboxState, error) {
	var st struct {
		Sandbox sandboxState `json:"sandbox"`
	}
	_, err := h.callInto(&st, "initialize", map[string]any{})
	return st.Sandbox, err
}

// block is how many consecutive calls go to one helper before the next
// takes its turn, in the back-to-back measures.
const block = 10

// backToBack times n calls of `echo hi` on each helper, in blocks.
func backToBack(off, on *helper, n int, res *result) error {
	s, err := inBlocks([]timed{echoHi(off), echoHi(on)}, n, block, block, 0)
	if err != nil {
		return err
	}
	plain, boxed := s[0], s[1]
	r := ratio(boxed.median(), plain.median())
	res.add(row{"`exec/run` of `echo hi` sandboxed, back to back, median", fmtDur(plain.median()), fmtDur(boxed.median()),
		fmtRatio(r), "≤ 1.5x unsandboxed", verdict(r <= 1.5)})
	res.add(row{"`exec/run` of `echo hi` sandboxed, back to back, p95", fmtDur(plain.p95()), fmtDur(boxed.p95()),
		fmtRatio(ratio(boxed.p95(), plain.p95())), "", ""})
	res.add(row{"added by the sandbox per command, back to back, median", "", fmtDur(boxed.median() - plain.median()), "", "", ""})
	return nil
}

// idleBefore times n calls of `echo hi` on each helper, one on each in
// turn, with idle before every call.
func idleBefore(off, on *helper, n int, res *result) error {
	s, err := inBlocks([]timed{echoHi(off), echoHi(on)}, n, 10, 1, idle)
	if err != nil {
		return err
	}
	plain, boxed := s[0], s[1]
	r := ratio(boxed.median(), plain.median())
	res.add(row{"`exec/run` of `echo hi` sandboxed, helper idle before, median", fmtDur(plain.median()), fmtDur(boxed.median()),
		fmtRatio(r), "≤ 1.3x unsandboxed", verdict(r <= 1.3)})
	res.add(row{"`exec/run` of `echo hi` sandboxed, helper idle before, p95", fmtDur(plain.p95()), fmtDur(boxed.p95()),
		fmtRatio(ratio(boxed.p95(), plain.p95())), "", ""})
	res.add(row{"added by the sandbox per command, helper idle before, median", "", fmtDur(boxed.median() - plain.median()), "", "", ""})
	return nil
}

// idle is the pause before each call of the paced sandboxed round trip:
// more than a spare trampoline takes to be made on a loaded machine.
const idle = 50 * time.Millisecond

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
