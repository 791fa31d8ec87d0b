package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The network filter. What it decides in the kernel, and why:
//
//   - A system call of another architecture (i386 through int 0x80 on
//     amd64, arm32 on arm64) or of the x32 ABI fails with EPERM: its
//     numbers are not the ones checked below, and on i386 every socket
//     call goes through socketcall, whose arguments a filter cannot read.
//   - socket: AF_UNIX, AF_NETLINK (local: routes, interfaces), and
//     AF_INET/AF_INET6 streams of protocol 0 or TCP. Everything else
//     fails with EACCES: UDP (DNS included: names are resolved by the
//     proxy), raw and packet sockets, ICMP, SCTP, MPTCP, vsock, ... A
//     socket that cannot be made cannot send a datagram, so sendto of a
//     datagram needs no rule.
//   - connect goes to the helper (user notification), which connects the
//     very socket itself if the address is loopback (but port 53) or a unix
//     socket that is no way out itself; see supervise_connect_linux.go and
//     supervise_unix_linux.go.
//   - listen goes to the helper too, which binds the socket to the
//     loopback device and listens on it: a server the command starts is
//     reachable from this machine only, whatever address it bound (see
//     supervise_listen_linux.go).
//   - sendto, sendmsg and sendmmsg with MSG_FASTOPEN fail with EACCES:
//     on a TCP socket that flag connects to the address it is given,
//     without a connect call. Without it, sendto's address is ignored on
//     a stream socket, so nothing else needs checking.
//   - io_uring_setup (and enter, register) fail with ENOSYS: a ring's
//     connect and socket operations would not pass through this filter.
//     Programs that use io_uring (libuv, tokio-uring) fall back to plain
//     system calls on ENOSYS.
//
// What needs no rule: bind (nothing arrives before a listen), accept (a
// connection comes from a listening socket, whose device it keeps),
// socketpair (only AF_UNIX pairs exist), and socketcall (absent from amd64, arm64 and riscv64; reached
// only through a foreign architecture, refused above). Taking a socket
// from another process (pidfd_getfd, SCM_RIGHTS from an unconfined
// process) is kept away by Landlock's ptrace scope, not by this filter.

// Offsets in struct seccomp_data; argument words are little-endian on
// every architecture built here, so an int argument is the word at its
// offset.
const (
	seccompNr   = 0
	seccompArch = 4
	x32Bit      = 0x40000000 // __X32_SYSCALL_BIT
)

func seccompArg(i uint32) uint32 { return 16 + 8*i }

func seccompErrno(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e) }

// nativeArch is the audit architecture of this build's system calls, or 0
// where the filter is not built for it.
func nativeArch() uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64
	case "riscv64":
		return unix.AUDIT_ARCH_RISCV64
	}
	return 0
}

// networkProgram is the filter for network modes proxy and off.
func networkProgram() ([]unix.SockFilter, error) {
	var p bpfProg
	if err := nativeOnly(&p); err != nil {
		return nil, err
	}
	p.jump(unix.BPF_JEQ, unix.SYS_SOCKET, "", "not-socket")
	socketRule(&p)
	p.label("not-socket")
	p.jump(unix.BPF_JEQ, unix.SYS_CONNECT, "notify", "")
	p.jump(unix.BPF_JEQ, unix.SYS_LISTEN, "notify", "")
	p.jump(unix.BPF_JEQ, unix.SYS_SENDTO, "flags-arg3", "")
	p.jump(unix.BPF_JEQ, unix.SYS_SENDMSG, "flags-arg2", "")
	p.jump(unix.BPF_JEQ, unix.SYS_SENDMMSG, "flags-arg3", "")
	keyringRule(&p)
	p.jump(unix.BPF_JEQ, unix.SYS_IO_URING_SETUP, "enosys", "")
	p.jump(unix.BPF_JEQ, unix.SYS_IO_URING_ENTER, "enosys", "")
	p.jump(unix.BPF_JEQ, unix.SYS_IO_URING_REGISTER, "enosys", "allow")
	fastOpenRule(&p)
	p.label("eacces")
	p.ret(seccompErrno(unix.EACCES))
	p.label("eperm")
	p.ret(seccompErrno(unix.EPERM))
	p.label("enosys")
	p.ret(seccompErrno(unix.ENOSYS))
	p.label("notify")
	p.ret(unix.SECCOMP_RET_USER_NOTIF)
	p.label("allow")
	p.ret(unix.SECCOMP_RET_ALLOW)
	return p.assemble()
}

// keyringProgram is the filter for network mode open: the keyring calls
// refused, the rest let through, with no listener.
func keyringProgram() ([]unix.SockFilter, error) {
	var p bpfProg
	if err := nativeOnly(&p); err != nil {
		return nil, err
	}
	keyringRule(&p)
	p.goTo("allow")
	p.label("eperm")
	p.ret(seccompErrno(unix.EPERM))
	p.label("enosys")
	p.ret(seccompErrno(unix.ENOSYS))
	p.label("allow")
	p.ret(unix.SECCOMP_RET_ALLOW)
	return p.assemble()
}

// nativeOnly refuses (EPERM) a call of another architecture, or amd64's
// x32 calls, and loads the call's number; an error where termhelper
// knows no audit architecture for this one.
func nativeOnly(p *bpfProg) error {
	arch := nativeArch()
	if arch == 0 {
		return fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
	}
	p.load(seccompArch)
	p.jump(unix.BPF_JEQ, arch, "", "eperm")
	p.load(seccompNr)
	if runtime.GOARCH == "amd64" {
		p.jump(unix.BPF_JGE, x32Bit, "eperm", "")
	}
	return nil
}

// keyringRule refuses the kernel's keyrings, as if the kernel had none:
// a command inherits the helper's session keyring, and the user's other
// processes' keys (Kerberos tickets, a file system's keys) are the
// user's own to read there; root's user keyring is every root process's.
func keyringRule(p *bpfProg) {
	p.jump(unix.BPF_JEQ, unix.SYS_ADD_KEY, "enosys", "")
	p.jump(unix.BPF_JEQ, unix.SYS_REQUEST_KEY, "enosys", "")
	p.jump(unix.BPF_JEQ, unix.SYS_KEYCTL, "enosys", "")
}

// filterKeyrings installs keyringProgram on the calling thread (locked),
// setting no_new_privs: the network open, there is no other filter.
func filterKeyrings() error {
	prog, err := keyringProgram()
	if err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if _, err := seccompSetFilter(prog, 0); err != nil {
		return fmt.Errorf("seccomp keyring filter: %w", err)
	}
	return nil
}

// socketRule lets through local families and TCP streams; the type's flags
// (SOCK_NONBLOCK, SOCK_CLOEXEC) are masked off.
func socketRule(p *bpfProg) {
	p.load(seccompArg(0))
	p.jump(unix.BPF_JEQ, unix.AF_UNIX, "allow", "")
	p.jump(unix.BPF_JEQ, unix.AF_NETLINK, "allow", "")
	p.jump(unix.BPF_JEQ, unix.AF_INET, "inet", "")
	p.jump(unix.BPF_JEQ, unix.AF_INET6, "inet", "eacces")
	p.label("inet")
	p.load(seccompArg(1))
	p.stmt(unix.BPF_ALU|unix.BPF_AND|unix.BPF_K, 0xf) // SOCK_TYPE_MASK
	p.jump(unix.BPF_JEQ, unix.SOCK_STREAM, "", "eacces")
	p.load(seccompArg(2))
	p.jump(unix.BPF_JEQ, 0, "allow", "")
	p.jump(unix.BPF_JEQ, unix.IPPROTO_TCP, "allow", "eacces")
}

// fastOpenRule refuses MSG_FASTOPEN in the flags argument of the send
// calls (the fourth for sendto and sendmmsg, the third for sendmsg).
func fastOpenRule(p *bpfProg) {
	p.label("flags-arg3")
	p.load(seccompArg(3))
	p.goTo("flags")
	p.label("flags-arg2")
	p.load(seccompArg(2))
	p.label("flags")
	p.jump(unix.BPF_JSET, unix.MSG_FASTOPEN, "eacces", "allow")
}

// filterNetwork installs the network filter on the calling thread (locked,
// no_new_privs set) for network mode n and returns the listener fd. The
// caller must send the listener to the helper and close it before it
// execs: a command holding its own listener could answer its own connects.
// NetworkOpen installs nothing and returns -1. Under a filter with a listener
// already (an enclosing helper's), the error wraps EBUSY: the kernel
// allows one listener per thread, and the enclosing one still holds.
func filterNetwork(n Network) (listener int, err error) {
	switch n {
	case NetworkOpen:
		return -1, nil
	case NetworkProxy, NetworkOff:
	default:
		return -1, fmt.Errorf("network %q: not a network mode", n)
	}
	prog, err := networkProgram()
	if err != nil {
		return -1, err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return -1, fmt.Errorf("no_new_privs: %w", err)
	}
	return installFilter(prog)
}

// installFilter loads prog with a new listener. Once the helper has taken
// a notification, the command's wait is only ended by a fatal signal
// (where the kernel knows that flag, 5.19): an ordinary signal would make
// the command restart a connect the helper is already making for it.
func installFilter(prog []unix.SockFilter) (int, error) {
	fd, err := seccompSetFilter(prog, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER|unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)
	if errors.Is(err, unix.EINVAL) {
		fd, err = seccompSetFilter(prog, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER)
	}
	if err != nil {
		return -1, fmt.Errorf("seccomp network filter: %w", err)
	}
	return fd, nil
}

func seccompSetFilter(prog []unix.SockFilter, flags uintptr) (int, error) {
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	fd, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}
