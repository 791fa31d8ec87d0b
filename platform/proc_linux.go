package platform

import (
	"bytes"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func sysProcAttr(withTTY bool) *syscall.SysProcAttr {
	// Pdeathsig ends the direct child if the helper dies without cleaning
	// up; the rest of the tree is found by its tag on the next start.
	return &syscall.SysProcAttr{Setsid: true, Setctty: withTTY, Pdeathsig: syscall.SIGKILL}
}

// children are the processes the helper waits for itself; the reaper
// leaves their zombies alone so that their Wait gets the status.
var children = struct {
	sync.Mutex
	pids map[int]bool
	// handoffs counts the commands being handed to a spare: their pid is
	// not known until the spare answers, and one that ended by then must
	// not be reaped as an orphan. A scan put off for them is made after.
	handoffs int
	put      bool
}{pids: map[int]bool{}}

func startRegistered(cmd *exec.Cmd) error {
	children.Lock()
	defer children.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	children.pids[cmd.Process.Pid] = true
	return nil
}

func unregister(pid int) {
	children.Lock()
	delete(children.pids, pid)
	children.Unlock()
}

// Run runs cmd to its end like cmd.Run, safely beside the reaper. Every
// process the helper starts must go through Start or Run once Init ran.
func Run(cmd *exec.Cmd) error { return RunStarted(cmd, nil) }

// RunStarted is Run, calling started (if not nil) once cmd has started.
func RunStarted(cmd *exec.Cmd, started func()) error {
	if err := startRegistered(cmd); err != nil {
		return err
	}
	defer unregister(cmd.Process.Pid)
	if started != nil {
		started()
	}
	return cmd.Wait()
}

var (
	initOnce  sync.Once
	subreaper bool // set once by Init: every descendant stays below the helper
)

// Init makes the helper a child subreaper, so that a command's descendants
// that leave its session (setsid, a double fork, nohup) stay below the
// helper instead of moving to init, and reaps such orphans when they die.
func Init() {
	initOnce.Do(func() {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			return
		}
		subreaper = true
		go reapOrphans()
	})
}

// reapOrphans scans for orphans' zombies at each SIGCHLD. Signals that
// arrive during a scan are coalesced into one more scan, so none is missed
// and an idle helper does no work.
func reapOrphans() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGCHLD)
	for range sigs {
		reapOnce()
		time.Sleep(10 * time.Millisecond) // a burst of exits costs one scan
	}
}

// beginHandoff holds the reaper off until endHandoff.
func beginHandoff() {
	children.Lock()
	children.handoffs++
	children.Unlock()
}

// endHandoff registers pid (0: none) as a child the helper waits for, and
// makes the scan put off meanwhile.
func endHandoff(pid int) {
	children.Lock()
	if pid > 0 {
		children.pids[pid] = true
	}
	children.handoffs--
	scan := children.handoffs == 0 && children.put
	children.put = children.put && !scan
	children.Unlock()
	if scan {
		go reapOnce()
	}
}

func reapOnce() {
	self := os.Getpid()
	children.Lock()
	defer children.Unlock()
	if children.handoffs > 0 {
		children.put = true
		return
	}
	for _, pid := range childrenOf(self) {
		if st, ok := readStat(pid); ok && st.state == 'Z' && !children.pids[pid] {
			var ws unix.WaitStatus
			unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		}
	}
}

// mayHaveStrays tells whether any command may have left a process outside
// its group: as a subreaper, the helper adopts such orphans on its main
// thread, so unless that thread has a child the helper did not start
// itself, there are none, and one read answers.
func mayHaveStrays() bool {
	if !subreaper {
		return true
	}
	self := os.Getpid()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(self) + "/task/" + strconv.Itoa(self) + "/children")
	if err != nil {
		return true
	}
	children.Lock()
	defer children.Unlock()
	for _, f := range bytes.Fields(b) {
		pid, err := strconv.Atoi(string(f))
		if err != nil || children.pids[pid] {
			continue
		}
		if st, ok := readStat(pid); ok && st.state != 'Z' {
			return true
		}
	}
	return false
}

// descendants walks the helper's descendants through the kernel's
// children lists: as a subreaper, whatever a command left behind is among
// them, so the rest of the machine's processes need not be read.
func descendants(fn func(procStat)) {
	queue := childrenOf(os.Getpid())
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if st, ok := readStat(pid); ok {
			fn(st)
		}
		queue = append(queue, childrenOf(pid)...)
	}
}

// procStat is what termhelper needs of /proc/PID/stat.
type procStat struct {
	pid, ppid, pgrp, session int
	tty                      uint32 // the controlling terminal's device, as the kernel encodes it
	state                    byte
	start                    uint64 // clock ticks after boot
}

func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	return parseStat(pid, b)
}

// parseStat reads the fields after the command name, which may itself hold
// spaces and parentheses: the last ')' ends it.
func parseStat(pid int, b []byte) (procStat, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return procStat{}, false
	}
	f := bytes.Fields(b[i+2:])
	if len(f) < 20 {
		return procStat{}, false
	}
	st := procStat{pid: pid, state: f[0][0]}
	st.ppid, _ = strconv.Atoi(string(f[1]))
	st.pgrp, _ = strconv.Atoi(string(f[2]))
	st.session, _ = strconv.Atoi(string(f[3]))
	if tty, err := strconv.ParseInt(string(f[4]), 10, 64); err == nil {
		st.tty = uint32(tty)
	}
	st.start, _ = strconv.ParseUint(string(f[19]), 10, 64)
	return st, true
}

func forEachProc(fn func(procStat)) {
	d, err := os.Open("/proc")
	if err != nil {
		return
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok {
			fn(st)
		}
	}
}

// treeMembers lists the live processes of a command: its process group and
// session, everything carrying its tag, and every descendant of those.
func treeMembers(pid int, tag string) []int {
	self := os.Getpid()
	var all []procStat
	walk := forEachProc
	if subreaper {
		walk = descendants
	}
	walk(func(st procStat) {
		if st.pid != self && st.state != 'Z' && st.state != 'X' {
			all = append(all, st)
		}
	})
	in := map[int]bool{}
	sole := subreaper && soleTree(pid)
	for _, st := range all {
		// Only an orphan (adopted by the helper, a subreaper, or by init)
		// can have lost every link to the command but its tag; the others
		// are reached through their parents below. One that lost its tag
		// too is the only live command's (see strays_linux.go).
		orphan := st.ppid == self || st.ppid == 1
		if st.pid == pid || st.pgrp == pid || st.session == pid || (orphan && hasTag(st.pid, tag)) ||
			(sole && st.ppid == self && unclaimed(st.pid)) {
			in[st.pid] = true
		}
	}
	for grew := true; grew; {
		grew = false
		for _, st := range all {
			if !in[st.pid] && in[st.ppid] {
				in[st.pid], grew = true, true
			}
		}
	}
	members := make([]int, 0, len(in))
	for p := range in {
		members = append(members, p)
	}
	return members
}

func hasTag(pid int, tag string) bool {
	if tag == "" {
		return false
	}
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	want := TagVar + "=" + tag
	return bytes.HasPrefix(env, []byte(want+"\x00")) || bytes.Contains(env, []byte("\x00"+want+"\x00"))
}

// StartTime returns a process's start time in clock ticks after boot, to
// tell a process from a later one that reused its pid.
func StartTime(pid int) (uint64, bool) {
	st, ok := readStat(pid)
	if !ok || st.state == 'Z' {
		return 0, false
	}
	return st.start, true
}

// KillLeftovers ends what a dead helper left behind: every process whose
// tag starts with prefix, and each listed pid whose start time is still the
// recorded one (so a pid reused by an unrelated process is never touched).
func KillLeftovers(prefix string, pids map[int]uint64) int {
	self := os.Getpid()
	var victims []int
	want := []byte(TagVar + "=" + prefix)
	forEachProc(func(st procStat) {
		if st.pid == self || st.state == 'Z' {
			return
		}
		if start, ok := pids[st.pid]; ok && start == st.start {
			victims = append(victims, st.pid)
			return
		}
		env, err := os.ReadFile("/proc/" + strconv.Itoa(st.pid) + "/environ")
		if err == nil && (bytes.HasPrefix(env, want) || bytes.Contains(env, append([]byte{0}, want...))) {
			victims = append(victims, st.pid)
		}
	})
	for _, p := range victims {
		unix.Kill(p, unix.SIGKILL)
	}
	return len(victims)
}
