package sandbox

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/termhelper/termhelper/platform"
	"golang.org/x/sys/unix"
)

// Held namespaces: for the plan of the last confined command, the helper
// holds a mount namespace with the plan's mounts (and the user namespace
// it belongs to, where one is used), made once by a holder
// (trampoline_holder_linux.go). Each later command of that plan starts
// through the exec stub, which enters them: an execve of a small static
// program, where a trampoline starts a Go runtime. They are made again
// once the plan changes or its footprint no longer holds; until then,
// and where there is no stub or it failed here, commands start through
// a trampoline as before.

var held struct {
	sync.Mutex
	ns     *heldNS
	making bool
	made   chan struct{} // closed when the namespaces being made are
	off    bool
}

// heldProgram is the network filter the stub installs; tests put a
// stand-in there.
var heldProgram = func(prog string) string { return prog }

// heldSync, set by tests only, makes the namespaces a launch asks for
// before it is prepared, so that every launch of a test uses them.
var heldSync bool

// heldNS are namespaces held for plan, and the stub's steps in them.
type heldNS struct {
	plan      Plan
	flags     uintptr // the namespaces a trampoline is cloned into, which they were
	footprint Footprint
	mnt, user *os.File // user: nil where the plan's namespaces have none
	steps     []string // after entering, before the network filter
	prog      string   // the network filter, in hex, for the stub's s step

	refs    int // launches prepared with them and not yet started
	retired bool
}

// UseHeldNamespaces turns held namespaces on (the default where the
// build has a stub) or off, when every confined command starts through a
// trampoline or a spare (for tests of those, and to compare).
func UseHeldNamespaces(on bool) {
	held.Lock()
	held.off = !on || len(stubProgram) == 0
	old := held.ns
	held.ns = nil
	held.Unlock()
	old.release(true)
}

// heldOn reports whether namespaces are held or being made here, so that
// no spares are needed.
func heldOn() bool {
	held.Lock()
	defer held.Unlock()
	return !held.off && len(stubProgram) > 0
}

// heldFor returns the namespaces held for p, taken for one launch, or
// nil; then it has them made for p, for the next command.
func heldFor(p Plan) *heldNS {
	held.Lock()
	if ns := usableHeld(p); ns != nil || held.off || held.making || len(stubProgram) == 0 {
		held.Unlock()
		return ns
	}
	held.making, held.made = true, make(chan struct{})
	held.Unlock()
	if !heldSync {
		go makeHeld(p)
		return nil
	}
	makeHeld(p)
	held.Lock()
	defer held.Unlock()
	return usableHeld(p)
}

// heldForSpare is heldFor for a spare, made off any command's path: it
// waits for namespaces being made, for the spare that follows a plan's
// first command.
func heldForSpare(p Plan) *heldNS {
	if ns := heldFor(p); ns != nil {
		return ns
	}
	held.Lock()
	made := held.made
	making := held.making
	held.Unlock()
	if !making {
		return nil
	}
	select {
	case <-made:
	case <-time.After(handoffWait):
	}
	return heldFor(p)
}

// usableHeld takes the namespaces held if they are p's and still hold;
// held is locked.
func usableHeld(p Plan) *heldNS {
	ns := held.ns
	if held.off || ns == nil || !ns.plan.Same(p) || ns.flags != launchNamespaces(measured()) || !ns.footprint.Holds() {
		return nil
	}
	ns.refs++
	return ns
}

// errNoStub is newHeld's error where the stub cannot run here: held
// namespaces are turned off for this helper. Any other failure is the
// plan's (a holder that could not apply it), tried again for the next
// command.
var errNoStub = errors.New("the exec stub cannot run here")

// makeHeld makes namespaces for p and holds them in place of the ones
// held.
func makeHeld(p Plan) {
	ns, err := newHeld(p)
	held.Lock()
	held.making = false
	close(held.made)
	var old *heldNS
	switch {
	case err == nil && !held.off:
		held.ns, old = ns, held.ns
	case err == nil:
		old = ns
	case errors.Is(err, errNoStub):
		held.off = true
	}
	held.Unlock()
	old.release(true)
	if err != nil && p.Log != nil {
		p.Log.Warn("sandbox: this command's plan has no held namespaces: the next starts through a trampoline", "err", err)
	}
}

// release gives back a launch's hold (retire: the helper's own), and
// closes the namespaces once retired and no launch holds them.
func (ns *heldNS) release(retire bool) {
	if ns == nil {
		return
	}
	held.Lock()
	if retire {
		ns.retired = true
	} else {
		ns.refs--
	}
	done := ns.retired && ns.refs == 0
	held.Unlock()
	if done {
		ns.mnt.Close()
		if ns.user != nil {
			ns.user.Close()
		}
	}
}

// newHeld has a holder make p's namespaces, takes them and checks that
// the stub starts in them. The footprint is read before the holder
// starts: where it no longer holds once the holder is done (the neutral
// files a first holder makes, or a change that raced it), the namespaces
// are made once more.
func newHeld(p Plan) (*heldNS, error) {
	ns, err := tryHeld(p)
	if err == nil && !ns.footprint.Holds() {
		ns.release(true)
		ns, err = tryHeld(p)
	}
	return ns, err
}

func tryHeld(p Plan) (*heldNS, error) {
	if _, err := stubFile(); err != nil {
		return nil, fmt.Errorf("%w: %w", errNoStub, err)
	}
	m := measured()
	flags := launchNamespaces(m)
	if p.Mode == Off || flags == 0 || m.abi == 0 {
		return nil, errors.New("no namespaces or no Landlock here")
	}
	ns := &heldNS{plan: p, flags: flags, footprint: FootprintOf(p)}
	fds, err := runHolder(p, flags)
	if err != nil {
		return nil, err
	}
	ns.mnt = os.NewFile(uintptr(fds[0]), "held-mnt")
	if len(fds) > 1 {
		ns.user = os.NewFile(uintptr(fds[1]), "held-user")
	}
	if err := ns.prepare(flags, m.abi); err != nil {
		ns.release(true)
		return nil, err
	}
	if err := ns.probe(); err != nil {
		ns.release(true)
		return nil, err
	}
	return ns, nil
}

// runHolder starts a holder for p and returns its namespaces' descriptors.
func runHolder(p Plan, flags uintptr) ([]int, error) {
	ctl, theirs, err := handoffPair()
	if err != nil {
		return nil, err
	}
	defer ctl.Close()
	w := wire{Plan: p, Namespaces: true, NSFlags: flags, HelperNS: helperNS(), CtlFD: 3}
	plan, _ := json.Marshal(w)
	cmd := exec.Command("/proc/self/exe", "termhelper", Command, string(plan), holderArg)
	cmd.Args = cmd.Args[1:]
	cmd.Env, cmd.Dir, cmd.ExtraFiles = []string{"GOMAXPROCS=1"}, "/", []*os.File{theirs}
	if race := os.Getenv("GORACE"); race != "" { // a race-enabled test build's
		cmd.Env = append(cmd.Env, "GORACE="+race)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	applyNamespaces(cmd.SysProcAttr, flags)
	done := make(chan error, 1)
	go func() {
		// theirs is closed here alone: the holder may answer before
		// Start has returned, while Start still reads it.
		started := false
		err := platform.RunStarted(cmd, func() { theirs.Close(); started = true })
		if !started {
			theirs.Close()
		}
		done <- err
	}()
	fds, err := receiveHeld(ctl)
	ctl.Close() // the holder ends; RunStarted reaps it
	if err != nil {
		if werr := <-done; werr != nil {
			err = fmt.Errorf("%w (the holder: %v)", err, werr)
		}
	}
	return fds, err
}

// receiveHeld reads the holder's answer: 'y' and the namespaces, or 'n'
// and why not.
func receiveHeld(ctl *os.File) ([]int, error) {
	buf, oob := make([]byte, 4096), make([]byte, unix.CmsgSpace(2*4))
	tv := unix.NsecToTimeval(int64(handoffWait))
	unix.SetsockoptTimeval(int(ctl.Fd()), unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	var n, oobn int
	var err error = unix.EINTR
	for deadline := time.Now().Add(handoffWait); err == unix.EINTR && time.Now().Before(deadline); {
		n, oobn, _, _, err = unix.Recvmsg(int(ctl.Fd()), buf, oob, unix.MSG_CMSG_CLOEXEC)
	}
	if err != nil || n == 0 {
		return nil, fmt.Errorf("the holder gave no namespaces: %v", err)
	}
	fds, perr := passedFDs(oob[:oobn])
	if buf[0] != 'y' || perr != nil || len(fds) == 0 {
		closeAll(fds)
		return nil, fmt.Errorf("the holder could not make the namespaces: %s", bytes.TrimPrefix(buf[:n], []byte("n")))
	}
	return fds, nil
}

// prepare makes the stub's steps after entering: the confine of a fresh
// trampoline for what is the command's own (a user namespace where the
// held ones have one, ownMounts), then its restrictions, in its order.
func (ns *heldNS) prepare(flags uintptr, abi int) error {
	writable, err := writablePlaces(ns.plan)
	if err != nil {
		return err
	}
	var s []string
	if ns.user != nil {
		s = []string{"U", num(uint64(ownProcessCap(ns.plan)))}
	}
	s = append(s, "u", num(uint64(flags&^unix.CLONE_NEWUSER)))
	s = append(s, mountSteps(ownMounts(ns.plan, writable))...)
	s = append(s, "c", num(rootKeepSet()), strconv.Itoa(lastCap()))
	s = append(s, "l", num(handledFS(abi)), num(scopes(abi)), num(uint64(fileRights)))
	s = append(s, ruleSteps(append([]fileRule{readAllRule}, placeRules(ns.plan, writable)...))...)
	ns.steps = append(s, "L")
	program := networkProgram
	if ns.plan.Network == NetworkOpen {
		program = keyringProgram // no listener
	}
	prog, err := program()
	if err != nil {
		return err
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&prog[0])), len(prog)*int(unsafe.Sizeof(prog[0])))
	ns.prog = hex.EncodeToString(b)
	return nil
}

// probe runs the stub through every step, with a socket for the
// listener, and has it exit where it would execute a command: a stub
// that cannot start here is found before a command depends on it.
func (ns *heldNS) probe() error {
	cmd := &exec.Cmd{Dir: "/", Env: []string{}}
	var sock *os.File
	if ns.plan.Network != NetworkOpen {
		mine, theirs, err := listenerPair()
		if err != nil {
			return err
		}
		defer mine.Close()
		sock = theirs
	}
	ns.apply(cmd, "/", sock, "", ns.prog)
	cmd.Args = append(cmd.Args[:len(cmd.Args)-1], "x")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := platform.RunStarted(cmd, func() {
		if sock != nil {
			sock.Close()
		}
	})
	if err != nil {
		return fmt.Errorf("%w: %v: %s", errNoStub, err, bytes.TrimSpace(out.Bytes()))
	}
	return nil
}

// apply sets cmd to start the stub in the held namespaces, with dir as
// the command's folder, the listener's socket (nil: none) for the
// network filter prog, and a v1 pids cgroup to join first (""), and
// "--" last: the caller appends the command.
func (ns *heldNS) apply(cmd *exec.Cmd, dir string, sock *os.File, joinV1, prog string) {
	fd := func(f *os.File) string {
		cmd.ExtraFiles = append(cmd.ExtraFiles, f)
		return strconv.Itoa(2 + len(cmd.ExtraFiles))
	}
	args := []string{"termhelper-exec"}
	if joinV1 != "" {
		args = append(args, "j", joinV1+"/cgroup.procs")
	}
	user := "-"
	if ns.user != nil {
		user = fd(ns.user)
	}
	args = append(args, "n", user, fd(ns.mnt))
	args = append(args, ns.steps...)
	args = append(args, "d", dir) // after the mounts, as a trampoline
	if prog != "" {
		sockWord := "-" // the keyrings' filter alone, the network open
		if sock != nil {
			sockWord = fd(sock)
		}
		args = append(args, "s", sockWord, prog)
	}
	stub, _ := stubFile() // made before any namespaces were held
	cmd.Path, cmd.Args = "/proc/self/fd/"+strconv.Itoa(int(stub.Fd())), append(args, "--")
}

// stubFile is the stub in a sealed memory file of the helper's, executed
// by descriptor: no path a command could write leads to it.
var stubFile = sync.OnceValues(func() (*os.File, error) {
	fd, err := unix.MemfdCreate("termhelper-exec", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING|unix.MFD_EXEC)
	if errors.Is(err, unix.EINVAL) { // before Linux 6.3, memory files are executable
		fd, err = unix.MemfdCreate("termhelper-exec", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	}
	if err != nil {
		return nil, fmt.Errorf("a memory file for the exec stub: %w", err)
	}
	// Above the descriptors a child is given (and those its start moves
	// aside): the child executes /proc/self/fd/N after they are placed.
	high, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, stubFD)
	unix.Close(fd)
	if err != nil {
		return nil, fmt.Errorf("a descriptor for the exec stub: %w", err)
	}
	f := os.NewFile(uintptr(high), "termhelper-exec")
	if _, err := f.Write(stubProgram); err != nil {
		f.Close()
		return nil, fmt.Errorf("writing the exec stub: %w", err)
	}
	seals := unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, seals); err != nil {
		f.Close()
		return nil, fmt.Errorf("sealing the exec stub: %w", err)
	}
	return f, nil
})

// stubFD is the least descriptor the stub's memory file may have.
const stubFD = 100

func num(n uint64) string { return strconv.FormatUint(n, 10) }

// mountSteps are the stub's steps for ms.
func mountSteps(ms []ownMount) []string {
	var s []string
	for _, m := range ms {
		s = append(s, "m", m.src, m.dst, orDash(m.fstype), num(uint64(m.flags)), orDash(m.data))
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// ruleSteps are the stub's steps for rules.
func ruleSteps(rules []fileRule) []string {
	var s []string
	for _, r := range rules {
		required := "0"
		if r.required {
			required = "1"
		}
		s = append(s, "r", r.path, num(r.access), required, "0")
	}
	return s
}
