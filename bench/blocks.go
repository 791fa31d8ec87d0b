//go:build linux

package main

import "time"

// timed is one call whose duration a section records.
type timed func() (time.Duration, error)

// inBlocks calls each of runs warm times, then n times recording each
// call, taking turns in blocks of up to block consecutive calls on one
// run before the next, so that all the runs see the same machine while
// each run's calls within a block follow one another directly. pause is
// slept before every call. The samples are in the order of runs.
func inBlocks(runs []timed, n, warm, block int, pause time.Duration) ([]samples, error) {
	if err := turns(runs, warm, block, pause, nil); err != nil {
		return nil, err
	}
	out := make([]samples, len(runs))
	return out, turns(runs, n, block, pause, out)
}

// turns makes n calls of each run in blocks, appending each duration to
// out[i] for runs[i] when out is not nil.
func turns(runs []timed, n, block int, pause time.Duration, out []samples) error {
	for done := 0; done < n; done += block {
		for i, run := range runs {
			for range min(block, n-done) {
				time.Sleep(pause)
				d, err := run()
				if err != nil {
					return err
				}
				if out != nil {
					out[i] = append(out[i], d)
				}
			}
		}
	}
	return nil
}

// echoHi is runOnce of `echo hi` on h, as a timed call.
func echoHi(h *helper) timed {
	params := map[string]any{"command": "echo hi"}
	return func() (time.Duration, error) { return runOnce(h, params) }
}
