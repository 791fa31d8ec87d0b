package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// machine is what this kernel and its configuration give, measured once.
type machine struct {
	abi        int    // Landlock ABI, 0 for none
	noLandlock string // why there is no Landlock

	nsFlags uintptr // the namespaces a trampoline can be cloned into, 0 for none
	noNS    string  // why there are none

	netOK bool
	noNet string // why the network filter cannot be had
}

// measured is the machine, measured at the first call: Probe's, or the
// first Prepare's if the caller did not probe.
var measured = sync.OnceValue(measure)

func measure() machine {
	var m machine
	m.abi, m.noLandlock = landlockABI()
	if why := rootCannotDrop(); why != "" && m.abi > 0 {
		m.abi, m.noLandlock = 0, why
	}
	if m.abi > 0 {
		m.nsFlags, m.noNS = cachedNamespaces()
		m.netOK, m.noNet = networkSupport()
	}
	return m
}

func landlockABI() (int, string) {
	abi, err := ll.LandlockGetABIVersion()
	switch {
	case err == nil && abi > 0:
		return abi, ""
	case errors.Is(err, unix.EOPNOTSUPP):
		return 0, "Landlock is built into this kernel but not enabled (add landlock to the lsm= boot parameter)"
	}
	return 0, "this kernel has no Landlock (Linux 5.13 or later is needed)"
}

// nsCandidates are the clone flags to try, in order: root can have a
// mount namespace of its own without a user namespace, which keeps its
// power over other users' files; anyone else needs both. Each comes first
// with an IPC namespace (SysV shared memory, semaphores and message
// queues are reached by number, which no file rule holds), then, where a
// container forbids that alone, without.
func nsCandidates() []uintptr {
	both := uintptr(unix.CLONE_NEWUSER | unix.CLONE_NEWNS)
	if os.Geteuid() == 0 {
		return []uintptr{unix.CLONE_NEWNS | unix.CLONE_NEWIPC, unix.CLONE_NEWNS, both | unix.CLONE_NEWIPC, both}
	}
	return []uintptr{both | unix.CLONE_NEWIPC, both}
}

// namespaces starts one short child (two at most, for root) in the
// namespaces a trampoline would get and has it do what the trampoline
// does there: a private tree and a read-only bind mount. AppArmor's
// restriction lets the namespace be made and then refuses the mount, so
// making it is not enough. The child's word is its output, not its exit
// status, which a subreaper in the helper may collect first.
func namespaces() (uintptr, string) {
	var last string
	for _, flags := range nsCandidates() {
		cmd := exec.Command("/proc/self/exe", Command, probeArg)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		applyNamespaces(cmd.SysProcAttr, flags)
		out, err := cmd.CombinedOutput()
		if strings.TrimSpace(string(out)) == probeOK {
			return flags, ""
		}
		last = strings.TrimSpace(string(out))
		if last == "" && err != nil {
			last = err.Error()
		}
	}
	return 0, noNamespaceReason(last)
}

// noNamespaceReason names what forbids the namespaces, where the kernel
// says.
func noNamespaceReason(detail string) string {
	why := "a container or a seccomp profile forbids them"
	switch {
	case sysctl("kernel/apparmor_restrict_unprivileged_userns") == "1":
		why = "AppArmor restricts unprivileged user namespaces"
	case sysctl("kernel/unprivileged_userns_clone") == "0":
		why = "kernel.unprivileged_userns_clone is 0"
	case sysctl("user/max_user_namespaces") == "0":
		why = "user.max_user_namespaces is 0"
	case detail != "":
		why = detail
	}
	return "user namespaces are not allowed here (" + why + "): the secret places are kept unreadable by Landlock alone, their names show in listings, and the protected paths and secret places inside the root are guarded by the policy alone"
}

func sysctl(name string) string {
	b, err := os.ReadFile("/proc/sys/" + name)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// applyNamespaces asks for flags at the clone: a user namespace maps the
// user to themselves (no root inside for anyone who is not root outside)
// and lets the trampoline mount, through an ambient capability that it
// drops before the command runs.
func applyNamespaces(a *syscall.SysProcAttr, flags uintptr) {
	a.Cloneflags |= flags
	if flags&unix.CLONE_NEWUSER == 0 {
		return
	}
	uid, gid := os.Getuid(), os.Getgid()
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	a.GidMappingsEnableSetgroups = false
	if uid != 0 {
		a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
	}
}

// probeArg makes the trampoline try the namespace work, say probeOK if
// it could, and exit.
const (
	probeArg = "probe"
	probeOK  = "namespaces: ok"
)

// probeChild runs in the child namespaces: it succeeds if the mounts the
// trampoline needs are allowed.
func probeChild() int {
	if err := makePrivate(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := bindReadOnly("/dev/null", "/dev/null"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := mountOwn(ownTerminals()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(probeOK)
	return 0
}

// Probe says what a command asked to run in mode with network gets on
// this machine. It measures once (a syscall for Landlock, one short child
// for the namespaces); a caller that cares for its start runs the first
// call on a goroutine of its own.
func Probe(mode Mode, net Network) Status {
	if mode == Off {
		return offStatus(net, "")
	}
	return measured().status(mode, net)
}

// status is what a command asked to run in mode with network gets on m.
func (m machine) status(mode Mode, net Network) Status {
	if m.abi == 0 {
		return offStatus(net, m.noLandlock+": commands run unconfined and the policy asks as before")
	}
	st := Status{Mode: mode, Backend: "landlock", Network: net}
	var gaps []string
	if m.nsFlags != 0 {
		st.Backend = "landlock+namespaces"
		if m.nsFlags&unix.CLONE_NEWIPC == 0 {
			gaps = append(gaps, "an IPC namespace is not allowed here: other processes' SysV shared memory stays in reach")
		}
	} else {
		gaps = append(gaps, m.noNS+"; other processes' shared memory stays in reach, and so do the other sessions' terminals, which a command can type into")
		if m.abi < 9 {
			gaps = append(gaps, fmt.Sprintf("Landlock ABI %d cannot close the SSH agent's and container engines' sockets (ABI 9 can)", m.abi))
		}
	}
	if m.abi < 6 {
		gaps = append(gaps, fmt.Sprintf("Landlock ABI %d cannot keep signals within a command's own processes: a command can signal the other sessions' processes and trampolines (ABI 6, Linux 6.12, can)", m.abi))
	}
	if m.abi < 3 {
		gaps = append(gaps, fmt.Sprintf("Landlock ABI %d cannot stop a file outside the writable places from being truncated (Linux 6.2 can)", m.abi))
	}
	if net != NetworkOpen && !m.netOK {
		st.Network = NetworkOpen
		gaps = append(gaps, m.noNet)
	}
	st.Reason = sentences(gaps)
	return st
}

// offStatus is the status where nothing confines: why is given when it
// was not asked for; a network that was asked governed is not.
func offStatus(net Network, why string) Status {
	st := Status{Mode: Off, Backend: "none", Network: NetworkOpen}
	var gaps []string
	if why != "" {
		gaps = append(gaps, why)
	}
	if net != NetworkOpen {
		gaps = append(gaps, "with the sandbox off, commands reach the network directly")
	}
	st.Reason = sentences(gaps)
	return st
}

func sentences(parts []string) string {
	var b strings.Builder
	for _, p := range parts {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strings.ToUpper(p[:1]) + p[1:] + ".")
	}
	return b.String()
}
