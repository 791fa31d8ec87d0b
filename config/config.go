// Package config loads termhelper's TOML configuration and merges it over
// built-in defaults. Decoding is strict: an unknown key, a value of the wrong
// type or an out-of-range value stops the helper at start, with the file,
// line and key named, because a silently ignored typo in a safety setting is
// worse than no setting at all.
package config

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// FileName is the per-project config file looked up at the root.
const FileName = ".termhelper.toml"

// Config is the helper's whole configuration after merging.
type Config struct {
	Shell      string // "" = platform default; "cmd", "powershell", "pwsh", or an absolute path
	LoginEnv   bool   // merge the user's login-shell environment (`login_env`)
	Unattended string // what `ask` means without the approval capability: "allow" or "deny"
	Encoding   string // "" = UTF-8; a legacy code page for Windows output
	// MaskEnv names environment variables whose values are masked in
	// output, beyond those whose names look secret (`mask_env`).
	MaskEnv []string
	// MaskEnvOff is `mask_env = []`: no environment value is masked.
	MaskEnvOff bool
	Limits     Limits
	Policy     PolicyConfig
	Sandbox    SandboxConfig
	// MCPYieldMs is how long an MCP tool call for a foreground command
	// waits before it answers with the live session (`mcp_yield_ms`);
	// 0 waits for the end.
	MCPYieldMs int
	// HeartbeatMs, in MCP mode, counts a client that sends nothing for
	// three such periods as gone (`heartbeat_ms`); 0 never does. The
	// native protocol's host asks for its own at initialize.
	HeartbeatMs int
	// Persist is how long a background helper keeps the sessions after
	// its last connection is gone (`persist`, --persist); 0 is no
	// background helper.
	Persist time.Duration
	// Sources are the files merged over the defaults, in order: the
	// user's (or --config's), then the project's.
	Sources []string
	// Warnings name the keys of the project's file that were ignored
	// because they would have widened what commands may do, each as
	// "file:line: key: why".
	Warnings []string
}

// The sandbox modes and network modes (`sandbox`, `network`), from the
// widest to the narrowest.
const (
	SandboxOff            = "off"
	SandboxContainer      = "container" // off: the container the helper runs in is the sandbox
	SandboxWorkspaceWrite = "workspace-write"
	SandboxReadOnly       = "read-only"
	NetworkOpen           = "open"
	NetworkProxy          = "proxy"
	NetworkOff            = "off"
)

// SandboxConfig is how commands are confined: the mode, the network, and
// the paths the confinement treats apart. Paths are absolute, "~/"-anchored
// or relative to the root.
type SandboxConfig struct {
	Mode     string // `sandbox`: "workspace-write" (default), "read-only" or "off"
	Required bool   // `sandbox_required`: no mechanism here fails every command
	Network  string // `network`: "proxy" (default), "open" or "off"
	// NetworkAllow extends the egress proxy's built-in list of hosts
	// (`network_allow`); NetworkDeny refuses hosts even when allowed.
	NetworkAllow, NetworkDeny []string
	Writable                  []string // `writable`: more places commands may write
	Hide                      []string // `hide`: secret places, empty or absent inside
	Protect                   []string // `protect`: read-only even inside writable places
}

// Limits are the numeric caps of PROTOCOL.md.
type Limits struct {
	TimeoutMs, SlowTimeoutMs, BackgroundYieldMs int
	MaxStreamChars, MaxLineChars, MaxSessions   int
	// MaxProcesses caps the processes of one confined command's tree
	// (`max_processes`), TempMiB the size of its temporary folder in MiB
	// (`temp_mib`); 0 is no cap. The defaults are far above what a build
	// uses (a parallel link or test run stays in the hundreds of
	// processes and well under a GiB of temporary files) and far below
	// what stops the machine.
	MaxProcesses, TempMiB int
}

// PolicyConfig holds the lists the policy package judges commands with.
type PolicyConfig struct {
	// Allow lists command prefixes that run without approval ("ls", "git status").
	Allow []string
	// Deny lists extra hard blocks: a word prefix, or a glob when it holds * ? or [.
	Deny []string
	// ProtectedPaths are path patterns no command may write (see docs/policy.md).
	ProtectedPaths []string
	// LockFiles are file names protected at any depth.
	LockFiles []string
	// SlowCommands get the slow lifetime (Limits.SlowTimeoutMs).
	SlowCommands []string
}

// Default returns the built-in configuration. Each call returns fresh slices.
func Default() Config {
	return Config{
		LoginEnv:   true,
		Unattended: "allow",
		Sandbox:    SandboxConfig{Mode: SandboxWorkspaceWrite, Network: NetworkProxy},
		MCPYieldMs: 45000,
		Limits: Limits{
			TimeoutMs:         60000,
			SlowTimeoutMs:     180000,
			BackgroundYieldMs: 2000,
			MaxStreamChars:    16000,
			MaxLineChars:      500,
			MaxSessions:       64,
			MaxProcesses:      4096,
			TempMiB:           2048,
		},
		Policy: PolicyConfig{
			Allow: []string{
				"ls", "cat", "head", "tail", "echo", "date", "whoami", "pwd",
				"find", "wc", "grep", "tree", "file", "stat", "uname", "df",
				"du", "ps", "which", "env", "printenv",
			},
			ProtectedPaths: []string{".env*", ".ssh/", ".git/", FileName},
			LockFiles: []string{
				"package-lock.json", "npm-shrinkwrap.json", "yarn.lock",
				"pnpm-lock.yaml", "bun.lockb", "bun.lock", "Cargo.lock",
				"go.sum", "Gemfile.lock", "poetry.lock", "Pipfile.lock",
				"uv.lock", "composer.lock", "mix.lock", "pubspec.lock",
				"Podfile.lock", "flake.lock",
			},
			// The list the Clacky terminal tool tuned against real projects.
			SlowCommands: []string{
				"bundle install", "bundle update", "bundle exec rspec",
				"npm install", "npm ci", "npm run build", "npm run test",
				"yarn install", "yarn build", "pnpm install", "pnpm build",
				"rspec", "rake test", "rails test", "cargo build",
				"cargo test", "go build", "go test", "mvn test",
				"mvn package", "gradle build", "pytest", "pip install",
				"docker build", "docker-compose build", "docker compose build",
			},
		},
	}
}

// UserDir is the user's termhelper folder: os.UserConfigDir()/termhelper,
// or $TERMHELPER_CONFIG_DIR when set (tests and portable installs use it).
func UserDir() (string, error) {
	if d := os.Getenv("TERMHELPER_CONFIG_DIR"); d != "" {
		return filepath.Abs(d)
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "termhelper"), nil
}

// IsSlow reports whether command contains one of the slow-command patterns
// as consecutive words ("cd web && npm install" is slow), as the Clacky tool
// did with its "starts with or contains" rule, but on word boundaries so
// "gotest" or "my-pytest-notes.txt" do not count.
func (c Config) IsSlow(command string) bool {
	words := commandWords(command)
	for _, p := range c.Policy.SlowCommands {
		if containsRun(words, strings.Fields(p)) {
			return true
		}
	}
	return false
}

// commandWords splits a command line on blanks and shell operators and drops
// quotes; it is deliberately rough: it only feeds the timeout choice.
func commandWords(command string) []string {
	f := func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || strings.ContainsRune(";&|()`", r)
	}
	words := strings.FieldsFunc(command, f)
	for i, w := range words {
		words[i] = strings.Trim(w, `"'`)
	}
	return words
}

func containsRun(words, run []string) bool {
	if len(run) == 0 {
		return false
	}
	for i := 0; i+len(run) <= len(words); i++ {
		if matchRun(words[i:], run) {
			return true
		}
	}
	return false
}

func matchRun(words, run []string) bool {
	for j, r := range run {
		if words[j] != r && (j > 0 || filepath.Base(words[j]) != r) {
			return false
		}
	}
	return true
}
