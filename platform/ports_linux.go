package platform

import (
	"os"
	"strconv"
)

// ListeningPorts returns the TCP ports the command's tree listens on, its
// grandchildren's included, sorted. It reads /proc only when asked. The
// tree is the command's process and its descendants, found through the
// kernel's children lists: unlike a kill it reads no process's stat or
// environment, which with many commands forking can wait seconds on busy
// processes' locks; a daemon that left the tree is not seen.
func (p *Process) ListeningPorts() []int {
	inodes := map[uint64]bool{}
	for _, pid := range treeOf(p.Pid) {
		socketsOf(pid, inodes)
	}
	if len(inodes) == 0 {
		return nil
	}
	var ports []int
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		for inode, port := range listeningSockets(table) {
			if inodes[inode] {
				ports = append(ports, port)
			}
		}
	}
	return sortedPorts(ports)
}

// treeOf lists pid and its descendants, bounded.
func treeOf(pid int) []int {
	out := []int{pid}
	for i := 0; i < len(out) && len(out) < 4096; i++ {
		out = append(out, childrenOf(out[i])...)
	}
	return out
}

// socketsOf adds the inodes of the sockets pid has open.
func socketsOf(pid int, into map[uint64]bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if link, err := os.Readlink(dir + e.Name()); err == nil {
			if n, ok := socketInode(link); ok {
				into[n] = true
			}
		}
	}
}

func listeningSockets(table string) map[uint64]int {
	f, err := os.Open(table)
	if err != nil {
		return nil
	}
	defer f.Close()
	return parseProcNetTCP(f)
}
