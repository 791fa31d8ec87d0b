package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// sandboxExec is where macOS keeps it; never looked up on PATH, where a
// project could plant its own.
const sandboxExec = "/usr/bin/sandbox-exec"

type sysLaunch struct {
	plain bool
	args  []string
}

type sysGuard struct{}

// Seatbelt reports nothing the helper could read back; refusals go to
// the system log.
func (sysGuard) denied() []Denial { return nil }
func (sysGuard) close()           {}

// Probe says what a command asked to run in mode with network gets here.
func Probe(mode Mode, net Network) Status {
	if mode == Off {
		st := Status{Mode: Off, Backend: "none", Network: NetworkOpen}
		if net != NetworkOpen {
			st.Reason = "With the sandbox off, commands reach the network directly."
		}
		return st
	}
	if _, err := os.Stat(sandboxExec); err != nil {
		return Status{Mode: Off, Backend: "none", Network: NetworkOpen,
			Reason: sandboxExec + " is missing: commands run unconfined and the policy asks as before."}
	}
	return Status{Mode: mode, Backend: "seatbelt", Network: net}
}

// Prepare returns how to run argv under sandbox-exec with a profile made
// for p, its paths made real first (Seatbelt matches real paths).
func Prepare(p Plan, argv []string) (*Launch, error) {
	off, err := p.prepare(argv)
	if err != nil || off {
		return plainLaunch(off), err
	}
	if _, err := os.Stat(sandboxExec); err != nil {
		return nil, fmt.Errorf("%w: %s is missing", ErrUnavailable, sandboxExec)
	}
	if err := printable(p); err != nil {
		return nil, err
	}
	profile := SeatbeltProfile(realPlan(p))
	args := append([]string{sandboxExec, "-p", profile, "--"}, argv...)
	return &Launch{sys: sysLaunch{args: args}}, nil
}

// printable refuses a path with a control character other than a
// newline, tab or carriage return: its quoting in a profile could not be
// checked on a Mac, and a secret place that did not match would be open.
func printable(p Plan) error {
	for _, list := range [][]string{{p.Root, p.TempDir}, p.Writable, p.Protect, p.Hide} {
		for _, path := range list {
			if strings.IndexFunc(path, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' && r != '\r' || r == 0x7f }) >= 0 {
				return fmt.Errorf("sandbox: the path %q has a control character", path)
			}
		}
	}
	return nil
}

// realPlan resolves every path that exists; a missing one stays as given
// (its parent resolved), since it may be made later.
func realPlan(p Plan) Plan {
	p.Root, p.TempDir = realPath(p.Root), realPath(p.TempDir)
	for _, list := range []*[]string{&p.Writable, &p.Protect, &p.Hide} {
		out := make([]string, 0, len(*list))
		for _, path := range *list {
			out = append(out, realPath(path))
		}
		*list = out
	}
	return p
}

func realPath(path string) string {
	if path == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	if r, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		return filepath.Join(r, filepath.Base(path))
	}
	return path
}

// Apply runs the command under sandbox-exec.
func (l *Launch) Apply(cmd *exec.Cmd) {
	if l == nil || l.sys.plain {
		return
	}
	cmd.Path, cmd.Args = sandboxExec, l.sys.args
}

// Started returns the process's guard: Seatbelt needs no serving.
func (l *Launch) Started() (*Guard, error) {
	if l == nil || l.sys.plain {
		return nil, nil
	}
	return &Guard{}, nil
}

// Abort has nothing to release here.
func (l *Launch) Abort() {}

// Serve has no trampoline to be on macOS: sandbox-exec is the runner.
func Serve(args []string) int {
	fmt.Fprintln(os.Stderr, "termhelper: the sandbox trampoline is for Linux; on macOS sandbox-exec runs the command")
	return 126
}
