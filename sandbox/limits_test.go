package sandbox

import "testing"

func TestLimitRefusedReadsTheFailedForkAndWrite(t *testing.T) {
	plan := Plan{Root: t.TempDir(), MaxProcs: 64, TempBytes: 8 << 20}
	rlimit := Caps{Rlimit: true, Temp: true}
	d, ok := limitRefused("head: error writing 'standard output': No space left on device", plan, rlimit)
	if !ok || d.Kind != "limit" || d.Reason != "temporary folder limit 8 MiB reached: no space left on device" {
		t.Errorf("a full temporary folder: %+v %v", d, ok)
	}
	for _, line := range []string{"/bin/sh: 0: Cannot fork", "bash: fork: retry: Resource temporarily unavailable",
		"Error: spawn EAGAIN", "fork/exec /bin/true: resource temporarily unavailable"} {
		d, ok = limitRefused(line, plan, rlimit)
		if !ok || d.Reason != "process limit 64 reached: fork failed" {
			t.Errorf("a failed fork, %q: %+v %v", line, d, ok)
		}
	}
	// A cgroup counts what its cap refused: the line is not read then.
	if d, ok := limitRefused("bash: fork: retry: Resource temporarily unavailable", plan, Caps{Cgroup: true}); ok {
		t.Errorf("a failed fork read beside the cgroup's count: %+v", d)
	}
	for _, line := range []string{"rm: cannot remove 'x': Permission denied", "fork: done", ""} {
		if d, ok := limitRefused(line, plan, rlimit); ok {
			t.Errorf("%q read as %+v", line, d)
		}
	}
	if d, ok := limitRefused("No space left on device", Plan{Root: plan.Root}, rlimit); ok {
		t.Errorf("a full disk read as a cap that is not set: %+v", d)
	}
	if d, ok := limitRefused("No space left on device", plan, Caps{}); ok {
		t.Errorf("a full disk read as a cap that cannot hold here: %+v", d)
	}
}
