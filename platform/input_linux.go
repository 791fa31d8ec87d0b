package platform

import (
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Syscall numbers of a blocked read or wait, per architecture: what
// /proc/PID/syscall shows for a process sleeping in one.
var (
	readCalls = map[string][]int{"amd64": {0, 19}, "arm64": {63, 65}, "386": {3, 145}, "arm": {3, 145}, "riscv64": {63, 65}}
	pollCalls = map[string][]int{"amd64": {7, 23, 232, 270, 271, 281, 441}, "arm64": {22, 72, 73, 441}, "riscv64": {22, 72, 73, 441}}
)

// InputState tells whether the terminal's foreground process group is
// blocked reading the terminal, from the kernel's own view: the syscall a
// sleeping process is in (/proc/PID/syscall) and the terminal's modes. A
// command that is merely slow and silent is never reported waiting.
func (p *Process) InputState() InputState {
	v, ok := p.terminalView()
	if !ok {
		return InputState{}
	}
	canonical := v.tio.Lflag&unix.ICANON != 0
	echo := v.tio.Lflag&unix.ECHO != 0
	st := InputState{Known: true, Raw: !canonical}
	if v.fg <= 0 {
		// No foreground group: the session's leader has ended, and
		// nothing reads the terminal as the person's program.
		return st
	}
	for _, pid := range groupMembers(v.fg) {
		switch blockedOn(pid, v.term) {
		case blockedRead:
			st.Waiting = true
			st.Runs += runsOf(pid)
		case blockedPoll:
			// A line editor (readline, a REPL) waits in poll or select with
			// the terminal in raw mode; a server polling sockets leaves the
			// terminal in line mode and is not waiting for a person.
			st.Waiting = st.Waiting || !canonical
			st.Runs += runsOf(pid)
		}
	}
	// The output is looked at after the processes: all a command wrote
	// before the read seen is then read by the helper or pending here.
	if p.outputPending() {
		return InputState{Known: true, Raw: !canonical, Unread: true}
	}
	st.Secret = st.Waiting && canonical && !echo
	return st
}

// outputPending tells whether the terminal holds output the helper has
// not read. A zero-timeout poll of the master, unlike TIOCINQ, first
// pushes through what the command wrote that is still in the terminal's
// flip buffer, on its way to the master: a prompt written just before a
// read can be there when the read is seen.
func (p *Process) outputPending() bool {
	rc, err := p.sys.master.SyscallConn()
	if err != nil {
		return false
	}
	pending := true // a look that fails is no sign of a prompt seen whole
	rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 0)
		pending = err != nil || (n > 0 && fds[0].Revents&unix.POLLIN != 0)
	})
	return pending
}

// terminalView is what the terminal's master side tells.
type terminalView struct {
	fg   int // the foreground process group; 0 when there is none
	tio  *unix.Termios
	term terminal
}

// terminalView reads the terminal's foreground process group and modes
// from its master side, and which terminal it is.
func (p *Process) terminalView() (terminalView, bool) {
	m := p.sys.master
	if m == nil {
		return terminalView{}, false
	}
	var v terminalView
	var ptn uint32
	var err error
	// Control, unlike Fd, holds the file open and keeps it non-blocking.
	rc, cerr := m.SyscallConn()
	if cerr != nil {
		return terminalView{}, false
	}
	cerr = rc.Control(func(fd uintptr) {
		if v.fg, err = unix.IoctlGetInt(int(fd), unix.TIOCGPGRP); err != nil {
			return
		}
		if v.tio, err = unix.IoctlGetTermios(int(fd), unix.TCGETS); err != nil {
			return
		}
		ptn, err = unix.IoctlGetUint32(int(fd), unix.TIOCGPTN)
	})
	if cerr != nil || err != nil {
		return terminalView{}, false
	}
	v.term, err = ptsTerminal(ptn)
	return v, err == nil
}

type blockKind int

const (
	notBlocked blockKind = iota
	blockedRead
	blockedPoll
)

// blockedOn reads /proc/PID/syscall: "nr arg0 arg1 ..." for a sleeping
// process, "running" for a running one.
func blockedOn(pid int, term terminal) blockKind {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/syscall")
	if err != nil {
		return blockedByWchan(pid)
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return notBlocked
	}
	nr, err := strconv.Atoi(f[0])
	if err != nil {
		return notBlocked
	}
	if contains(readCalls[runtime.GOARCH], nr) {
		fdArg, err := strconv.ParseUint(strings.TrimPrefix(f[1], "0x"), 16, 32)
		if err == nil && term.isFd(pid, int(fdArg)) {
			return blockedRead
		}
		return notBlocked
	}
	if contains(pollCalls[runtime.GOARCH], nr) && term.onStdio(pid) {
		return blockedPoll
	}
	return notBlocked
}

// blockedByWchan is the fallback where /proc/PID/syscall is not readable
// (a hardened kernel): the kernel function a process sleeps in.
func blockedByWchan(pid int) blockKind {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/wchan")
	if err != nil {
		return notBlocked
	}
	switch string(b) {
	case "n_tty_read":
		return blockedRead
	case "do_select", "do_sys_poll", "poll_schedule_timeout", "ep_poll":
		return blockedPoll
	}
	return notBlocked
}

// runsOf is how many times pid has been given the processor: the third
// field of /proc/PID/schedstat; 0 where the kernel does not keep it.
func runsOf(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/schedstat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return 0
	}
	n, _ := strconv.ParseUint(f[2], 10, 64)
	return n
}

// terminal is the command's terminal, known by its device number: the
// same device whatever path a process opened it by, and whatever mount
// namespace the process sees it in.
type terminal struct{ dev uint64 }

// devTTY is /dev/tty's device number (5, 0), which stands for whichever
// terminal controls the process that opens it. getpass, ssh, sudo, gpg,
// psql and git's credential prompts read passwords from it, so that they
// reach the person even when their standard input is redirected.
var devTTY = unix.Mkdev(5, 0)

// ptsTerminal identifies the terminal /dev/pts/N.
func ptsTerminal(n uint32) (terminal, error) {
	var st unix.Stat_t
	if err := unix.Stat("/dev/pts/"+strconv.FormatUint(uint64(n), 10), &st); err != nil {
		return terminal{}, err
	}
	return terminal{dev: uint64(st.Rdev)}, nil
}

// isFd reports whether a process's file descriptor is the terminal: its
// device itself, or /dev/tty in a process the terminal controls.
func (t terminal) isFd(pid, fd int) bool {
	var st unix.Stat_t
	// Stat follows the /proc link to the open file itself.
	if unix.Stat("/proc/"+strconv.Itoa(pid)+"/fd/"+strconv.Itoa(fd), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR {
		return false
	}
	switch uint64(st.Rdev) {
	case t.dev:
		return true
	case devTTY:
		ps, ok := readStat(pid)
		return ok && ps.tty == encodeDev(t.dev)
	}
	return false
}

// onStdio reports whether the terminal is one of a process's standard
// file descriptors.
func (t terminal) onStdio(pid int) bool {
	return t.isFd(pid, 0) || t.isFd(pid, 1) || t.isFd(pid, 2)
}

// encodeDev writes a device number as /proc/PID/stat's tty_nr does (the
// kernel's new_encode_dev).
func encodeDev(dev uint64) uint32 {
	major, minor := uint32(unix.Major(dev)), unix.Minor(dev)
	return minor&0xff | major<<8 | (minor&^0xff)<<12
}

func contains(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// groupMembers lists the processes of process group pgid: its leader and
// the leader's descendants in that group, found through the kernel's
// children lists, so no full scan of /proc is needed at every poll.
func groupMembers(pgid int) []int {
	var out []int
	queue := []int{pgid}
	for len(queue) > 0 && len(out) < 256 {
		pid := queue[0]
		queue = queue[1:]
		if st, ok := readStat(pid); ok && st.pgrp == pgid {
			out = append(out, pid)
		}
		queue = append(queue, childrenOf(pid)...)
	}
	return out
}

func childrenOf(pid int) []int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var kids []int
	for _, t := range tasks {
		b, err := os.ReadFile(dir + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if k, err := strconv.Atoi(f); err == nil {
				kids = append(kids, k)
			}
		}
	}
	return kids
}
