// Package sandbox confines the commands termhelper runs, so that what a
// command may do no longer depends on reading its command line right.
//
// What it confines: writes go only to the project root (in
// workspace-write mode), the helper's own temporary folder, the package
// managers' caches and the folders the config adds; the protected paths
// inside those (git's hooks and config, .termhelper.toml, the user's
// shell start-up files, the config's protect list) stay read-only, and
// the folders above them cannot be renamed to move them aside; the secret
// places (~/.ssh, cloud credentials, keyrings, browser profiles, the SSH
// agent's and container engines' sockets, the config's hide list) are
// empty or unreadable; other processes' environments cannot be read;
// nothing can be traced, mounted or made into a device, no capability is
// left, and signals and abstract sockets stay within the command's own
// processes, as do its terminals (a devpts instance of its own). Its
// tree's processes and its temporary folder's size are capped (Plan's
// MaxProcs and TempBytes: see limits_linux.go). On Linux the network is governed too: loopback only, the
// rest through the helper's egress proxy; a server the command starts
// answers this machine only. The dynamic loader's variables a request
// sets reach the command, never the trampoline, and termhelper's own
// install stays read-only where it lies in a writable cache.
//
// How: on Linux the helper starts, instead of the shell, its own
// executable as a trampoline (Command), in a new mount namespace (and a
// user namespace, for anyone but root) where those are allowed. The
// trampoline hides the secret places under empty read-only mounts, binds
// the protected paths read-only, drops every capability, sets
// no_new_privs, restricts itself with Landlock, installs the network
// filter and then executes the shell in its place: same pid, session,
// process group and terminal. A trampoline can also be started before its
// command is known (PrepareSpare): confined already, it is handed the
// command's argv, environment and files, and runs that one command. On macOS the command runs under
// sandbox-exec with a Seatbelt profile made for it. Nothing needs root,
// setuid or another program.
//
// What it cannot: without namespaces (AppArmor's restriction, some
// containers) the secret places are kept unreadable by Landlock alone,
// their names still show in a listing, the sockets stay reachable before
// Landlock ABI 9, and what is protected or hidden inside the root is
// guarded by the policy alone; without Landlock (Linux before 5.13) there
// is no sandbox and Probe says so. Windows has no sandbox yet. A write the
// sandbox stops is not reported by path on Linux (Landlock tells the
// process EACCES, not the helper); a refused connection is. The caches
// are shared with the user's own runs: a command could leave a poisoned
// entry there (another tool's npx or uvx install included, which an MCP
// host may run later unconfined), which is why the list is short and
// named, and the config's protect can take a folder of it back. Root keeps its
// power over files it does not own (rootKeeps). A file hidden or
// protected by a mount is hidden at its path only: another mount of the
// same files elsewhere shows them.
package sandbox

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"

	"github.com/termhelper/termhelper/platform"
)

// Mode is how much a confined command may write.
type Mode string

// The modes, from the narrowest.
const (
	// ReadOnly: writes nowhere but the temporary folder.
	ReadOnly Mode = "read-only"
	// WorkspaceWrite: writes under the root too, and the caches.
	WorkspaceWrite Mode = "workspace-write"
	// Off: no confinement; the policy alone guards.
	Off Mode = "off"
)

// Network is how a confined command may reach the network.
type Network string

// The network modes.
const (
	// NetworkProxy: loopback freely, the rest only through the helper's
	// egress proxy (a direct connection elsewhere fails in the kernel).
	NetworkProxy Network = "proxy"
	// NetworkOpen: the network is not governed.
	NetworkOpen Network = "open"
	// NetworkOff: loopback only.
	NetworkOff Network = "off"
)

// ParseMode accepts a mode's name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ReadOnly, WorkspaceWrite, Off:
		return m, nil
	}
	return "", fmt.Errorf("unknown sandbox mode %q: want workspace-write, read-only or off", s)
}

// ParseNetwork accepts a network mode's name.
func ParseNetwork(s string) (Network, error) {
	switch n := Network(s); n {
	case NetworkProxy, NetworkOpen, NetworkOff:
		return n, nil
	}
	return "", fmt.Errorf("unknown network mode %q: want proxy, open or off", s)
}

// rank orders the modes from the narrowest; an unknown mode ranks widest,
// so that it is never taken for a narrowing.
func (m Mode) rank() int {
	switch m {
	case ReadOnly:
		return 0
	case WorkspaceWrite:
		return 1
	}
	return 2
}

// Wider reports whether m lets a command do more than o: a request for a
// wider mode than the config's needs approval, a narrower one does not.
func (m Mode) Wider(o Mode) bool { return m.rank() > o.rank() }

// Status is what the sandbox can do on this machine, as Probe measured it:
// the mode and network in force, the mechanism, and, where what was asked
// for cannot be had, a sentence a person can act on ("" when everything
// asked for is in force).
type Status struct {
	Mode    Mode
	Backend string // "landlock+namespaces", "landlock", "seatbelt", "none"
	Network Network
	Reason  string
}

// Plan is one command's confinement, already resolved to absolute paths.
// Paths that do not exist are skipped, except that Prepare refuses a plan
// whose Root or TempDir is missing.
type Plan struct {
	Mode     Mode
	Network  Network
	Root     string   // writable in workspace-write
	TempDir  string   // always writable
	Writable []string // caches, the trash folder, config `writable`
	Protect  []string // read-only even inside writable places
	Neutral  []string // of Protect: files made, where missing, with what changes nothing (git's commondir)
	Hide     []string // secret places: empty or absent inside
	// MaxProcs caps the processes of the command's tree and TempBytes the
	// size of its temporary folder; 0 is no cap (see Limits).
	MaxProcs  int
	TempBytes int64

	// Log receives what the network supervisor has to say; nil discards.
	Log *slog.Logger `json:"-"`
}

// Same reports whether p and o confine alike (the logger aside).
func (p Plan) Same(o Plan) bool {
	return p.Mode == o.Mode && p.Network == o.Network && p.Root == o.Root && p.TempDir == o.TempDir &&
		slices.Equal(p.Writable, o.Writable) && slices.Equal(p.Protect, o.Protect) && slices.Equal(p.Neutral, o.Neutral) &&
		slices.Equal(p.Hide, o.Hide) && p.MaxProcs == o.MaxProcs && p.TempBytes == o.TempBytes
}

// Denial is something the sandbox stopped that can be named: the kind
// platform reports of a confined process, whose guard keeps them.
type Denial = platform.Denial

// Command is the first argument that makes termhelper act as the
// trampoline (Serve): main dispatches on it.
const Command = "__sandbox"

// ErrUnavailable is returned by Prepare where this machine cannot confine
// a command as the plan asks; Probe's reason says why.
var ErrUnavailable = errors.New("the sandbox is not available here")

// prepare checks what every platform's Prepare checks first, and says
// whether the plan confines nothing (mode off).
func (p Plan) prepare(argv []string) (off bool, err error) {
	if len(argv) == 0 {
		return false, errors.New("sandbox: empty argv")
	}
	if err := p.check(); err != nil {
		return false, err
	}
	return p.Mode == Off, nil
}

// check refuses a plan the trampoline could not apply faithfully.
func (p Plan) check() error {
	if _, err := ParseMode(string(p.Mode)); err != nil {
		return err
	}
	if _, err := ParseNetwork(string(p.Network)); err != nil {
		return err
	}
	if p.Mode == Off {
		return nil
	}
	if p.Mode == WorkspaceWrite && !filepath.IsAbs(p.Root) {
		return fmt.Errorf("sandbox plan: root %q is not an absolute path", p.Root)
	}
	for _, list := range [][]string{{p.TempDir}, p.Writable, p.Protect, p.Hide} {
		for _, path := range list {
			if !filepath.IsAbs(path) {
				return fmt.Errorf("sandbox plan: %q is not an absolute path", path)
			}
		}
	}
	return nil
}
