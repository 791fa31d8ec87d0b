package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// fileConfig mirrors the TOML layout. Pointers tell "absent" from "zero" so
// that only keys present in the file override the defaults.
type fileConfig struct {
	Shell      *string    `toml:"shell"`
	LoginEnv   *bool      `toml:"login_env"`
	Unattended *string    `toml:"unattended"`
	Encoding   *string    `toml:"encoding"`
	MaskEnv    *[]string  `toml:"mask_env"` // nil: absent; empty: masking off
	MCPYieldMs *int       `toml:"mcp_yield_ms"`
	Limits     fileLimits `toml:"limits"`
	Policy     filePolicy `toml:"policy"`
}

type fileLimits struct {
	TimeoutMs         *int `toml:"timeout_ms"`
	SlowTimeoutMs     *int `toml:"slow_timeout_ms"`
	BackgroundYieldMs *int `toml:"background_yield_ms"`
	MaxStreamChars    *int `toml:"max_stream_chars"`
	MaxLineChars      *int `toml:"max_line_chars"`
	MaxSessions       *int `toml:"max_sessions"`
}

type filePolicy struct {
	Allow          []string `toml:"allow"`
	Deny           []string `toml:"deny"`
	ProtectedPaths []string `toml:"protected_paths"`
	LockFiles      []string `toml:"lock_files"`
	SlowCommands   []string `toml:"slow_commands"`
}

// Load finds the config file (explicit, else <root>/.termhelper.toml, else
// UserDir()/config.toml), decodes it strictly and merges it over Default().
// No file at all is not an error; a missing explicit file is.
func Load(explicit, root string) (Config, error) {
	path, err := find(explicit, root)
	if err != nil || path == "" {
		return Default(), err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Default(), fmt.Errorf("config: %w", err)
	}
	project := explicit == "" && root != "" && path == filepath.Join(root, FileName)
	return parse(path, data, project)
}

// find returns the first config file of the search order that exists.
func find(explicit, root string) (string, error) {
	if explicit != "" {
		if _, err := os.Stat(explicit); err != nil {
			return "", fmt.Errorf("config: %w", err)
		}
		return explicit, nil
	}
	candidates := []string{}
	if root != "" {
		candidates = append(candidates, filepath.Join(root, FileName))
	}
	if dir, err := UserDir(); err == nil {
		candidates = append(candidates, filepath.Join(dir, "config.toml"))
	}
	for _, c := range candidates {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			return c, nil
		}
	}
	return "", nil
}

// Parse decodes data (read from path, used in messages) and merges it over
// Default().
func Parse(path string, data []byte) (Config, error) { return parse(path, data, false) }

// parse is Parse for the user's file, or for the project's own file, which
// comes with a cloned repository and so may not lift a protection.
func parse(path string, data []byte, project bool) (Config, error) {
	var fc fileConfig
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&fc); err != nil {
		return Default(), decodeError(path, err)
	}
	cfg := Default()
	cfg.Source = path
	fc.mergeInto(&cfg)
	if err := firstErr(validateRemovals(fc.Policy), validateMaskEnv(fc.MaskEnv, project), validate(cfg)); err != nil {
		var ke *keyError
		if errors.As(err, &ke) {
			ke.file, ke.line = path, keyLine(data, ke.key)
		}
		return Default(), err
	}
	return cfg, nil
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
	p := &c.Policy
	p.Allow = mergeList(p.Allow, fc.Policy.Allow)
	p.Deny = mergeList(p.Deny, fc.Policy.Deny)
	p.ProtectedPaths = mergeList(p.ProtectedPaths, fc.Policy.ProtectedPaths)
	p.LockFiles = mergeList(p.LockFiles, fc.Policy.LockFiles)
	p.SlowCommands = mergeList(p.SlowCommands, fc.Policy.SlowCommands)
}

func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// mergeList extends base with add. An entry "!x" removes x instead; it is
// only honoured for lists where removal can only make things stricter or
// slower (validate rejects it elsewhere).
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
