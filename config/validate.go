package config

import (
	"github.com/termhelper/termhelper/egress"

	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// keyError is a bad value for a key; Parse fills in the file and line.
type keyError struct {
	file string
	line int
	key  string
	msg  string
}

func (e *keyError) Error() string {
	return fmt.Sprintf("%s:%d: %s: %s", e.file, e.line, e.key, e.msg)
}

func bad(key, format string, args ...any) error {
	return &keyError{key: key, msg: fmt.Sprintf(format, args...)}
}

// validate checks values the TOML types cannot express.
func validate(c Config) error {
	if err := validateShell(c.Shell); err != nil {
		return err
	}
	if c.Unattended != "allow" && c.Unattended != "deny" {
		return bad("unattended", "must be \"allow\" or \"deny\", not %q", c.Unattended)
	}
	if err := validateLimits(c.Limits); err != nil {
		return err
	}
	if c.MCPYieldMs != 0 && c.MCPYieldMs < 1000 {
		return bad("mcp_yield_ms", "must be 0 (wait for the end) or at least 1000, not %d", c.MCPYieldMs)
	}
	if c.HeartbeatMs != 0 && (c.HeartbeatMs < 100 || c.HeartbeatMs > 86400000) {
		return bad("heartbeat_ms", "must be 0 (none) or between 100 and 86400000, not %d", c.HeartbeatMs)
	}
	if c.Persist < 0 {
		return bad("persist", "must be a duration above zero such as \"10m\" or \"2h\"")
	}
	if err := validateSandbox(c.Sandbox); err != nil {
		return err
	}
	return validatePolicy(c.Policy)
}

func validateSandbox(s SandboxConfig) error {
	if !slices.Contains(sandboxModes, s.Mode) {
		return bad("sandbox", "must be %q, %q, %q or %q, not %q", SandboxWorkspaceWrite, SandboxReadOnly, SandboxOff, SandboxContainer, s.Mode)
	}
	if !slices.Contains(networkModes, s.Network) {
		return bad("network", "must be %q, %q or %q, not %q", NetworkProxy, NetworkOpen, NetworkOff, s.Network)
	}
	for key, hosts := range map[string][]string{"network_allow": s.NetworkAllow, "network_deny": s.NetworkDeny} {
		for _, h := range hosts {
			if err := egress.CheckPattern(h); err != nil {
				return bad(key, "%v", err)
			}
		}
	}
	for key, paths := range map[string][]string{"writable": s.Writable, "hide": s.Hide, "protect": s.Protect} {
		for _, p := range paths {
			if strings.TrimSpace(p) == "" || strings.ContainsRune(p, 0) {
				return bad(key, "empty entry")
			}
		}
	}
	return nil
}

// validateShell refuses relative paths: a project's own .termhelper.toml must
// not be able to name a program inside the project as the shell.
func validateShell(s string) error {
	switch s {
	case "", "cmd", "powershell", "pwsh":
		return nil
	}
	if !filepath.IsAbs(s) && !strings.HasPrefix(s, "/") {
		return bad("shell", "must be \"cmd\", \"powershell\", \"pwsh\" or an absolute path, not %q", s)
	}
	return nil
}

// minProcesses is the lowest process cap a config may set.
const minProcesses = 16

func validateLimits(l Limits) error {
	checks := []struct {
		key string
		v   int
		min int
	}{
		{"limits.timeout_ms", l.TimeoutMs, 0},
		{"limits.slow_timeout_ms", l.SlowTimeoutMs, 0},
		{"limits.background_yield_ms", l.BackgroundYieldMs, 0},
		{"limits.max_stream_chars", l.MaxStreamChars, 100},
		{"limits.max_line_chars", l.MaxLineChars, 10},
		{"limits.max_sessions", l.MaxSessions, 1},
		{"limits.temp_mib", l.TempMiB, 0},
	}
	for _, c := range checks {
		if c.v < c.min {
			return bad(c.key, "must be at least %d, not %d", c.min, c.v)
		}
	}
	// A shell, its pipeline and a subshell need a few; a cap below that
	// fails every command instead of bounding one.
	if l.MaxProcesses != 0 && l.MaxProcesses < minProcesses {
		return bad("limits.max_processes", "must be 0 (no cap) or at least %d, not %d", minProcesses, l.MaxProcesses)
	}
	return nil
}

// validatePolicy rejects empty entries.
func validatePolicy(p PolicyConfig) error {
	lists := []struct {
		key     string
		entries []string
	}{
		{"policy.allow", p.Allow},
		{"policy.deny", p.Deny},
		{"policy.protected_paths", p.ProtectedPaths},
		{"policy.lock_files", p.LockFiles},
		{"policy.slow_commands", p.SlowCommands},
	}
	for _, l := range lists {
		for _, e := range l.entries {
			if strings.TrimSpace(e) == "" {
				return bad(l.key, "empty entry")
			}
		}
	}
	return nil
}

// validateMaskEnv wants plain variable names: no blanks, no "=", and no
// "!" (the built-in rule is a pattern on names, not a list to remove
// from).
func validateMaskEnv(names *[]string) error {
	if names == nil {
		return nil
	}
	for _, n := range *names {
		if n == "" || strings.ContainsAny(n, "= \t\n!") {
			return bad("mask_env", "%q is not an environment variable name", n)
		}
	}
	return nil
}

// validateRemovals rejects "!" entries in lists where removing an entry
// would weaken protection (a config adds blocks and protections, never
// lifts them), and in lists that only extend a built-in list kept
// elsewhere.
func validateRemovals(fc fileConfig) error {
	lists := []struct {
		key     string
		entries []string
	}{
		{"policy.deny", fc.Policy.Deny},
		{"policy.protected_paths", fc.Policy.ProtectedPaths},
		{"policy.lock_files", fc.Policy.LockFiles},
		{"network_deny", fc.NetworkDeny},
		{"hide", fc.Hide},
		{"protect", fc.Protect},
		{"network_allow", fc.NetworkAllow},
		{"writable", fc.Writable},
	}
	for _, l := range lists {
		for _, e := range l.entries {
			if strings.HasPrefix(strings.TrimSpace(e), "!") {
				return bad(l.key, "%q: entries can be added, not removed", e)
			}
		}
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
