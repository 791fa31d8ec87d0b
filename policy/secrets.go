package policy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/places"
)

// secretPatterns are read-protected whatever the config says: the one
// list of secret places (places.Secrets), in the syntax of the config's
// protected_paths. A place a variable moves is protected both where the
// helper's environment puts it and where it is by default: the command
// may run with either.
func secretPatterns(home string, getenv func(string) string) []string {
	var out []string
	for _, pl := range places.Secrets {
		if pl.Name != "" {
			out = append(out, pl.Name)
		}
		for _, p := range pl.Paths(home, getenv) {
			if !slices.Contains(out, tilde(p, home)) {
				out = append(out, tilde(p, home))
			}
		}
	}
	return out
}

// tilde writes a path under home as "~/...", as a person would (the
// reasons name the pattern).
func tilde(p, home string) string {
	p = filepath.ToSlash(p)
	if h := strings.TrimSuffix(filepath.ToSlash(home), "/"); h != "" && strings.HasPrefix(p, h+"/") {
		return "~/" + p[len(h)+1:]
	}
	return p
}

// writeOnly are default protected paths that are protected from writes
// only: writing them runs code or lifts rules, reading them reveals
// nothing secret.
var writeOnly = map[string]bool{".git/": true, config.FileName: true}

// newReadProtector matches the paths whose reading is asked about: the
// secrets above and the config's protected_paths (lock files are not
// secret).
func newReadProtector(pc config.PolicyConfig, root, home string, fold bool) *protector {
	pr := &protector{globAll: true, fold: fold}
	for _, raw := range secretPatterns(home, os.Getenv) {
		pr.add(raw, root, home)
	}
	for _, raw := range pc.ProtectedPaths {
		if !writeOnly[raw] {
			pr.add(raw, root, home)
		}
	}
	return pr
}
