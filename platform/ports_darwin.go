package platform

import (
	"context"
	"os/exec"
	"strconv"
	"time"
)

// lsofPath is where macOS ships lsof; the kernel's socket table is not
// reachable without cgo, and lsof is what reads it for every user.
const lsofPath = "/usr/sbin/lsof"

// ListeningPorts returns the TCP ports the command's process tree listens
// on, sorted and unique, or nil when none. The tree here is the command's
// process group, the same one Kill signals on macOS: a server a shell
// started is in it, one that left the group is not. lsof reads the
// system's table at each call and only then, bounded by a few seconds.
func (p *Process) ListeningPorts() []int {
	if len(treeMembers(p.Pid, p.sys.tag)) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// -a: all conditions at once; -n, -P: numbers, no lookups; -w: no
	// warnings. lsof exits 1 when nothing matches: the output still counts.
	out, _ := exec.CommandContext(ctx, lsofPath, "-w", "-nP", "-a", "-iTCP", "-sTCP:LISTEN",
		"-g", strconv.Itoa(p.Pid), "-F", "pn").Output()
	ls := parseLsof(out)
	owners := map[uint64]bool{}
	for _, l := range ls {
		owners[l.owner] = true // lsof listed only the group's processes
	}
	return portsOf(ls, owners)
}
