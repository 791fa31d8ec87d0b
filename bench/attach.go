//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// benchAttach times spawn to the answer of initialize with --persist:
// attaching to a background helper already running, against a fresh
// start (no background helper yet: the relay starts one) and a plain
// start without --persist, alternated in the same run.
func benchAttach(e *env) (result, error) {
	var res result
	var plain, fresh, attach samples
	folder := []string{"TERMHELPER_PERSIST_DIR=" + filepath.Join(e.tmp, "rdv")}
	warm := filepath.Join(e.tmp, "attach-root")
	defer endBackground(warm)
	n := e.reps(40, 3)
	for i := range n {
		p, _, err := startOnce(e, false)
		if err != nil {
			return res, err
		}
		root := filepath.Join(e.tmp, fmt.Sprintf("fresh-root-%d", i))
		f, err := persistStart(e, folder, root)
		endBackground(root)
		if err != nil {
			return res, err
		}
		a, err := persistStart(e, folder, warm)
		if err != nil {
			return res, err
		}
		plain, fresh, attach = append(plain, p), append(fresh, f), append(attach, a)
	}
	res.add(row{"--persist: attach to a running background helper, to `initialize` answer, median (floor: fresh start)",
		fmtDur(fresh.median()), fmtDur(attach.median()), fmtRatio(ratio(attach.median(), fresh.median())),
		"< fresh start", verdict(attach.median() < fresh.median())})
	res.add(row{"--persist: fresh start (starts the background helper), median (floor: start without --persist)",
		fmtDur(plain.median()), fmtDur(fresh.median()), fmtRatio(ratio(fresh.median(), plain.median())), "", ""})
	res.note("attach: %d spawns of each, alternated: without --persist, --persist with no background helper for the root (the relay starts one, which the bench then ends), and --persist attaching to the one background helper kept running for another root (the first of its spawns started it).", n)
	return res, nil
}

// persistStart spawns a relay for root and times it to initialize's answer.
func persistStart(e *env, vars []string, root string) (time.Duration, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return 0, err
	}
	h, err := spawnEnv(e, vars, "--root", root, "--persist", "10m")
	if err != nil {
		return 0, err
	}
	defer h.close()
	_, _, at, err := h.call("initialize", map[string]any{})
	if err != nil {
		return 0, fmt.Errorf("%w: %s", err, h.stderr.String())
	}
	return at.Sub(h.started), nil
}

// endBackground ends root's background helper, if one runs.
func endBackground(root string) {
	want := "__persist\x00--root\x00" + root + "\x00"
	entries, _ := os.ReadDir("/proc")
	for _, ent := range entries {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil {
			continue
		}
		if b, _ := os.ReadFile("/proc/" + ent.Name() + "/cmdline"); strings.Contains(string(b), want) {
			syscall.Kill(pid, syscall.SIGTERM)
			for syscall.Kill(pid, 0) == nil {
				time.Sleep(time.Millisecond)
			}
		}
	}
}
