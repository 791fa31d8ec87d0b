package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// fileConfig mirrors the TOML layout. Pointers tell "absent" from "zero" so
// that only keys present in the file override the defaults.
type fileConfig struct {
	Shell           *string    `toml:"shell"`
	LoginEnv        *bool      `toml:"login_env"`
	Unattended      *string    `toml:"unattended"`
	Encoding        *string    `toml:"encoding"`
	MaskEnv         *[]string  `toml:"mask_env"` // nil: absent; empty: masking off
	Sandbox         *string    `toml:"sandbox"`
	SandboxRequired *bool      `toml:"sandbox_required"`
	Network         *string    `toml:"network"`
	NetworkAllow    []string   `toml:"network_allow"`
	NetworkDeny     []string   `toml:"network_deny"`
	Writable        []string   `toml:"writable"`
	Hide            []string   `toml:"hide"`
	Protect         []string   `toml:"protect"`
	MCPYieldMs      *int       `toml:"mcp_yield_ms"`
	HeartbeatMs     *int       `toml:"heartbeat_ms"`
	Persist         *string    `toml:"persist"`
	Limits          fileLimits `toml:"limits"`
	Policy          filePolicy `toml:"policy"`
}

type fileLimits struct {
	TimeoutMs         *int `toml:"timeout_ms"`
	SlowTimeoutMs     *int `toml:"slow_timeout_ms"`
	BackgroundYieldMs *int `toml:"background_yield_ms"`
	MaxStreamChars    *int `toml:"max_stream_chars"`
	MaxLineChars      *int `toml:"max_line_chars"`
	MaxSessions       *int `toml:"max_sessions"`
	MaxProcesses      *int `toml:"max_processes"`
	TempMiB           *int `toml:"temp_mib"`
}

type filePolicy struct {
	Allow          []string `toml:"allow"`
	Deny           []string `toml:"deny"`
	ProtectedPaths []string `toml:"protected_paths"`
	LockFiles      []string `toml:"lock_files"`
	SlowCommands   []string `toml:"slow_commands"`
}

// Load merges, over Default(), the user's config (explicit, the --config
// file, else UserDir()/config.toml) and then the project's own
// <root>/.termhelper.toml. The project's file comes with the repository,
// so it may only narrow: keys that would widen what commands may do are
// ignored, each named in Config.Warnings. No file at all is not an error;
// a missing explicit file is.
func Load(explicit, root string) (Config, error) {
	user, err := userFile(explicit)
	if err != nil {
		return Default(), err
	}
	cfg := Default()
	if user != "" {
		if cfg, err = loadFile(cfg, user, false); err != nil {
			return Default(), err
		}
	}
	if proj := projectFile(root); proj != "" && !sameFile(proj, user) {
		if cfg, err = loadFile(cfg, proj, true); err != nil {
			return Default(), err
		}
	}
	return cfg, nil
}

// userFile is the explicit file, which must exist, else the user's
// config.toml if there is one.
func userFile(explicit string) (string, error) {
	if explicit != "" {
		if _, err := os.Stat(explicit); err != nil {
			return "", fmt.Errorf("config: %w", err)
		}
		return explicit, nil
	}
	dir, err := UserDir()
	if err != nil {
		return "", nil
	}
	return existing(filepath.Join(dir, "config.toml")), nil
}

func projectFile(root string) string {
	if root == "" {
		return ""
	}
	return existing(filepath.Join(root, FileName))
}

func existing(path string) string {
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		return path
	}
	return ""
}

func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

func loadFile(base Config, path string, project bool) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return base, fmt.Errorf("config: %w", err)
	}
	return parse(base, path, data, project)
}

// Parse decodes data (read from path, used in messages) as the user's
// config and merges it over Default().
func Parse(path string, data []byte) (Config, error) { return parse(Default(), path, data, false) }

// ParseProject decodes data as a project's own file and merges it over
// base, which it may only narrow.
func ParseProject(base Config, path string, data []byte) (Config, error) {
	return parse(base, path, data, true)
}

// parse decodes one file strictly, checks its values, and merges it over
// base: a user's file as it says, a project's file only where it narrows.
func parse(base Config, path string, data []byte, project bool) (Config, error) {
	var fc fileConfig
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&fc); err != nil {
		return base, decodeError(path, err)
	}
	if err := fc.check(); err != nil {
		return base, placed(err, path, data)
	}
	cfg := base.clone()
	if project {
		cfg.Warnings = append(cfg.Warnings, warnings(fc.mergeProject(&cfg), path, data)...)
	} else {
		fc.mergeInto(&cfg)
	}
	cfg.Sources = append(cfg.Sources, path)
	return cfg, nil
}

// check validates the file's own values, as they would stand over the
// defaults.
func (fc fileConfig) check() error {
	probe := Default()
	fc.mergeInto(&probe)
	return firstErr(validateRemovals(fc), validateMaskEnv(fc.MaskEnv), validate(probe))
}

// placed fills in the file and line of a bad value.
func placed(err error, path string, data []byte) error {
	var ke *keyError
	if errors.As(err, &ke) {
		ke.file, ke.line = path, keyLine(data, ke.key)
	}
	return err
}

// decodeError rewrites go-toml's errors as "file:line: key: problem".
func decodeError(path string, err error) error {
	var de *toml.DecodeError
	if !errors.As(err, &de) {
		return fmt.Errorf("config %s: %w", path, err)
	}
	row, _ := de.Position()
	key := strings.Join(de.Key(), ".")
	msg := de.Error()
	var sme *toml.StrictMissingError
	if errors.As(err, &sme) {
		msg = "unknown key"
	}
	if key == "" {
		return fmt.Errorf("%s:%d: %s", path, row, msg)
	}
	return fmt.Errorf("%s:%d: %s: %s", path, row, key, strings.TrimPrefix(msg, "toml: "))
}

func (fc fileConfig) mergeInto(c *Config) {
	setIf(&c.Shell, fc.Shell)
	setIf(&c.LoginEnv, fc.LoginEnv)
	setIf(&c.Unattended, fc.Unattended)
	setIf(&c.Encoding, fc.Encoding)
	setIf(&c.MCPYieldMs, fc.MCPYieldMs)
	setIf(&c.HeartbeatMs, fc.HeartbeatMs)
	fc.mergePersist(c)
	fc.mergeSandbox(&c.Sandbox)
	if fc.MaskEnv != nil {
		c.MaskEnv = mergeList(c.MaskEnv, *fc.MaskEnv)
		c.MaskEnvOff = len(*fc.MaskEnv) == 0
	}
	l := &c.Limits
	setIf(&l.TimeoutMs, fc.Limits.TimeoutMs)
	setIf(&l.SlowTimeoutMs, fc.Limits.SlowTimeoutMs)
	setIf(&l.BackgroundYieldMs, fc.Limits.BackgroundYieldMs)
	setIf(&l.MaxStreamChars, fc.Limits.MaxStreamChars)
	setIf(&l.MaxLineChars, fc.Limits.MaxLineChars)
	setIf(&l.MaxSessions, fc.Limits.MaxSessions)
	setIf(&l.MaxProcesses, fc.Limits.MaxProcesses)
	setIf(&l.TempMiB, fc.Limits.TempMiB)
	p := &c.Policy
	p.Allow = mergeList(p.Allow, fc.Policy.Allow)
	p.Deny = mergeList(p.Deny, fc.Policy.Deny)
	p.ProtectedPaths = mergeList(p.ProtectedPaths, fc.Policy.ProtectedPaths)
	p.LockFiles = mergeList(p.LockFiles, fc.Policy.LockFiles)
	p.SlowCommands = mergeList(p.SlowCommands, fc.Policy.SlowCommands)
}

func (fc fileConfig) mergeSandbox(s *SandboxConfig) {
	setIf(&s.Mode, fc.Sandbox)
	setIf(&s.Required, fc.SandboxRequired)
	setIf(&s.Network, fc.Network)
	s.NetworkAllow = mergeList(s.NetworkAllow, fc.NetworkAllow)
	s.NetworkDeny = mergeList(s.NetworkDeny, fc.NetworkDeny)
	s.Writable = mergeList(s.Writable, fc.Writable)
	s.Hide = mergeList(s.Hide, fc.Hide)
	s.Protect = mergeList(s.Protect, fc.Protect)
}

func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// mergeList extends base with add. An entry "!x" removes x instead; it is
// only honoured for lists where removal can only make things stricter or
// slower (validateRemovals rejects it elsewhere).
func mergeList(base, add []string) []string {
	out := append([]string(nil), base...)
	for _, a := range add {
		a = strings.TrimSpace(a)
		if name, ok := strings.CutPrefix(a, "!"); ok {
			out = remove(out, strings.TrimSpace(name))
			continue
		}
		if !contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

func remove(list []string, x string) []string {
	out := list[:0]
	for _, v := range list {
		if v != x {
			out = append(out, v)
		}
	}
	return out
}

func contains(list []string, x string) bool {
	for _, v := range list {
		if v == x {
			return true
		}
	}
	return false
}

// keyLine finds the line where a dotted key ("limits.timeout_ms") is set, so
// that value errors found after decoding still name a line. It understands
// [table] headers and "key =" lines, which is all termhelper's schema uses.
func keyLine(data []byte, dotted string) int {
	table, key := "", dotted
	if i := strings.LastIndex(dotted, "."); i >= 0 {
		table, key = dotted[:i], dotted[i+1:]
	}
	cur := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			cur = strings.TrimSpace(strings.Trim(line, "[]"))
			continue
		}
		k, _, ok := strings.Cut(line, "=")
		k = strings.Trim(strings.TrimSpace(k), `"'`)
		if ok && (cur == table && k == key || cur == "" && k == dotted) {
			return n
		}
	}
	return 0
}

// mergePersist takes `persist`, a duration such as "10m"; one that does
// not parse, or is not positive, is kept as -1 for validate to refuse.
func (fc fileConfig) mergePersist(c *Config) {
	if fc.Persist == nil {
		return
	}
	d, err := time.ParseDuration(*fc.Persist)
	if err != nil || d <= 0 {
		d = -1
	}
	c.Persist = d
}
