package config

import (
	"fmt"
	"slices"
	"strings"
)

// sandboxModes and networkModes run from the widest to the narrowest: a
// project's file may move along them only to the right.
var (
	sandboxModes = []string{SandboxContainer, SandboxOff, SandboxWorkspaceWrite, SandboxReadOnly}
	networkModes = []string{NetworkOpen, NetworkProxy, NetworkOff}
)

// ignored is a key of a project's file that was not applied because it
// would have widened what commands may do.
type ignored struct{ key, why string }

// warnings words the ignored keys for a person, in the file's order.
func warnings(igs []ignored, path string, data []byte) []string {
	slices.SortStableFunc(igs, func(a, b ignored) int { return keyLine(data, a.key) - keyLine(data, b.key) })
	out := make([]string, len(igs))
	for i, ig := range igs {
		out[i] = fmt.Sprintf("%s:%d: %s: ignored: %s", path, keyLine(data, ig.key), ig.key, ig.why)
	}
	return out
}

// userOnly is why a key is the user's alone.
const userOnly = "a project's " + FileName + " may only add blocks, protections and masked names; set it in the user's config"

// mergeProject applies a project's file over c where it narrows, and
// returns the keys it left out. Blocks, protections, masked names and the
// slow-command list are added; modes and limits are taken where they are
// narrower; the rest (the allow list, the shell, the login environment,
// the encoding, writable places and allowed hosts) is the user's.
func (fc fileConfig) mergeProject(c *Config) []ignored {
	var out []ignored
	note := func(key, why string) { out = append(out, ignored{key, why}) }
	fc.projectScalars(c, note)
	fc.projectLists(c, note)
	fc.projectLimits(c, note)
	return out
}

func (fc fileConfig) projectScalars(c *Config, note func(key, why string)) {
	userValue(fc.Shell, c.Shell, "shell", note)
	userValue(fc.LoginEnv, c.LoginEnv, "login_env", note)
	userValue(fc.HeartbeatMs, c.HeartbeatMs, "heartbeat_ms", note)
	userValue(fc.Encoding, c.Encoding, "encoding", note)
	if fc.Persist != nil {
		note("persist", userOnly)
	}
	if v := fc.Unattended; v != nil && *v != c.Unattended {
		if *v == "deny" {
			c.Unattended = *v
		} else {
			note("unattended", `only "deny" may be set by a project: "allow" would run what needs approval`)
		}
	}
	narrowMode(fc.Sandbox, &c.Sandbox.Mode, sandboxModes, "sandbox", note)
	narrowMode(fc.Network, &c.Sandbox.Network, networkModes, "network", note)
	if v := fc.SandboxRequired; v != nil && *v != c.Sandbox.Required {
		if *v {
			c.Sandbox.Required = true
		} else {
			note("sandbox_required", "a project may require the sandbox, not waive it")
		}
	}
}

// userValue notes a key that only the user may set, when the project's
// value differs from the one in force.
func userValue[T comparable](v *T, cur T, key string, note func(key, why string)) {
	if v != nil && *v != cur {
		note(key, userOnly)
	}
}

func narrowMode(v *string, cur *string, order []string, key string, note func(key, why string)) {
	if v == nil || *v == *cur {
		return
	}
	if slices.Index(order, *v) > slices.Index(order, *cur) {
		*cur = *v
		return
	}
	note(key, fmt.Sprintf("%q is wider than %q; a project may only narrow it", *v, *cur))
}

func (fc fileConfig) projectLists(c *Config, note func(key, why string)) {
	p, s := &c.Policy, &c.Sandbox
	p.Deny = mergeList(p.Deny, fc.Policy.Deny)
	p.ProtectedPaths = mergeList(p.ProtectedPaths, fc.Policy.ProtectedPaths)
	p.LockFiles = mergeList(p.LockFiles, fc.Policy.LockFiles)
	p.SlowCommands = mergeList(p.SlowCommands, fc.Policy.SlowCommands)
	s.NetworkDeny = mergeList(s.NetworkDeny, fc.NetworkDeny)
	s.Hide = mergeList(s.Hide, fc.Hide)
	s.Protect = mergeList(s.Protect, fc.Protect)
	var removals, additions []string
	for _, a := range fc.Policy.Allow {
		if strings.HasPrefix(strings.TrimSpace(a), "!") {
			removals = append(removals, a)
		} else if !slices.Contains(p.Allow, strings.TrimSpace(a)) {
			additions = append(additions, a)
		}
	}
	p.Allow = mergeList(p.Allow, removals)
	if len(additions) > 0 {
		note("policy.allow", fmt.Sprintf("%q would run without approval; %s", additions, userOnly))
	}
	if fc.MaskEnv != nil {
		if len(*fc.MaskEnv) == 0 {
			note("mask_env", "a project may add names to mask, not turn masking off")
		} else {
			c.MaskEnv = mergeList(c.MaskEnv, *fc.MaskEnv)
		}
	}
	notWider(fc.NetworkAllow, s.NetworkAllow, "network_allow", note)
	notWider(fc.Writable, s.Writable, "writable", note)
}

// notWider notes a list that only the user may extend, when the project
// adds to it.
func notWider(add, cur []string, key string, note func(key, why string)) {
	for _, a := range add {
		if !slices.Contains(cur, strings.TrimSpace(a)) {
			note(key, userOnly)
			return
		}
	}
}

// projectLimits takes a project's limit only where it is tighter. A zero
// lifetime or MCP yield means none at all: the widest.
func (fc fileConfig) projectLimits(c *Config, note func(key, why string)) {
	l, fl := &c.Limits, fc.Limits
	lower(fl.TimeoutMs, &l.TimeoutMs, true, "limits.timeout_ms", note)
	lower(fl.SlowTimeoutMs, &l.SlowTimeoutMs, true, "limits.slow_timeout_ms", note)
	lower(fl.BackgroundYieldMs, &l.BackgroundYieldMs, false, "limits.background_yield_ms", note)
	lower(fl.MaxStreamChars, &l.MaxStreamChars, false, "limits.max_stream_chars", note)
	lower(fl.MaxLineChars, &l.MaxLineChars, false, "limits.max_line_chars", note)
	lower(fl.MaxSessions, &l.MaxSessions, false, "limits.max_sessions", note)
	lower(fl.MaxProcesses, &l.MaxProcesses, true, "limits.max_processes", note)
	lower(fl.TempMiB, &l.TempMiB, true, "limits.temp_mib", note)
	lower(fc.MCPYieldMs, &c.MCPYieldMs, true, "mcp_yield_ms", note)
}

func lower(v *int, cur *int, zeroIsNone bool, key string, note func(key, why string)) {
	if v == nil || *v == *cur {
		return
	}
	tighter := *v < *cur
	if zeroIsNone {
		tighter = *v != 0 && (*cur == 0 || *v < *cur)
	}
	if tighter {
		*cur = *v
		return
	}
	note(key, fmt.Sprintf("%s would raise the %s in force; a project may only lower a limit", limitText(*v, zeroIsNone), limitText(*cur, zeroIsNone)))
}

func limitText(v int, zeroIsNone bool) string {
	if v == 0 && zeroIsNone {
		return "0 (none)"
	}
	return fmt.Sprint(v)
}

// clone copies c so that merging into the copy leaves c's lists alone.
func (c Config) clone() Config {
	c.MaskEnv = slices.Clone(c.MaskEnv)
	c.Sources = slices.Clone(c.Sources)
	c.Warnings = slices.Clone(c.Warnings)
	p := &c.Policy
	p.Allow, p.Deny = slices.Clone(p.Allow), slices.Clone(p.Deny)
	p.ProtectedPaths, p.LockFiles = slices.Clone(p.ProtectedPaths), slices.Clone(p.LockFiles)
	p.SlowCommands = slices.Clone(p.SlowCommands)
	s := &c.Sandbox
	s.NetworkAllow, s.NetworkDeny = slices.Clone(s.NetworkAllow), slices.Clone(s.NetworkDeny)
	s.Writable, s.Hide, s.Protect = slices.Clone(s.Writable), slices.Clone(s.Hide), slices.Clone(s.Protect)
	return c
}
