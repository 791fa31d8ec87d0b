package sandbox

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// A holder is a trampoline that makes a plan's namespaces and mounts and
// hands them to the helper: descriptors of its mount namespace, and of
// its user namespace where it has one of its own. Then it ends: the
// descriptors keep the namespaces. The helper starts each later command
// of the plan through the exec stub (stub/), which enters them, makes a
// mount and IPC namespace of the command's own from them (its own
// /dev/shm, terminals and temporary folder), and confines itself as a
// fresh trampoline does: capabilities, a Landlock domain and a seccomp
// listener of the command's own.

// holderArg, in place of "--" and the command, makes the trampoline a
// holder.
const holderArg = "--holder"

// serveHolder is the trampoline as a holder: it mounts, sends the
// namespaces with 'y' (or 'n' and why it could not) and waits for the
// helper to close its socket.
func serveHolder(w wire) int {
	unix.CloseOnExec(w.CtlFD)
	fds, err := holdNamespaces(w)
	if err != nil {
		unix.Write(w.CtlFD, []byte("n"+oneLine(err)))
		return 1
	}
	if err := unix.Sendmsg(w.CtlFD, []byte{'y'}, unix.UnixRights(fds...), nil, 0); err != nil {
		return 1
	}
	buf := make([]byte, 1)
	for {
		if n, err := unix.Read(w.CtlFD, buf); n <= 0 && err != unix.EINTR {
			return 0
		}
	}
}

// holdNamespaces makes the plan's mounts and opens the namespaces: the
// mount namespace's, then the user namespace's where it was cloned into
// one.
func holdNamespaces(w wire) ([]int, error) {
	if w.Mode == Off || !w.Namespaces {
		return nil, errors.New("a holder needs namespaces")
	}
	writable, err := writablePlaces(w.Plan)
	if err != nil {
		return nil, err
	}
	if ns := mountNamespace(); ns == 0 || ns == w.HelperNS {
		return nil, errors.New("the holder is not in a mount namespace of its own")
	}
	if err := mountPlan(w.Plan, writable); err != nil {
		return nil, err
	}
	names := []string{"mnt"}
	if w.NSFlags&unix.CLONE_NEWUSER != 0 {
		names = append(names, "user")
	}
	var fds []int
	for _, name := range names {
		fd, err := unix.Open("/proc/self/ns/"+name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			closeAll(fds)
			return nil, fmt.Errorf("opening the %s namespace: %w", name, err)
		}
		fds = append(fds, fd)
	}
	return fds, nil
}
