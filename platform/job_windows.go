//go:build windows

package platform

import (
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// job is a Windows job object holding every process of one command: a
// process started inside a job is in it too, so the job is the whole tree,
// grandchildren included, whatever they do to their console or group. It
// is created kill-on-close: when the helper exits or dies, Windows closes
// its handles and ends every command it started.
type job struct {
	mu sync.Mutex
	h  windows.Handle // 0 once closed
}

func newJob() (*job, error) {
	h, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, err
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(h, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(h)
		return nil, err
	}
	return &job{h: h}, nil
}

// assign puts a process in the job.
func (j *job) assign(process windows.Handle) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return windows.AssignProcessToJobObject(j.h, process)
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION, which
// x/sys/windows does not declare.
type jobAccounting struct {
	TotalUserTime, TotalKernelTime                     int64
	ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime int64
	TotalPageFaultCount                                uint32
	TotalProcesses, ActiveProcesses                    uint32
	TotalTerminatedProcesses                           uint32
}

// active is the number of live processes in the job; 0 once it is closed.
func (j *job) active() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.h == 0 {
		return 0
	}
	var info jobAccounting
	if err := windows.QueryInformationJobObject(j.h, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil); err != nil {
		return 0
	}
	return int(info.ActiveProcesses)
}

// terminate ends every process of the job with exit code code.
func (j *job) terminate(code uint32) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.h != 0 {
		windows.TerminateJobObject(j.h, code)
	}
}

// waitEmpty waits up to d for the job to have no live process.
func (j *job) waitEmpty(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		if j.active() == 0 {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(pause)
	}
}

// close ends whatever is left of the job (kill-on-close) and frees it.
func (j *job) close() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.h != 0 {
		windows.TerminateJobObject(j.h, 1)
		windows.CloseHandle(j.h)
		j.h = 0
	}
}
