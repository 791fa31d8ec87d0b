package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// rootKeeps are the capabilities root keeps: its power over files it
// does not own (which is what root's commands expect of a project tree)
// and low ports. None of them lifts Landlock or a mount. Everything else
// (SYS_ADMIN, SYS_MODULE, SYS_PTRACE, DAC_READ_SEARCH, NET_ADMIN,
// NET_RAW, MKNOD, BPF, ...) leaves the bounding set, so no program the
// command runs can get it back.
var rootKeeps = []int{
	unix.CAP_CHOWN, unix.CAP_DAC_OVERRIDE, unix.CAP_FOWNER, unix.CAP_FSETID,
	unix.CAP_SETGID, unix.CAP_SETUID, unix.CAP_NET_BIND_SERVICE,
}

func rootKeepSet() uint64 {
	var keep uint64
	for _, c := range rootKeeps {
		keep |= 1 << c
	}
	return keep
}

// rootCannotDrop says why root here could not empty its bounding set, or
// "": a container that took CAP_SETPCAP and left others would make every
// command fail at the drop, so Probe finds it first.
func rootCannotDrop() string {
	if os.Geteuid() != 0 {
		return ""
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if unix.Capget(&hdr, &data[0]) == nil && data[0].Effective&(1<<unix.CAP_SETPCAP) != 0 {
		return ""
	}
	keep, last := rootKeepSet(), lastCap()
	for c := 0; c <= last; c++ {
		if in, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, uintptr(c), 0, 0, 0); err == nil && in == 1 && keep&(1<<c) == 0 {
			return "termhelper runs as root without CAP_SETPCAP, so the capabilities it holds cannot be taken from its commands"
		}
	}
	return ""
}

// dropCaps drops every capability of the calling thread, which is the
// one that executes the command. For root, whose programs get the
// bounding set back at each exec, the bounding set loses everything but
// rootKeeps; anyone else has nothing left to get back once no_new_privs
// is set.
func dropCaps() error {
	// Before Linux 4.3 there are no ambient capabilities to clear.
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clearing ambient capabilities: %w", err)
	}
	var keep uint64
	if os.Geteuid() == 0 {
		keep = rootKeepSet()
		if err := dropBounding(keep); err != nil {
			return err
		}
	}
	return setCaps(keep)
}

// dropBounding removes from the bounding set every capability not in
// keep. It needs CAP_SETPCAP, which root has unless a container took it,
// along with most of the rest.
func dropBounding(keep uint64) error {
	last := lastCap()
	for c := 0; c <= last; c++ {
		if keep&(1<<c) != 0 {
			continue
		}
		if in, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, uintptr(c), 0, 0, 0); err == nil && in == 0 {
			continue
		}
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	return nil
}

// setCaps leaves keep (and only what the thread has of it) effective and
// permitted, and nothing inheritable.
func setCaps(keep uint64) error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("reading capabilities: %w", err)
	}
	for i := range data {
		k := uint32(keep >> (32 * i))
		data[i].Permitted &= k
		data[i].Effective = data[i].Permitted
		data[i].Inheritable = 0
	}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("dropping capabilities: %w", err)
	}
	return nil
}

// lastCap is the highest capability this kernel knows.
func lastCap() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return n
		}
	}
	return 63
}
