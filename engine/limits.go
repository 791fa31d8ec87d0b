package engine

import (
	"fmt"
	"strings"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/sandbox"
)

// limits are the config's caps on a confined command's tree: processes,
// and its temporary folder's size in bytes (0: no cap).
func (e *Engine) limits() (maxProcs int, tempBytes int64) {
	l := e.opts.Config.Limits
	return l.MaxProcesses, int64(l.TempMiB) << 20
}

// limitGaps says which of the config's caps cannot hold here, for the
// sandbox's reason in initialize: a cap that is not held is said, never
// left out.
func limitGaps(l config.Limits, c sandbox.Caps) []string {
	var gaps []string
	if l.MaxProcesses > 0 && !c.Cgroup && !c.Rlimit {
		gaps = append(gaps, fmt.Sprintf("the process limit (%d) cannot be held here: no cgroup pids controller is delegated to the helper, and RLIMIT_NPROC binds no one as root nor one command alone without a user namespace", l.MaxProcesses))
	}
	if l.TempMiB > 0 && !c.Temp {
		gaps = append(gaps, fmt.Sprintf("the temporary folder's size limit (%d MiB) cannot be held without a mount namespace", l.TempMiB))
	}
	return gaps
}

// limitsHeld names the config's caps that hold here, and how, for
// initialize: what limitGaps does not name.
func limitsHeld(l config.Limits, c sandbox.Caps) []string {
	var held []string
	switch {
	case l.MaxProcesses == 0:
	case c.Cgroup:
		held = append(held, fmt.Sprintf("processes: %d per command (cgroup pids.max)", l.MaxProcesses))
	case c.Rlimit:
		held = append(held, fmt.Sprintf("processes: %d per command (RLIMIT_NPROC in its user namespace)", l.MaxProcesses))
	}
	if l.TempMiB > 0 && c.Temp {
		held = append(held, fmt.Sprintf("temporary folder: %d MiB per command (tmpfs)", l.TempMiB))
	}
	return held
}

// SandboxLimits names the caps on a confined command that hold here, and
// how (initialize's sandbox.limits); nil with no sandbox.
func (e *Engine) SandboxLimits() []string {
	if e.opts.Sandbox.Limits == nil || e.Sandbox().Mode == sandbox.Off {
		return nil
	}
	return e.opts.Sandbox.Limits()
}

// withLimitGaps adds limitGaps to a confining status's reason.
func withLimitGaps(st sandbox.Status, l config.Limits, c func() sandbox.Caps) sandbox.Status {
	if st.Mode == sandbox.Off {
		return st
	}
	for _, g := range limitGaps(l, c()) {
		if st.Reason != "" {
			st.Reason += " "
		}
		st.Reason += strings.ToUpper(g[:1]) + g[1:] + "."
	}
	return st
}
