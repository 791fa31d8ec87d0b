package sandbox

import (
	"errors"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp user notification interface (linux/seccomp.h), which
// golang.org/x/sys does not declare.

// seccompData is struct seccomp_data.
type seccompData struct {
	Nr   int32
	Arch uint32
	IP   uint64
	Args [6]uint64
}

// seccompNotif is struct seccomp_notif: one system call waiting for the
// helper. Pid is the calling thread's id.
type seccompNotif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Data  seccompData
}

// seccompResp is struct seccomp_notif_resp. Error is a negated errno;
// 0 makes the call return Val.
type seccompResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// seccompSizes is struct seccomp_notif_sizes.
type seccompSizes struct {
	Notif, Resp, Data uint16
}

// idValidOld is SECCOMP_IOCTL_NOTIF_ID_VALID as first defined (with the
// wrong direction), the only number kernels before 5.8 know; later ones
// keep it.
const idValidOld = 0x80082102

func ioctlPtr(fd uintptr, req uint, p unsafe.Pointer) error {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, fd, uintptr(req), uintptr(p))
	if e != 0 {
		return e
	}
	return nil
}

// notifRecv takes the next notification; it blocks if none is pending,
// so it is called only when the listener polled readable. ENOENT: the
// caller went away (a fatal signal) before it was taken.
func notifRecv(fd uintptr) (seccompNotif, error) {
	var n seccompNotif
	for {
		err := ioctlPtr(fd, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&n))
		if err != unix.EINTR {
			return n, err
		}
	}
}

// notifSend answers a notification: the call returns 0, or fails with e.
func notifSend(fd uintptr, id uint64, e unix.Errno) error {
	r := seccompResp{ID: id, Error: -int32(e)}
	return ioctlPtr(fd, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&r))
}

// notifValid says whether the notification id still waits for an answer,
// so that what was opened by the caller's pid is the caller's.
func notifValid(fd uintptr, id uint64) bool {
	err := ioctlPtr(fd, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id))
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOTTY) {
		err = ioctlPtr(fd, idValidOld, unsafe.Pointer(&id))
	}
	return err == nil
}

// notifSizes asks the kernel the sizes of its notification structures.
func notifSizes() (seccompSizes, error) {
	var s seccompSizes
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_NOTIF_SIZES, 0, uintptr(unsafe.Pointer(&s)))
	if e != 0 {
		return s, e
	}
	return s, nil
}
