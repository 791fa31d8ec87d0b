package engine

import (
	"strings"
	"testing"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/sandbox"
)

func TestLimitRefusedReadsTheFailedForkAndWrite(t *testing.T) {
	plan := sandbox.Plan{Root: t.TempDir(), MaxProcs: 64, TempBytes: 8 << 20}
	rlimit := capsHere{rlimit: true, temp: true}
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
	if d, ok := limitRefused("bash: fork: retry: Resource temporarily unavailable", plan, capsHere{cgroup: true}); ok {
		t.Errorf("a failed fork read beside the cgroup's count: %+v", d)
	}
	for _, line := range []string{"rm: cannot remove 'x': Permission denied", "fork: done", ""} {
		if d, ok := limitRefused(line, plan, rlimit); ok {
			t.Errorf("%q read as %+v", line, d)
		}
	}
	if d, ok := limitRefused("No space left on device", sandbox.Plan{Root: plan.Root}, rlimit); ok {
		t.Errorf("a full disk read as a cap that is not set: %+v", d)
	}
	if d, ok := limitRefused("No space left on device", plan, capsHere{}); ok {
		t.Errorf("a full disk read as a cap that cannot hold here: %+v", d)
	}
}

func TestLimitGapsAreSaid(t *testing.T) {
	on := sandbox.Status{Mode: sandbox.WorkspaceWrite, Backend: "landlock"}
	asked := config.Limits{MaxProcesses: 4096, TempMiB: 2048}
	none := func() capsHere { return capsHere{} }
	st := withLimitGaps(on, asked, none)
	for _, want := range []string{"The process limit (4096) cannot be held", "size limit (2048 MiB) cannot be held"} {
		if !strings.Contains(st.Reason, want) {
			t.Errorf("reason %q does not say %q", st.Reason, want)
		}
	}
	all := func() capsHere { return capsHere{rlimit: true, temp: true} }
	if st := withLimitGaps(on, asked, all); st.Reason != "" {
		t.Errorf("every cap held: %q", st.Reason)
	}
	if st := withLimitGaps(on, config.Limits{}, none); st.Reason != "" {
		t.Errorf("no caps asked, none missing: %q", st.Reason)
	}
	off := sandbox.Status{Mode: sandbox.Off}
	if st := withLimitGaps(off, asked, none); st.Reason != "" {
		t.Errorf("no sandbox, no caps to miss: %q", st.Reason)
	}
}
