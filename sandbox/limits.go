package sandbox

import (
	"fmt"
	"strings"
	"sync"

	"github.com/termhelper/termhelper/platform"
)

// TempLimitDenial is what an answer says of a command that filled its
// temporary folder.
func TempLimitDenial(bytes int64) Denial {
	return Denial{Kind: "limit", Reason: fmt.Sprintf("temporary folder limit %d MiB reached: no space left on device", bytes>>20)}
}

// Caps is what holds the caps on this machine: a cgroup that counts
// a tree's processes, the trampoline's RLIMIT_NPROC, a tmpfs for the
// temporary folder.
type Caps struct{ Cgroup, Rlimit, Temp bool }

// MeasuredCaps is Caps, measured once (it waits for the sandbox's
// probe).
var MeasuredCaps = sync.OnceValue(func() Caps {
	return Caps{Cgroup: platform.PidsLimit() != "", Rlimit: CountsProcesses(), Temp: CapsTemp()}
})

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
func limitRefused(line string, plan Plan, c Caps) (Denial, bool) {
	low := strings.ToLower(line)
	if plan.MaxProcs > 0 && !c.Cgroup && failedFork(low) {
		return platform.ProcessLimitDenial(plan.MaxProcs), true
	}
	if plan.TempBytes > 0 && strings.Contains(low, "no space left on device") && c.Temp && !DiskFull(plan.Root) {
		return TempLimitDenial(plan.TempBytes), true
	}
	return Denial{}, false
}
