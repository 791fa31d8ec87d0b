package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDefaults(t *testing.T) {
	c := Default()
	if c.Limits.TimeoutMs != 60000 || c.Limits.SlowTimeoutMs != 180000 || c.Limits.BackgroundYieldMs != 2000 {
		t.Errorf("timeouts: %+v", c.Limits)
	}
	if c.Limits.MaxStreamChars != 16000 || c.Limits.MaxLineChars != 500 || c.Limits.MaxSessions != 64 {
		t.Errorf("caps: %+v", c.Limits)
	}
	if !c.LoginEnv || c.Unattended != "allow" || c.Sources != nil || c.MCPYieldMs != 45000 {
		t.Errorf("scalars: %+v", c)
	}
	if len(c.Policy.Allow) != 21 {
		t.Errorf("allow list has %d entries, want the 21 of PROTOCOL.md", len(c.Policy.Allow))
	}
	c.Policy.Allow[0] = "changed"
	if Default().Policy.Allow[0] != "ls" {
		t.Error("Default shares slices between calls")
	}
}

func TestMergeOverDefaults(t *testing.T) {
	cfg, err := Parse("x.toml", []byte(`
shell = "/bin/bash"
login_env = false
unattended = "deny"

[limits]
timeout_ms = 1000
max_sessions = 8

[policy]
allow = ["git status", "make", "!find"]
deny = ["git push", "terraform *destroy*"]
protected_paths = ["secrets/"]
lock_files = ["my.lock"]
slow_commands = ["bazel build"]
`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Shell != "/bin/bash" || cfg.LoginEnv || cfg.Unattended != "deny" || !slices.Equal(cfg.Sources, []string{"x.toml"}) {
		t.Errorf("scalars: %+v", cfg)
	}
	if cfg.Limits.TimeoutMs != 1000 || cfg.Limits.MaxSessions != 8 || cfg.Limits.SlowTimeoutMs != 180000 {
		t.Errorf("limits not merged: %+v", cfg.Limits)
	}
	p := cfg.Policy
	if !slices.Contains(p.Allow, "git status") || !slices.Contains(p.Allow, "ls") || slices.Contains(p.Allow, "find") {
		t.Errorf("allow: %v", p.Allow)
	}
	if !slices.Contains(p.ProtectedPaths, "secrets/") || !slices.Contains(p.ProtectedPaths, ".env*") {
		t.Errorf("protected: %v", p.ProtectedPaths)
	}
	if !slices.Contains(p.LockFiles, "my.lock") || !slices.Contains(p.LockFiles, "go.sum") {
		t.Errorf("lock files: %v", p.LockFiles)
	}
	if len(p.Deny) != 2 || !cfg.IsSlow("bazel build //...") || !cfg.IsSlow("npm install") {
		t.Errorf("deny %v / slow", p.Deny)
	}
}

func TestErrorsNameFileLineKey(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"unknown key", "shell = \"/bin/sh\"\n\n[limits]\ntimeout = 5\n", "bad.toml:4: limits.timeout: unknown key"},
		{"unknown top key", "colour = true\n", "bad.toml:1: colour: unknown key"},
		{"unknown table", "[polic]\nallow = []\n", "bad.toml:1: polic: unknown key"},
		{"wrong type", "[limits]\n\ntimeout_ms = \"60s\"\n", "bad.toml:3: limits.timeout_ms: cannot decode TOML string"},
		{"wrong list type", "[policy]\nallow = \"ls\"\n", "bad.toml:2: policy.allow:"},
		{"wrong element", "[policy]\nallow = [1]\n", "bad.toml:2: policy.allow:"},
		{"bool as string", "login_env = \"yes\"\n", "bad.toml:1: login_env:"},
		{"bad unattended", "\nunattended = \"maybe\"\n", "bad.toml:2: unattended: must be"},
		{"negative limit", "[limits]\nmax_sessions = 0\n", "bad.toml:2: limits.max_sessions: must be at least 1"},
		{"too few processes", "[limits]\nmax_processes = 8\n", "bad.toml:2: limits.max_processes: must be 0 (no cap) or at least 16"},
		{"negative temp", "[limits]\ntemp_mib = -1\n", "bad.toml:2: limits.temp_mib: must be at least 0"},
		{"relative shell", "shell = \"./evil.sh\"\n", "bad.toml:1: shell: must be"},
		{"lift protection", "[policy]\nprotected_paths = [\"!.env*\"]\n", "bad.toml:2: policy.protected_paths:"},
		{"empty entry", "[policy]\ndeny = [\"\"]\n", "bad.toml:2: policy.deny: empty entry"},
		{"syntax", "shell = \n", "bad.toml:1:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("bad.toml", []byte(c.text))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestSearchOrder(t *testing.T) {
	user := t.TempDir()
	t.Setenv("TERMHELPER_CONFIG_DIR", user)
	root := t.TempDir()
	userFile, projFile := filepath.Join(user, "config.toml"), filepath.Join(root, FileName)

	cfg, err := Load("", root)
	if err != nil || cfg.Sources != nil {
		t.Fatalf("no files: %v %q", err, cfg.Sources)
	}
	writeFile(t, userFile, "[limits]\nmax_sessions = 3\n")
	cfg, err = Load("", root)
	if err != nil || cfg.Limits.MaxSessions != 3 || !slices.Equal(cfg.Sources, []string{userFile}) {
		t.Fatalf("user file: %v %+v", err, cfg)
	}
	writeFile(t, projFile, "[limits]\nmax_sessions = 2\n")
	cfg, err = Load("", root)
	if err != nil || cfg.Limits.MaxSessions != 2 || !slices.Equal(cfg.Sources, []string{userFile, projFile}) {
		t.Fatalf("the project's file goes over the user's: %v %+v", err, cfg)
	}
	explicit := filepath.Join(t.TempDir(), "other.toml")
	writeFile(t, explicit, "[limits]\nmax_sessions = 5\n")
	cfg, err = Load(explicit, root)
	if err != nil || cfg.Limits.MaxSessions != 2 || !slices.Equal(cfg.Sources, []string{explicit, projFile}) {
		t.Fatalf("--config replaces the user's file, under the project's: %v %+v", err, cfg)
	}
	if cfg, err = Load(projFile, root); err != nil || !slices.Equal(cfg.Sources, []string{projFile}) {
		t.Fatalf("--config naming the project's file reads it once, as the user's: %v %+v", err, cfg)
	}
	if _, err := Load(filepath.Join(root, "missing.toml"), root); err == nil {
		t.Fatal("a missing --config file must be an error")
	}
	writeFile(t, projFile, "bogus = 1\n")
	if _, err := Load("", root); err == nil || !strings.Contains(err.Error(), projFile+":1: bogus") {
		t.Fatalf("error must name the file: %v", err)
	}
}

func TestUserDir(t *testing.T) {
	// An absolute path on every system: "/tmp/x" has no drive on Windows.
	dir := filepath.Join(t.TempDir(), "th-config")
	t.Setenv("TERMHELPER_CONFIG_DIR", dir)
	if d, err := UserDir(); err != nil || d != dir {
		t.Fatalf("%q %v", d, err)
	}
	t.Setenv("TERMHELPER_CONFIG_DIR", "")
	d, err := UserDir()
	if err != nil || filepath.Base(d) != "termhelper" {
		t.Fatalf("%q %v", d, err)
	}
}

func TestIsSlow(t *testing.T) {
	c := Default()
	slow := []string{"npm install", "cd web && npm install --legacy-peer-deps", "go test ./...",
		"pytest -x", "docker build -t x .", "(cargo build)", "/usr/local/bin/npm install", "bundle exec rspec spec/a_spec.rb"}
	fast := []string{"ls", "npm run lint", "echo npm", "cat pytest.ini", "gotest", "go vet ./...", "echo 'go tests'"}
	for _, s := range slow {
		if !c.IsSlow(s) {
			t.Errorf("IsSlow(%q) = false", s)
		}
	}
	for _, s := range fast {
		if c.IsSlow(s) {
			t.Errorf("IsSlow(%q) = true", s)
		}
	}
}
