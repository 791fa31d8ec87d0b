package platform

import (
	"os"
	"strconv"
	"strings"
)

// ListeningPorts returns the TCP ports the command's process tree listens
// on, sorted and unique, or nil when none. The tree is the command's
// process and its descendants, found through the kernel's children lists,
// so a server a shell started counts too. Unlike a kill it reads no
// process's stat or environment: with many commands forking, those reads
// wait on busy processes' locks (0.6 to 10 s per answer with 50 shell
// loops, against well under a millisecond); a daemon that left the tree
// is not seen. The kernel's tables are read at each call and only then:
// /proc/net/tcp and tcp6 list every listening socket by inode, and
// /proc/PID/fd links name the inodes each process holds.
func (p *Process) ListeningPorts() []int {
	owners := map[uint64]bool{}
	for _, pid := range treeOf(p.Pid) {
		socketInodes(pid, owners)
	}
	if len(owners) == 0 {
		return nil // no socket at all: the tables need not be read
	}
	var ls []listener
	// The helper's own network namespace: the one where loopback, and so
	// readyPort, reaches the command's servers.
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if b, err := os.ReadFile(table); err == nil {
			ls = append(ls, parseProcNetTCP(b)...)
		}
	}
	return portsOf(ls, owners)
}

// treeOf lists pid and its descendants, bounded.
func treeOf(pid int) []int {
	out := []int{pid}
	for i := 0; i < len(out) && len(out) < 4096; i++ {
		out = append(out, childrenOf(out[i])...)
	}
	return out
}

// socketInodes adds the inodes of the sockets pid holds open to into. A
// process that ends meanwhile, or one the helper may not look into, adds
// nothing.
func socketInodes(pid int, into map[uint64]bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, name := range names {
		link, err := os.Readlink(dir + name)
		if err != nil || !strings.HasPrefix(link, "socket:[") || !strings.HasSuffix(link, "]") {
			continue
		}
		if inode, err := strconv.ParseUint(link[len("socket:["):len(link)-1], 10, 64); err == nil {
			into[inode] = true
		}
	}
}
