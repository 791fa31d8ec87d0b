package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// networkSupport says whether this kernel has what the filter needs:
// seccomp user notification with the structure sizes built here,
// pidfd_open and pidfd_getfd (Linux 5.6), and the right to take a command's
// socket (ptrace access, which Yama may restrict). Each check is one
// system call; no process is started.
func networkSupport() (ok bool, reason string) {
	if nativeArch() == 0 {
		return false, fmt.Sprintf("the network filter is not built for %s: direct connections are not blocked", runtime.GOARCH)
	}
	for _, check := range []func() string{userNotifSupport, pidfdSupport, ptraceSupport} {
		if r := check(); r != "" {
			return false, r + ": direct connections are not blocked"
		}
	}
	return true, ""
}

func userNotifSupport() string {
	action := uint32(unix.SECCOMP_RET_USER_NOTIF)
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
	if e != 0 {
		return fmt.Sprintf("seccomp user notification is not available here (Linux 5.0 or later, not forbidden by a container: %v)", e)
	}
	sz, err := notifSizes()
	want := seccompSizes{uint16(unsafe.Sizeof(seccompNotif{})), uint16(unsafe.Sizeof(seccompResp{})), uint16(unsafe.Sizeof(seccompData{}))}
	if err != nil || sz != want {
		return fmt.Sprintf("seccomp notifications here have sizes %v, not %v", sz, want)
	}
	return ""
}

// pidfdSupport calls pidfd_getfd on a descriptor that cannot be a pidfd:
// EBADF says the call exists and is allowed.
func pidfdSupport() string {
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return fmt.Sprintf("pidfd_open is not available here (Linux 5.3 or later: %v)", err)
	}
	unix.Close(fd)
	if _, err := unix.PidfdGetfd(-1, 0, 0); !errors.Is(err, unix.EBADF) {
		return fmt.Sprintf("pidfd_getfd is not available here (Linux 5.6 or later: %v)", err)
	}
	return ""
}

// ptraceSupport reads Yama's ptrace scope: 1 (descendants only) is enough,
// since every command stays below the helper (a child subreaper); 2 needs
// CAP_SYS_PTRACE; 3 forbids it.
func ptraceSupport() string {
	b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope")
	if err != nil {
		return "" // no Yama
	}
	scope, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if scope < 2 || scope == 2 && hasCapSysPtrace() {
		return ""
	}
	return fmt.Sprintf("Yama forbids the helper to take a command's socket (kernel.yama.ptrace_scope = %d)", scope)
}

func hasCapSysPtrace() bool {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && caps&(1<<unix.CAP_SYS_PTRACE) != 0
		}
	}
	return false
}
