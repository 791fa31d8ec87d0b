package config

import (
	"fmt"
	"path/filepath"
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
	return validatePolicy(c.Policy)
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
	}
	for _, c := range checks {
		if c.v < c.min {
			return bad(c.key, "must be at least %d, not %d", c.min, c.v)
		}
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
// from). A project's own config, which comes with a cloned repository,
// may not turn masking off: that belongs in the user's own config.
func validateMaskEnv(names *[]string, project bool) error {
	if names == nil {
		return nil
	}
	if project && len(*names) == 0 {
		return bad("mask_env", "a project's %s cannot turn masking off; set it in the user's config", FileName)
	}
	for _, n := range *names {
		if n == "" || strings.ContainsAny(n, "= \t\n!") {
			return bad("mask_env", "%q is not an environment variable name", n)
		}
	}
	return nil
}

// validateRemovals rejects "!" entries in lists where removing a built-in
// entry would weaken protection: a project's own .termhelper.toml (which
// comes with a cloned repository) may add blocks but never lift them.
func validateRemovals(p filePolicy) error {
	lists := []struct {
		key     string
		entries []string
	}{
		{"policy.deny", p.Deny},
		{"policy.protected_paths", p.ProtectedPaths},
		{"policy.lock_files", p.LockFiles},
	}
	for _, l := range lists {
		for _, e := range l.entries {
			if strings.HasPrefix(strings.TrimSpace(e), "!") {
				return bad(l.key, "%q: protections can be added, not removed", e)
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
