package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/termhelper/termhelper/platform"
	"golang.org/x/sys/unix"
)

// A spare is a trampoline started before the command it will run: it
// confines itself as a fresh one would, then waits for the command's
// argv, environment, folder and standard files, and executes it. Starting
// the helper's binary again is most of the sandbox's cost per command (the
// Go runtime's start, the namespaces, the mounts); a spare takes it off
// the path of a command that arrives at an idle helper. A spare runs one
// command, so every command keeps namespaces, a Landlock domain and a
// seccomp listener of its own.

// spareArg, in place of "--" and the command, makes the trampoline a spare.
const spareArg = "--spare"

// maxHandoff bounds the handoff's message: one datagram, well under a
// socket's default buffer. A longer command or environment is started by a
// fresh trampoline.
const maxHandoff = 128 << 10

// ErrNoSpare is returned by PrepareSpare where a spare would not confine a
// command exactly as a fresh trampoline does: without namespaces, Landlock
// alone reads around the secret places as they were when it was set up.
var ErrNoSpare = errors.New("sandbox: no spare for this plan here")

// handoffMsg is the Handoff on the wire; the files go as rights beside it.
type handoffMsg struct {
	Argv []string
	Env  []string
	Dir  string
	Ctty bool
}

// PrepareSpare returns how to start a spare for p: Apply it on an exec.Cmd
// with no standard files of its own, Start, Started, then Hand it a
// command. It refuses a plan that confines nothing, and a machine where a
// spare could be out of date (ErrNoSpare).
func PrepareSpare(p Plan) (*Launch, error) {
	if p.Mode == Off || launchNamespaces(measured()) == 0 {
		return nil, ErrNoSpare // asked after every confined command: nothing made first
	}
	l, err := Prepare(p, []string{spareArg})
	if err != nil {
		return nil, err
	}
	l.sys.argv = nil
	if l.sys.ctl, l.sys.ctlTheirs, err = handoffPair(); err != nil {
		l.Abort()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	return l, nil
}

func handoffPair() (helper, child *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("handoff socket pair: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "sandbox-handoff"), os.NewFile(uintptr(fds[1]), "sandbox-handoff"), nil
}

// Hand gives the spare its command. The spare makes ready to start it,
// then waits for Go: the caller checks meanwhile that the spare still
// holds (its footprint), while the spare wakes. An error means the spare
// has not got the command: the caller ends it and starts the command
// another way.
func (l *Launch) Hand(h platform.Handoff) error {
	s := &l.sys
	if s.ctl == nil {
		return errors.New("sandbox: not a spare")
	}
	msg, _ := json.Marshal(handoffMsg{Argv: h.Argv, Env: h.Env, Dir: h.Dir, Ctty: h.Ctty}) // strings and a bool
	if len(msg) > maxHandoff {
		return errors.New("sandbox: the command is too long for a spare")
	}
	var fds []int
	for _, f := range h.Stdio {
		if f == nil {
			return errors.New("sandbox: a spare needs all three standard files")
		}
		fds = append(fds, int(f.Fd()))
	}
	err := unix.Sendmsg(int(s.ctl.Fd()), msg, unix.UnixRights(fds...), nil, 0)
	runtime.KeepAlive(h.Stdio)
	if err != nil {
		return fmt.Errorf("sandbox: handing the command to its spare: %w", err)
	}
	return nil
}

// Go has the spare start the command it was handed and returns the pid
// to wait for. The spare starts it as the helper's own child
// (CLONE_PARENT), in its namespaces, Landlock domain and seccomp filter,
// and stays beside it as its watchdog (see serveSpare); it answers with
// its own pid only if it could not start the command, and then it says
// why on the command's standard error and exits 126, as a fresh
// trampoline would. After an error the command may have started: the
// caller ends the spare's whole cgroup, and fails the start.
func (l *Launch) Go() (int, error) {
	s := &l.sys
	if _, err := s.ctl.Write([]byte{goByte}); err != nil {
		return 0, fmt.Errorf("sandbox: starting the command on its spare: %w", err)
	}
	pid, err := readPid(s.ctl)
	if err != nil {
		return 0, fmt.Errorf("sandbox: the spare gave no pid for its command: %w", err)
	}
	return pid, nil
}

// goByte is Go's message.
const goByte = 'y'

// readPid reads the pid a spare answers its handoff with, within
// handoffWait: a spare that neither answers nor goes is never waited on
// for ever. A read with a timeout is not restarted after a signal (the
// runtime's own come often): it is read again for the time left.
func readPid(ctl *os.File) (int, error) {
	buf, fd := make([]byte, 16), int(ctl.Fd())
	var n int
	var err error = unix.EINTR
	for deadline := time.Now().Add(handoffWait); err == unix.EINTR; {
		tv := unix.NsecToTimeval(max(time.Until(deadline), time.Millisecond).Nanoseconds())
		if err = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
			return 0, err
		}
		n, err = unix.Read(fd, buf)
		if err == unix.EINTR && time.Now().After(deadline) {
			err = unix.EAGAIN
		}
	}
	runtime.KeepAlive(ctl)
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(string(buf[:max(n, 0)]))
	if err != nil || pid <= 0 {
		return 0, errors.New("no pid in its answer")
	}
	return pid, nil
}

// handoffWait bounds the wait for a spare's answer: the start of one
// process, unless the machine has stopped.
const handoffWait = 10 * time.Second

// Retire ends a spare that started a command, once the command has ended
// (the caller kills the spare first: the end of its socket alone would
// have it end the command's group as if the helper had gone).
func (l *Launch) Retire() {
	if l.sys.ctl != nil {
		l.sys.ctl.Close()
	}
}

// serveSpare is the trampoline as a spare: confined first, then the
// command when it comes. The command is forked, not executed in the
// spare's place: a child made by vfork executes without tearing down the
// spare's Go runtime first, which made up most of a spare's start. Made
// with CLONE_PARENT, it is the helper's child, waited for by the helper,
// with the pid the helper reports. A confinement that failed is told on
// the command's standard error, where a fresh trampoline would have told
// it, and the spare, which then stands for the command, exits 126.
func serveSpare(w wire) int {
	unix.CloseOnExec(w.CtlFD)
	err := confine(w)
	h, fds, rerr := receiveHandoff(w.CtlFD)
	if rerr != nil {
		return 126 // the helper ended the spare, or went: nothing to run
	}
	var path string
	if err == nil {
		path, err = h.ready()
	}
	if !awaitGo(w.CtlFD) {
		return 126 // the spare is out of date: the helper starts the command another way
	}
	if err == nil {
		var child spareChild
		if child, err = h.start(path, fds); err == nil {
			closeAll(fds)
			unix.Write(w.CtlFD, []byte(strconv.Itoa(child.pid)))
			return child.watch(w.CtlFD)
		}
	}
	if perr := placeStdio(fds); perr == nil {
		fmt.Fprintf(os.Stderr, "termhelper: the sandbox could not be set up, the command did not run: %s\n", oneLine(err))
	}
	unix.Write(w.CtlFD, []byte(strconv.Itoa(os.Getpid())))
	return 126
}

// awaitGo waits for the helper's Go.
func awaitGo(ctl int) bool {
	buf := make([]byte, 1)
	for {
		n, err := unix.Read(ctl, buf)
		if err != unix.EINTR {
			return err == nil && n == 1 && buf[0] == goByte
		}
	}
}

// receiveHandoff waits for the command. Its files arrive close-on-exec.
func receiveHandoff(fd int) (handoffMsg, []int, error) {
	var h handoffMsg
	buf, oob := make([]byte, maxHandoff+1), make([]byte, unix.CmsgSpace(3*4))
	n, oobn, flags, _, err := unix.Recvmsg(fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return h, nil, err
	}
	fds, perr := passedFDs(oob[:oobn])
	if perr != nil || len(fds) != 3 || n == 0 || flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0 {
		closeAll(fds)
		return h, nil, errors.New("the helper sent no command")
	}
	if err := json.Unmarshal(buf[:n], &h); err != nil || len(h.Argv) == 0 {
		closeAll(fds)
		return h, nil, errors.New("the helper sent no command")
	}
	return h, fds, nil
}

// spareChild is the command a spare started: its pid, and a pidfd that
// names it even once the pid could be another's.
type spareChild struct{ pid, pidfd int }

// ready enters the command's folder and environment, and finds its
// program, before the helper says Go.
func (h handoffMsg) ready() (string, error) {
	if err := h.enter(); err != nil {
		return "", err
	}
	return exec.LookPath(h.Argv[0])
}

// start forks the command at path with files as its standard ones, in a
// session of its own that takes the terminal when there is one, as a
// fresh trampoline's exec.Cmd made it. The spare gives up its
// parent-death signal first: from now on it watches for the helper's end
// itself, for the command, which as the helper's child cannot have one
// of its own.
func (h handoffMsg) start(path string, files []int) (spareChild, error) {
	parent := unix.Getppid()
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, 0, 0, 0, 0); err != nil {
		return spareChild{}, fmt.Errorf("watching for the helper: %w", err)
	}
	if unix.Getppid() != parent {
		return spareChild{}, errors.New("the helper has gone")
	}
	c := spareChild{pidfd: -1}
	attr := &syscall.ProcAttr{Env: restoreLoader(os.Environ(), nil), Files: []uintptr{uintptr(files[0]), uintptr(files[1]), uintptr(files[2])},
		Sys: &syscall.SysProcAttr{Setsid: true, Setctty: h.Ctty, Ctty: 0, Cloneflags: unix.CLONE_PARENT, PidFD: &c.pidfd}}
	var err error
	if c.pid, err = syscall.ForkExec(path, h.Argv, attr); err != nil {
		return spareChild{}, err
	}
	return c, nil
}

// watch waits on the spare's socket for as long as the command may run.
// The helper kills the spare once the command has ended; anything else
// that wakes it (the socket's end: the helper has gone without ending
// it) ends the command's session, as a parent-death signal would have.
func (c spareChild) watch(ctl int) int {
	buf := make([]byte, 1)
	for {
		if _, err := unix.Read(ctl, buf); err != unix.EINTR {
			break
		}
	}
	if unix.PidfdSendSignal(c.pidfd, unix.SIGKILL, nil, 0) == nil {
		unix.Kill(-c.pid, unix.SIGKILL) // its group too, while its pid is still its own
	}
	return 0
}

// placeStdio makes fds the standard input, output and error.
func placeStdio(fds []int) error {
	for i, fd := range fds {
		if err := unix.Dup3(fd, i, 0); err != nil {
			return fmt.Errorf("placing the command's files: %w", err)
		}
	}
	return nil
}

// enter takes the command's folder and its environment, which start
// passes on. A variable given twice keeps its last value, once, as
// os/exec leaves it for a fresh trampoline.
func (h handoffMsg) enter() error {
	if err := unix.Chdir(h.Dir); err != nil {
		return fmt.Errorf("entering %s: %w", h.Dir, err)
	}
	os.Clearenv()
	for _, kv := range h.Env {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			if err := os.Setenv(k, v); err != nil {
				return fmt.Errorf("the command's environment: %w", err)
			}
		}
	}
	return nil
}

// A Footprint is what confining by a plan depends on besides the plan
// itself: what lies at each of its paths. A spare confines a command as a
// fresh trampoline would only while the footprint it was started with
// holds: a secret place made since, a protected file replaced, a cache
// that appeared, the root moved.
type Footprint struct {
	there []pathAt   // each path there (device, inode and type) or missing for another reason
	gone  []goneFrom // the paths missing, by the nearest folder above them that is there
}

// pathAt is what lay at a path.
type pathAt struct{ path, state string }

// goneFrom are missing paths and the nearest folder above them that is
// there, with its change time: while no entry of that folder was made,
// removed or renamed, they are still missing, without a look at each
// (most of a plan's secret places are missing, under a few folders).
type goneFrom struct {
	dir   pathAt
	paths []string
}

// FootprintOf reads p's footprint: its root, temporary folder and lists,
// and the parent of each folder protect makes if its parent is there.
func FootprintOf(p Plan) Footprint {
	fl := filing{groups: map[string]int{}, nearest: map[string]string{}, missing: map[string]bool{}}
	for _, list := range [][]string{{p.Root, p.TempDir}, p.Writable, p.Protect, p.Hide} {
		for _, path := range list {
			fl.add(path)
			if strings.HasSuffix(path, "/") {
				fl.add(filepath.Dir(filepath.Clean(path)))
			}
		}
	}
	return fl.f
}

// filing is a footprint being read, with what it learnt on the way.
type filing struct {
	f       Footprint
	groups  map[string]int    // a folder → its index in f.gone
	nearest map[string]string // a missing path's parent → nearestThere
	missing map[string]bool   // a step below a group's folder, seen missing after the folder was read
}

func (fl *filing) add(path string) {
	state, missing := footprintState(path, false)
	if missing && fl.addGone(filepath.Clean(path)) {
		return
	}
	fl.f.there = append(fl.f.there, pathAt{path, state})
}

// addGone files a missing path under the nearest folder above it that
// is there, once the first step below that folder is seen missing after
// the folder was read: anything made there since has changed the folder.
func (fl *filing) addGone(path string) bool {
	parent := filepath.Dir(path)
	dir, ok := fl.nearest[parent]
	if !ok {
		dir = nearestThere(path)
		fl.nearest[parent] = dir
	}
	if dir == "" {
		return false
	}
	i, ok := fl.groups[dir]
	if !ok {
		i = fl.group(dir)
	} else if parent == dir && i >= 0 {
		fl.missing[path] = true // seen missing just now, the folder read before
	}
	rel, err := filepath.Rel(dir, path)
	first, _, _ := strings.Cut(rel, "/")
	step := filepath.Join(dir, first)
	if i < 0 || err != nil {
		return false
	}
	if !fl.missing[step] {
		// Not there, not even as a link: a link whose target is missing
		// would let the path appear without a change to the folder.
		if err := unix.Lstat(step, new(unix.Stat_t)); err != unix.ENOENT {
			return false
		}
		fl.missing[step] = true
	}
	fl.f.gone[i].paths = append(fl.f.gone[i].paths, path)
	return true
}

// group starts filing missing paths under dir, and returns its index in
// f.gone; -1 where dir cannot hold them: gone meanwhile, or changed within
// racyWindow, when its next change could keep its change time (a file
// system's clock moves in ticks, or seconds).
func (fl *filing) group(dir string) int {
	fl.groups[dir] = -1
	var st unix.Stat_t
	if unix.Stat(dir, &st) != nil || time.Since(time.Unix(st.Ctim.Unix())) < racyWindow {
		return -1
	}
	i := len(fl.f.gone)
	fl.groups[dir] = i
	fl.f.gone = append(fl.f.gone, goneFrom{dir: pathAt{dir, stateOf(&st, true)}})
	return i
}

// Holds tells whether every path lies as it did.
func (f Footprint) Holds() bool {
	for _, at := range f.there {
		if state, _ := footprintState(at.path, false); state != at.state {
			return false
		}
	}
	for _, g := range f.gone {
		if state, _ := footprintState(g.dir.path, true); state == g.dir.state {
			continue
		}
		for _, path := range g.paths {
			if _, missing := footprintState(path, false); !missing {
				return false
			}
		}
	}
	return true
}

// footprintState is what lies at path: its device, inode and type, with
// its change time too for a folder's entries; or the error. missing: no
// such file.
func footprintState(path string, entries bool) (state string, missing bool) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		errno, _ := err.(unix.Errno)
		return "!" + strconv.Itoa(int(errno)), errno == unix.ENOENT
	}
	return stateOf(&st, entries), false
}

// stateOf is footprintState's, from a stat.
func stateOf(st *unix.Stat_t, entries bool) string {
	b := strconv.AppendUint(nil, st.Dev, 16)
	b = strconv.AppendUint(append(b, ':'), st.Ino, 16)
	b = strconv.AppendUint(append(b, ':'), uint64(st.Mode&unix.S_IFMT), 8)
	if entries {
		b = strconv.AppendInt(append(b, ':'), st.Ctim.Nano(), 10)
	}
	return string(b)
}

// nearestThere is the nearest folder above a missing path that is there,
// or "" where one above is missing for another reason (not a folder, not
// to be looked into).
func nearestThere(path string) string {
	for dir := filepath.Dir(filepath.Clean(path)); ; dir = filepath.Dir(dir) {
		var st unix.Stat_t
		err := unix.Stat(dir, &st)
		switch {
		case err == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR:
			return dir
		case err != unix.ENOENT || dir == filepath.Dir(dir):
			return ""
		}
	}
}
