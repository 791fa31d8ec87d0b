//go:build windows

package platform

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	iphlpapi            = windows.NewLazySystemDLL("iphlpapi.dll")
	getExtendedTcpTable = iphlpapi.NewProc("GetExtendedTcpTable")
)

const (
	afInet6                = 23 // AF_INET6 on Windows
	tcpTableOwnerPidListen = 3  // TCP_TABLE_OWNER_PID_LISTENER
	maxJobPids             = 1024
)

// ListeningPorts returns the TCP ports the command's process tree listens
// on, sorted and unique, or nil when none. The tree is the job object,
// which holds every process the command started; the system's tables of
// listening sockets, IPv4 and IPv6, are read at each call and only then.
func (p *Process) ListeningPorts() []int {
	owners := map[uint64]bool{}
	for _, pid := range p.sys.job.pids() {
		owners[uint64(pid)] = true
	}
	if len(owners) == 0 {
		return nil
	}
	var ls []listener
	for _, af := range []uint32{windows.AF_INET, afInet6} {
		if b := tcpListeners(af); b != nil {
			ls = append(ls, decodeTCPTable(b, af == afInet6)...)
		}
	}
	return portsOf(ls, owners)
}

// jobPidList is JOBOBJECT_BASIC_PROCESS_ID_LIST with room for more
// processes than a command's tree holds in practice; a larger tree is
// listed as far as it fits.
type jobPidList struct {
	assigned, listed uint32
	pids             [maxJobPids]uintptr
}

// pids lists the processes in the job; none once it is closed.
func (j *job) pids() []uint32 {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.h == 0 {
		return nil
	}
	list := new(jobPidList)
	err := windows.QueryInformationJobObject(j.h, windows.JobObjectBasicProcessIdList,
		uintptr(unsafe.Pointer(list)), uint32(unsafe.Sizeof(*list)), nil)
	if err != nil && err != windows.ERROR_MORE_DATA {
		return nil
	}
	pids := make([]uint32, 0, list.listed)
	for _, pid := range list.pids[:min(int(list.listed), maxJobPids)] {
		pids = append(pids, uint32(pid))
	}
	return pids
}

// tcpListeners returns the raw table of listening sockets of one address
// family, growing the buffer while the table grows between two calls.
func tcpListeners(af uint32) []byte {
	if getExtendedTcpTable.Find() != nil {
		return nil
	}
	size := uint32(4096)
	for range 8 {
		b := make([]byte, size)
		r, _, _ := getExtendedTcpTable.Call(uintptr(unsafe.Pointer(&b[0])), uintptr(unsafe.Pointer(&size)),
			0, uintptr(af), tcpTableOwnerPidListen, 0)
		switch windows.Errno(r) {
		case 0:
			return b // the count in front says how many rows it holds
		case windows.ERROR_INSUFFICIENT_BUFFER:
			size += 4096 // room for rows added before the next call
		default:
			return nil
		}
	}
	return nil
}
