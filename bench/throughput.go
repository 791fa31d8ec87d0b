//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// flowCase is a command writing size bytes through the terminal.
type flowCase struct {
	variant string
	size    int64
	command string
}

func flowCases(e *env) []flowCase {
	sizes := []int64{100 << 20, 1 << 30}
	if e.quick {
		sizes = []int64{8 << 20, 32 << 20}
	}
	var out []flowCase
	for _, v := range []string{"plain", "colored"} {
		for _, n := range sizes {
			c := flowCase{variant: v, size: n,
				command: fmt.Sprintf(`head -c %d /dev/zero | tr '\0' 'a' | fold -w 100`, n)}
			if v == "colored" {
				c.command = fmt.Sprintf("%s child gen -bytes %d", shellQuote(e.self), n)
			}
			out = append(out, c)
		}
	}
	return out
}

// benchThroughput pushes a large output through pty mode and compares
// the wall time with the same bytes read from a bare pty; the helper's
// peak RSS at two sizes shows whether memory grows with the output.
func benchThroughput(e *env) (result, error) {
	var res result
	peaks := map[string][]int64{}
	for _, c := range flowCases(e) {
		fwall, bytes, err := floorShell(c.command)
		if err != nil {
			return res, err
		}
		wall, peak, err := flowOnce(e, c)
		if err != nil {
			return res, err
		}
		peaks[c.variant] = append(peaks[c.variant], peak)
		gen, err := alone(c.command)
		if err != nil {
			return res, err
		}
		res.note("throughput, %s, %s: the command alone, to /dev/null, takes %s.", c.variant, fmtSize(c.size), fmtDur(gen))
		fr, hr := mbps(bytes, fwall), mbps(bytes, wall)
		res.add(row{fmt.Sprintf("throughput, %s, %s", c.variant, fmtSize(c.size)),
			fmt.Sprintf("%.0f MB/s (%s)", fr, fmtDur(fwall)), fmt.Sprintf("%.0f MB/s (%s)", hr, fmtDur(wall)),
			fmt.Sprintf("%.0f%%", 100*hr/fr), "≥ 50%", verdict(hr >= fr/2)})
	}
	for _, v := range []string{"plain", "colored"} {
		addPeakRow(&res, v, peaks[v], flowCases(e))
	}
	res.note("throughput: plain is `head -c N /dev/zero | tr '\\0' 'a' | fold -w 100` (identical lines); colored is this bench's child writing N bytes of distinct SGR-colored log lines (so the answer is cut and the whole cleaned text goes to the spill file). MB/s count the bytes read from the terminal (newlines become CR LF); one run each, a fresh helper per run.")
	return res, nil
}

func addPeakRow(res *result, variant string, peaks []int64, cases []flowCase) {
	if len(peaks) < 2 {
		return
	}
	small, big := peaks[0], peaks[len(peaks)-1]
	flat := big <= small+small/10+1024
	res.add(row{fmt.Sprintf("peak RSS, %s, %s then %s", variant, fmtSize(cases[0].size), fmtSize(cases[len(peaks)-1].size)),
		"", fmt.Sprintf("%s, %s", fmtMiB(small), fmtMiB(big)), "",
		"< 40 MB, flat", verdict(big*1024 < 40e6 && flat)})
}

// flowOnce runs c on a fresh helper and returns its wall time and peak
// RSS; it removes the spill file, which can be as big as the output.
func flowOnce(e *env, c flowCase) (time.Duration, int64, error) {
	h, err := spawn(e)
	if err != nil {
		return 0, 0, err
	}
	defer h.close()
	defer cleanSpills(e)
	var a runAnswer
	d, err := h.callInto(&a, "exec/run", map[string]any{"command": c.command, "timeoutMs": 600000})
	if err != nil {
		return 0, 0, err
	}
	if a.ExitCode == nil || *a.ExitCode != 0 {
		return 0, 0, fmt.Errorf("%s: not a clean exit: %+v", c.command, a)
	}
	peak, err := statusKiB(h.pid(), "VmHWM")
	return d, peak, err
}

func cleanSpills(e *env) {
	os.RemoveAll(filepath.Join(e.tmp, "tmp", "termhelper-spill"))
}

func fmtSize(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%d GiB", n>>30)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}
