//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// benchExit measures how long after a command's process exits its answer
// arrives. The command is this program sleeping then writing its own exit
// time to a file just before it exits, so the measure does not include
// the exec of a `date` or the shell's own timing.
func benchExit(e *env) (result, error) {
	var res result
	h, err := spawn(e)
	if err != nil {
		return res, err
	}
	defer h.close()
	sleep := time.Second
	if e.quick {
		sleep = 200 * time.Millisecond
	}
	var floor, th samples
	n := e.reps(15, 3)
	for i := range n {
		stamp := filepath.Join(e.root(), fmt.Sprintf("exit-%d", i))
		command := fmt.Sprintf("%s child stamp -sleep %s -out %s", shellQuote(e.self), sleep, shellQuote(stamp))
		f, err := floorExit(command, stamp)
		if err != nil {
			return res, err
		}
		d, err := helperExit(h, command, stamp)
		if err != nil {
			return res, err
		}
		floor, th = append(floor, f), append(th, d)
	}
	res.add(row{"exit to answer (`sleep`), median", fmtDur(floor.median()), fmtDur(th.median()),
		fmtRatio(ratio(th.median(), floor.median())), "< 5 ms", verdict(th.median() < 5*time.Millisecond)})
	res.add(row{"exit to answer (`sleep`), p95", fmtDur(floor.p95()), fmtDur(th.p95()),
		fmtRatio(ratio(th.p95(), floor.p95())), "< 5 ms", verdict(th.p95() < 5*time.Millisecond)})
	res.note("exit: %d runs of a child that sleeps %s, then writes time.Now() (CLOCK_REALTIME) to a file and exits; the measure is the answer's arrival (read by the host) minus that stamp. The floor is the same child on a bare pty: its stamp to the end of read-to-EIO and wait.", n, sleep)
	return res, nil
}

func helperExit(h *helper, command, stamp string) (time.Duration, error) {
	var a runAnswer
	res, _, at, err := h.call("exec/run", map[string]any{"command": command})
	if err != nil {
		return 0, err
	}
	if err := jsonInto(res, &a); err != nil || a.ExitCode == nil || *a.ExitCode != 0 {
		return 0, fmt.Errorf("stamp child did not finish cleanly: %s", res)
	}
	return sinceStamp(stamp, at)
}

func floorExit(command, stamp string) (time.Duration, error) {
	_, end, err := ptyRun("/bin/sh", "-c", command)
	if err != nil {
		return 0, err
	}
	return sinceStamp(stamp, end)
}

// sinceStamp reads a child's exit stamp and returns how long before at it
// was taken.
func sinceStamp(path string, at time.Time) (time.Duration, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	os.Remove(path)
	ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, err
	}
	return at.Sub(time.Unix(0, ns)), nil
}

// shellQuote quotes s for /bin/sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
