package engine

import (
	"strings"
	"testing"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/sandbox"
)

func TestLimitGapsAreSaid(t *testing.T) {
	on := sandbox.Status{Mode: sandbox.WorkspaceWrite, Backend: "landlock"}
	asked := config.Limits{MaxProcesses: 4096, TempMiB: 2048}
	none := func() sandbox.Caps { return sandbox.Caps{} }
	st := withLimitGaps(on, asked, none)
	for _, want := range []string{"The process limit (4096) cannot be held", "size limit (2048 MiB) cannot be held"} {
		if !strings.Contains(st.Reason, want) {
			t.Errorf("reason %q does not say %q", st.Reason, want)
		}
	}
	all := func() sandbox.Caps { return sandbox.Caps{Rlimit: true, Temp: true} }
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
