package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

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
