package engine

import (
	"fmt"
	"strings"
	"sync"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/sandbox"
)

// limits are the config's caps on a confined command's tree: processes,
// and its temporary folder's size in bytes (0: no cap).
func (e *Engine) limits() (maxProcs int, tempBytes int64) {
	l := e.opts.Config.Limits
	return l.MaxProcesses, int64(l.TempMiB) << 20
}

// capsHere is what holds the caps on this machine: a cgroup that counts
// a tree's processes, the trampoline's RLIMIT_NPROC, a tmpfs for the
// temporary folder.
type capsHere struct{ cgroup, rlimit, temp bool }

// measuredCaps is capsHere, measured once (it waits for the sandbox's
// probe).
var measuredCaps = sync.OnceValue(func() capsHere {
	return capsHere{cgroup: platform.PidsLimit() != "", rlimit: sandbox.CountsProcesses(), temp: sandbox.CapsTemp()}
})

// limitGaps says which of the config's caps cannot hold here, for the
// sandbox's reason in initialize: a cap that is not held is said, never
// left out.
func limitGaps(l config.Limits, c capsHere) []string {
	var gaps []string
	if l.MaxProcesses > 0 && !c.cgroup && !c.rlimit {
		gaps = append(gaps, fmt.Sprintf("the process limit (%d) cannot be held here: no cgroup pids controller is delegated to the helper, and RLIMIT_NPROC binds no one as root nor one command alone without a user namespace", l.MaxProcesses))
	}
	if l.TempMiB > 0 && !c.temp {
		gaps = append(gaps, fmt.Sprintf("the temporary folder's size limit (%d MiB) cannot be held without a mount namespace", l.TempMiB))
	}
	return gaps
}

// limitsHeld names the config's caps that hold here, and how, for
// initialize: what limitGaps does not name.
func limitsHeld(l config.Limits, c capsHere) []string {
	var held []string
	switch {
	case l.MaxProcesses == 0:
	case c.cgroup:
		held = append(held, fmt.Sprintf("processes: %d per command (cgroup pids.max)", l.MaxProcesses))
	case c.rlimit:
		held = append(held, fmt.Sprintf("processes: %d per command (RLIMIT_NPROC in its user namespace)", l.MaxProcesses))
	}
	if l.TempMiB > 0 && c.temp {
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
func withLimitGaps(st sandbox.Status, l config.Limits, c func() capsHere) sandbox.Status {
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

// failedFork reports whether a lower-cased line says a new process could
// not be made for want of resources (EAGAIN): the shells' "Cannot fork"
// and "fork: retry", Go's "fork/exec", Node's "spawn EAGAIN".
func failedFork(low string) bool {
	if strings.Contains(low, "cannot fork") {
		return true
	}
	started := strings.Contains(low, "fork") || strings.Contains(low, "spawn")
	return started && (strings.Contains(low, "resource temporarily unavailable") || strings.Contains(low, "eagain"))
}

// limitRefused is the cap a line of output says the command reached:
// where no cgroup counts the forks a process cap refused, a fork that
// failed for want of resources; a write that found no space, when the
// temporary folder is capped and the disk under the root is not full.
func limitRefused(line string, plan sandbox.Plan, c capsHere) (sandbox.Denial, bool) {
	low := strings.ToLower(line)
	if plan.MaxProcs > 0 && !c.cgroup && failedFork(low) {
		return platform.ProcessLimitDenial(plan.MaxProcs), true
	}
	if plan.TempBytes > 0 && strings.Contains(low, "no space left on device") && c.temp && !sandbox.DiskFull(plan.Root) {
		return sandbox.TempLimitDenial(plan.TempBytes), true
	}
	return sandbox.Denial{}, false
}
