package engine

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/egress"
	"github.com/termhelper/termhelper/policy"
	"github.com/termhelper/termhelper/sandbox"
)

// Sandbox is how an engine confines its commands (Options.Sandbox). The
// zero Sandbox confines nothing: every command runs as with mode off.
type Sandbox struct {
	// Status is the sandbox in force for the config's mode and network,
	// as sandbox.Probe measured it; it may wait for a probe started at
	// start-up. Nil: no sandbox.
	Status func() sandbox.Status
	// TempDir is the helper's temporary folder: TMPDIR of every confined
	// command, and writable to it.
	TempDir string
	// Proxy is the egress proxy of network "proxy": each confined session
	// gets a listener of its own. Nil: the network is not proxied.
	Proxy *egress.Proxy
	// Asked is the mode the config (or ModeEnv) asks for: Status says
	// what of it this machine gives. "" is the config's own.
	Asked sandbox.Mode
	// Limits names the caps on a confined command that hold here; it
	// waits for the probe. Nil: none.
	Limits func() []string
}

// ModeEnv names the variable that sets the sandbox mode where the config
// leaves the default (workspace-write): "off" runs every command as
// before the sandbox, "read-only" narrows it.
const ModeEnv = "TERMHELPER_SANDBOX"

// HostsFolder is the folder, in the user's termhelper config folder, that
// keeps the hosts a person allowed with "always", per root, beside the
// commands' allow store.
const HostsFolder = "network"

// OpenSandbox sets up the sandbox the config asks for, for root: the
// probe runs on a goroutine of its own (Status waits for it), the
// temporary folder is made, and with network "proxy" the egress proxy is
// built (it opens no socket until a command runs). close ends the proxy
// and removes the temporary folder. A Go host embedding the engine must
// also dispatch sandbox.Command in its own main: the trampoline is the
// running executable.
func OpenSandbox(cfg config.Config, root string, log *slog.Logger) (s Sandbox, close func(), err error) {
	mode, net, err := configured(cfg)
	if err != nil {
		return Sandbox{}, nil, err
	}
	s.Status, s.Asked = probe(mode, net, cfg.Limits), mode
	s.Limits = sync.OnceValue(func() []string { s.Status(); return limitsHeld(cfg.Limits, sandbox.MeasuredCaps()) })
	if cfg.Sandbox.Mode == config.SandboxContainer {
		s.Status = containerStatus
	}
	if mode == sandbox.Off {
		return s, func() {}, nil
	}
	dir, remove, err := sandbox.MakeTempDir()
	if err != nil {
		return Sandbox{}, nil, fmt.Errorf("the sandbox's temporary folder: %w", err)
	}
	s.TempDir = dir
	if err := claimTempDir(dir); err != nil {
		log.Info("the temporary folder has no owner file: if this helper is killed, it stays", "err", err)
	}
	if net == sandbox.NetworkProxy {
		if s.Proxy, err = newProxy(cfg, root, log); err != nil {
			remove()
			return Sandbox{}, nil, err
		}
	}
	return s, func() {
		if s.Proxy != nil {
			s.Proxy.Close()
		}
		remove()
	}, nil
}

// configured is the mode and network the config asks for, the mode
// variable standing for the default.
func configured(cfg config.Config) (sandbox.Mode, sandbox.Network, error) {
	m := cfg.Sandbox.Mode
	if v := os.Getenv(ModeEnv); v != "" && m == config.SandboxWorkspaceWrite {
		m = v
	}
	if m == config.SandboxContainer {
		m = string(sandbox.Off) // the container is the sandbox
	}
	mode, err := sandbox.ParseMode(m)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", ModeEnv, err)
	}
	net, err := sandbox.ParseNetwork(cfg.Sandbox.Network)
	return mode, net, err
}

// probe measures on a goroutine of its own and returns the wait for it:
// the first Probe starts a short child, which must not delay the start.
func probe(mode sandbox.Mode, net sandbox.Network, l config.Limits) func() sandbox.Status {
	ch := make(chan sandbox.Status, 1)
	go func() { ch <- withLimitGaps(sandbox.Probe(mode, net), l, sandbox.MeasuredCaps) }()
	return sync.OnceValue(func() sandbox.Status { return <-ch })
}

// newProxy builds the egress proxy: the default hosts and the config's,
// and the hosts remembered for root.
func newProxy(cfg config.Config, root string, log *slog.Logger) (*egress.Proxy, error) {
	o := egress.Options{Allow: slices.Concat(egress.DefaultAllow(), cfg.Sandbox.NetworkAllow),
		Deny: cfg.Sandbox.NetworkDeny, Log: log}
	if st, err := hostsStore(root); err == nil {
		o.Remembered, o.Remember = st.Names, st.Add
	} else {
		log.Warn("hosts allowed with always will not persist", "err", err)
	}
	return egress.New(o)
}

func hostsStore(root string) (*policy.Store, error) {
	dir, err := config.UserDir()
	if err != nil {
		return nil, err
	}
	return policy.OpenStore(filepath.Join(dir, HostsFolder), root)
}

// Sandbox is the sandbox in force for the config's mode: what initialize
// reports. It may wait for the probe started at start-up.
func (e *Engine) Sandbox() sandbox.Status {
	if e.opts.Sandbox.Status == nil {
		return sandbox.Status{Mode: sandbox.Off, Backend: "none", Network: sandbox.NetworkOpen}
	}
	return e.opts.Sandbox.Status()
}

// asked is the mode the config asks for.
func (e *Engine) asked() sandbox.Mode {
	if m := e.opts.Sandbox.Asked; m != "" {
		return m
	}
	return sandbox.Mode(e.opts.Config.Sandbox.Mode)
}

// SandboxShortfall is why commands are less confined here than the config
// asks, in sentences a person can act on; "" when they are as asked, or
// when the config asks for no sandbox.
func (e *Engine) SandboxShortfall() string {
	if e.asked() == sandbox.Off {
		return ""
	}
	return e.Sandbox().Reason
}

// ErrSandboxRequired is a command refused because the config requires the
// sandbox and this machine cannot give it; the SandboxError says why.
var ErrSandboxRequired = errors.New("the sandbox is required by the config but not available here")

// SandboxError is ErrSandboxRequired with the probe's reason.
type SandboxError struct{ Reason string }

func (e *SandboxError) Error() string { return ErrSandboxRequired.Error() + ": " + e.Reason }

func (e *SandboxError) Unwrap() error { return ErrSandboxRequired }

// resolvePaths makes the config's paths absolute: "~/" is home, a
// relative path is under the root.
func resolvePaths(paths []string, root, home string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		switch {
		case p == "~" || strings.HasPrefix(p, "~/"):
			if home == "" {
				continue
			}
			p = filepath.Join(home, strings.TrimPrefix(p, "~"))
		case !filepath.IsAbs(p):
			p = filepath.Join(root, p)
		}
		out = append(out, filepath.Clean(p))
	}
	return out
}

// containerStatus is what initialize reports under sandbox = "container":
// the host runs the helper in a container it takes for the sandbox, so
// termhelper confines nothing itself and says so.
func containerStatus() sandbox.Status {
	return sandbox.Status{Mode: sandbox.Off, Backend: "container", Network: sandbox.NetworkOpen}
}
