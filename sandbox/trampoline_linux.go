package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// wire is what the helper hands the trampoline: the plan, and what the
// trampoline cannot tell by itself.
type wire struct {
	Plan
	Namespaces bool    // cloned into a mount namespace of its own
	NSFlags    uintptr // the namespaces it was cloned into
	HelperNS   uint64  // the helper's mount namespace, which must not be touched
	NetFD      int     // the socket to send the network filter's listener on; 0: none
	CtlFD      int     // a spare's or a holder's socket to the helper; 0: neither
	// Loader: the command's variables for the dynamic loader, kept out of
	// the trampoline's own environment (loaderVar).
	Loader []string `json:",omitempty"`
	// PidsCgroup is a v1 pids cgroup to join first: the tree's process
	// cap where cgroup v2 has none (JoinCgroup).
	PidsCgroup string `json:",omitempty"`
}

// Serve is the trampoline, `termhelper __sandbox PLAN -- ARGV...`: it
// confines itself as the plan says and executes argv in its place, or,
// if any step fails, runs nothing, says why in one line on its stderr
// (the command's terminal) and returns 126.
func Serve(args []string) int {
	// Capabilities, no_new_privs, Landlock and seccomp are per thread;
	// the thread that sets them is the one that executes the command.
	runtime.LockOSThread()
	if len(args) == 1 && args[0] == probeArg {
		return probeChild()
	}
	w, argv, err := parseArgs(args)
	if err == nil && argv == nil && args[1] == holderArg {
		return serveHolder(w)
	}
	if err == nil && argv == nil {
		return serveSpare(w)
	}
	if err == nil {
		err = confine(w)
	}
	if err == nil {
		err = execute(argv, w.Loader)
	}
	fmt.Fprintf(os.Stderr, "termhelper: the sandbox could not be set up, the command did not run: %s\n", oneLine(err))
	return 126
}

// parseArgs reads the plan and the command; a spare (PLAN --spare, with
// the socket to wait on) has no command yet, nor a holder (PLAN
// --holder): argv is nil.
func parseArgs(args []string) (wire, []string, error) {
	var w wire
	spare := len(args) == 2 && (args[1] == spareArg || args[1] == holderArg)
	if !spare && (len(args) < 3 || args[1] != "--") {
		return w, nil, errors.New("usage: termhelper " + Command + " PLAN -- COMMAND [ARG]")
	}
	if err := json.Unmarshal([]byte(args[0]), &w); err != nil {
		return w, nil, fmt.Errorf("reading the plan: %w", err)
	}
	if err := w.check(); err != nil {
		return w, nil, err
	}
	if spare != (w.CtlFD > 0) {
		return w, nil, errors.New("a spare needs its socket, and only a spare has one")
	}
	if spare {
		return w, nil, nil
	}
	return w, args[2:], nil
}

// confine applies the plan to this process, in the design's order:
// mounts (while the namespace's capability is still there), capabilities
// and no_new_privs, Landlock, then the network filter.
func confine(w wire) error {
	if w.NetFD > 0 {
		unix.CloseOnExec(w.NetFD) // the command must never hold it
	}
	if w.Mode == Off {
		return nil
	}
	if err := limitSelf(w); err != nil {
		return err
	}
	writable, err := writablePlaces(w.Plan)
	if err != nil {
		return err
	}
	if w.Namespaces {
		if err := mountAndReenter(w, writable); err != nil {
			return err
		}
	}
	if err := dropCaps(); err != nil {
		return err
	}
	abi, err := ll.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		return errors.New("this kernel has no Landlock")
	}
	if err := restrictFiles(w.Plan, writable, abi, w.Namespaces); err != nil {
		return err
	}
	return filterAndSend(w)
}

// mountAndReenter makes the plan's mounts, then enters the folder it
// started in once more by its path: a folder under a place the mounts
// hide or make read-only is seen as they left it, not as it was.
func mountAndReenter(w wire, writable []string) error {
	if ns := mountNamespace(); ns == 0 || ns == w.HelperNS {
		return errors.New("the trampoline is not in a mount namespace of its own")
	}
	// The kernel's answer, not os.Getwd's: that takes $PWD, the
	// command's to set, wherever it names the same folder (as
	// /proc/self/cwd would, after the mounts too).
	dir, err := unix.Getwd()
	if err != nil {
		return fmt.Errorf("reading the command's folder: %w", err)
	}
	if err := mountPlan(w.Plan, writable); err != nil {
		return err
	}
	if err := unix.Chdir(dir); err != nil {
		return fmt.Errorf("entering the command's folder %s: %w", dir, err)
	}
	return nil
}

// writablePlaces are the real paths the command may write, as the mode
// says. The root and the temporary folder must be there; a missing cache
// or configured folder is skipped.
func writablePlaces(p Plan) ([]string, error) {
	required := []string{p.TempDir}
	var optional []string
	if p.Mode == WorkspaceWrite {
		required = append(required, p.Root)
		optional = p.Writable
	}
	var out []string
	for _, path := range required {
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return nil, fmt.Errorf("a writable folder is missing: %w", err)
		}
		out = append(out, real)
	}
	for _, path := range optional {
		if real, err := realPath(path); err == nil {
			out = append(out, real)
		}
	}
	return out, nil
}

// netFilter is filterNetwork; the tests put a stand-in there.
var netFilter = filterNetwork

// filterAndSend installs the network filter and hands its listener to
// the helper before the command can connect; where the network is open,
// the keyrings' filter alone.
func filterAndSend(w wire) error {
	if w.Network == NetworkOpen {
		return filterKeyrings()
	}
	if w.NetFD <= 0 {
		return errors.New("the network is to be filtered but the helper gave no socket for it")
	}
	listener, err := netFilter(w.Network)
	if err != nil {
		return fmt.Errorf("filtering the network: %w", err)
	}
	defer unix.Close(listener)
	conn := os.NewFile(uintptr(w.NetFD), "sandbox-listener")
	defer conn.Close()
	if err := sendListener(conn, listener); err != nil {
		return fmt.Errorf("handing the network filter to the helper: %w", err)
	}
	return nil
}

// execute replaces the trampoline with argv: same pid, session, terminal.
func execute(argv, loader []string) error {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	return unix.Exec(path, argv, restoreLoader(os.Environ(), loader))
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
