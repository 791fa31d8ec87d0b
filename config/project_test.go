package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// loadPair writes a user's config and a project's file and loads them as
// the helper does.
func loadPair(t *testing.T, user, project string) Config {
	t.Helper()
	dir, root := t.TempDir(), t.TempDir()
	t.Setenv("TERMHELPER_CONFIG_DIR", dir)
	writeFile(t, filepath.Join(dir, "config.toml"), user)
	writeFile(t, filepath.Join(root, FileName), project)
	cfg, err := Load("", root)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// A repository's own file cannot undo what the user's config says.
func TestProjectFileCannotLoosenUserConfig(t *testing.T) {
	cfg := loadPair(t, `
unattended = "deny"
mask_env = ["DATABASE_URL"]
[policy]
deny = ["git push"]
`, `mask_env = []
[policy]
allow = ["make", "!find"]
deny = ["terraform *"]
`)
	p := cfg.Policy
	if !slices.Contains(p.Deny, "git push") || !slices.Contains(p.Deny, "terraform *") {
		t.Errorf("deny = %v, want the user's and the project's blocks", p.Deny)
	}
	if cfg.Unattended != "deny" || !slices.Contains(cfg.MaskEnv, "DATABASE_URL") || cfg.MaskEnvOff {
		t.Errorf("unattended %q, mask_env %v (off %v): the user's settings must stand", cfg.Unattended, cfg.MaskEnv, cfg.MaskEnvOff)
	}
	if slices.Contains(p.Allow, "make") || slices.Contains(p.Allow, "find") {
		t.Errorf("allow = %v: a project may remove entries, never add them", p.Allow)
	}
	if len(cfg.Warnings) != 2 || !strings.Contains(cfg.Warnings[1], FileName+":3: policy.allow: ignored:") ||
		!strings.Contains(cfg.Warnings[1], `"make"`) || !strings.Contains(cfg.Warnings[0], FileName+":1: mask_env: ignored:") {
		t.Errorf("warnings = %q, want the allow key named with its line", cfg.Warnings)
	}
}

// Every key that would widen is ignored and named; those that narrow apply.
func TestProjectFileWideningKeysIgnored(t *testing.T) {
	cfg := loadPair(t, `
unattended = "deny"
sandbox = "read-only"
network = "off"
sandbox_required = true
mask_env = ["A_NAME"]
[limits]
timeout_ms = 1000
`, `shell = "/bin/bash"
login_env = false
unattended = "allow"
encoding = "cp1252"
mask_env = []
sandbox = "off"
sandbox_required = false
network = "open"
network_allow = ["evil.example"]
writable = ["/"]
mcp_yield_ms = 0
[limits]
timeout_ms = 0
max_sessions = 500
`)
	want := []string{"shell", "login_env", "unattended", "encoding", "mask_env", "sandbox", "sandbox_required",
		"network", "network_allow", "writable", "mcp_yield_ms", "limits.timeout_ms", "limits.max_sessions"}
	for _, key := range want {
		if !slices.ContainsFunc(cfg.Warnings, func(w string) bool { return strings.Contains(w, ": "+key+": ignored: ") }) {
			t.Errorf("no warning for %s in %q", key, cfg.Warnings)
		}
	}
	if len(cfg.Warnings) != len(want) {
		t.Errorf("%d warnings, want %d: %q", len(cfg.Warnings), len(want), cfg.Warnings)
	}
	d := Default()
	s := cfg.Sandbox
	if cfg.Shell != d.Shell || !cfg.LoginEnv || cfg.Unattended != "deny" || cfg.Encoding != "" || cfg.MaskEnvOff {
		t.Errorf("scalars changed: %+v", cfg)
	}
	if s.Mode != SandboxReadOnly || s.Network != NetworkOff || !s.Required || len(s.NetworkAllow) != 0 || len(s.Writable) != 0 {
		t.Errorf("sandbox widened: %+v", s)
	}
	if cfg.Limits.TimeoutMs != 1000 || cfg.Limits.MaxSessions != 64 || cfg.MCPYieldMs != 45000 {
		t.Errorf("limits raised: %+v, mcp_yield_ms %d", cfg.Limits, cfg.MCPYieldMs)
	}
}

func TestProjectFileNarrows(t *testing.T) {
	cfg := loadPair(t, `mask_env = ["A_NAME"]`, `
unattended = "deny"
mask_env = ["B_NAME"]
sandbox = "read-only"
sandbox_required = true
network = "off"
network_deny = ["tracker.example"]
hide = ["~/.private"]
protect = ["deploy/"]
mcp_yield_ms = 20000
[limits]
timeout_ms = 30000
max_stream_chars = 8000
[policy]
protected_paths = ["secrets/"]
lock_files = ["my.lock"]
slow_commands = ["bazel build", "!npm install"]
`)
	if len(cfg.Warnings) != 0 {
		t.Errorf("warnings for narrowing keys: %q", cfg.Warnings)
	}
	s, p := cfg.Sandbox, cfg.Policy
	if cfg.Unattended != "deny" || !slices.Equal(cfg.MaskEnv, []string{"A_NAME", "B_NAME"}) {
		t.Errorf("unattended %q mask_env %v", cfg.Unattended, cfg.MaskEnv)
	}
	if s.Mode != SandboxReadOnly || !s.Required || s.Network != NetworkOff {
		t.Errorf("modes: %+v", s)
	}
	if !slices.Equal(s.NetworkDeny, []string{"tracker.example"}) || !slices.Equal(s.Hide, []string{"~/.private"}) || !slices.Equal(s.Protect, []string{"deploy/"}) {
		t.Errorf("lists: %+v", s)
	}
	if cfg.Limits.TimeoutMs != 30000 || cfg.Limits.MaxStreamChars != 8000 || cfg.MCPYieldMs != 20000 {
		t.Errorf("limits: %+v %d", cfg.Limits, cfg.MCPYieldMs)
	}
	if !slices.Contains(p.ProtectedPaths, "secrets/") || !slices.Contains(p.LockFiles, "my.lock") ||
		!cfg.IsSlow("bazel build //x") || cfg.IsSlow("npm install") {
		t.Errorf("policy: %+v", p)
	}
}

// A project's bad value is an error like the user's, and its removals of
// protections too.
func TestProjectFileBadValuesStop(t *testing.T) {
	dir, root := t.TempDir(), t.TempDir()
	t.Setenv("TERMHELPER_CONFIG_DIR", dir)
	for text, want := range map[string]string{
		"unattended = \"maybe\"\n":                  FileName + ":1: unattended: must be",
		"\nsandbox = \"loose\"\n":                   FileName + ":2: sandbox: must be",
		"[policy]\ndeny = [\"!sudo\"]\n":            FileName + ":2: policy.deny:",
		"hide = [\"!~/.ssh\"]\n":                    FileName + ":1: hide:",
		"network_deny = [\"https://x.com/\"]\n":     FileName + ":1: network_deny:",
		"network_allow = [\"git.example:99999\"]\n": FileName + ":1: network_allow: host pattern \"git.example:99999\": the port \"99999\" is not a number from 1 to 65535",
	} {
		writeFile(t, filepath.Join(root, FileName), text)
		if _, err := Load("", root); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", text, err, want)
		}
	}
}

func TestNewKeysInUserConfig(t *testing.T) {
	cfg, err := Parse("u.toml", []byte(`
sandbox = "off"
sandbox_required = true
network = "open"
network_allow = ["*.corp.example", "10.0.0.7", "git.corp.example:7999"]
network_deny = ["ads.example"]
writable = ["~/.cache/bazel"]
hide = ["~/.vault"]
protect = ["infra/"]
mcp_yield_ms = 0
`))
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Sandbox
	if s.Mode != SandboxOff || !s.Required || s.Network != NetworkOpen || cfg.MCPYieldMs != 0 ||
		len(s.NetworkAllow) != 3 || len(s.NetworkDeny) != 1 || len(s.Writable) != 1 || len(s.Hide) != 1 || len(s.Protect) != 1 {
		t.Errorf("%+v", cfg)
	}
	for text, want := range map[string]string{
		"network = \"vpn\"\n":         "u.toml:1: network: must be",
		"mcp_yield_ms = 10\n":         "u.toml:1: mcp_yield_ms: must be 0",
		"writable = [\"\"]\n":         "u.toml:1: writable: empty entry",
		"network_allow = [\"a b\"]\n": "u.toml:1: network_allow:",
		"sandbox_required = 1\n":      "u.toml:1: sandbox_required:",
	} {
		if _, err := Parse("u.toml", []byte(text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", text, err, want)
		}
	}
}

// The caps on a confined command's processes and temporary folder: a
// project may lower them, not raise or lift them (0 lifts).
func TestProjectLowersConsumptionCaps(t *testing.T) {
	base := Default()
	if base.Limits.MaxProcesses != 4096 || base.Limits.TempMiB != 2048 {
		t.Fatalf("defaults: %+v", base.Limits)
	}
	cfg, err := ParseProject(base, FileName, []byte("[limits]\nmax_processes = 64\ntemp_mib = 8\n"))
	if err != nil || cfg.Limits.MaxProcesses != 64 || cfg.Limits.TempMiB != 8 {
		t.Fatalf("lowered: %+v %v", cfg.Limits, err)
	}
	cfg, err = ParseProject(base, FileName, []byte("[limits]\nmax_processes = 0\ntemp_mib = 4096\n"))
	if err != nil || cfg.Limits.MaxProcesses != 4096 || cfg.Limits.TempMiB != 2048 || len(cfg.Warnings) != 2 {
		t.Fatalf("raised or lifted: %+v %v %q", cfg.Limits, err, cfg.Warnings)
	}
}
