// Package places names where tools keep things in a user's home (the
// secret places, which the policy asks about and the sandbox hides, and
// the sandbox's own lists) and resolves those names for one user. It is a
// leaf: the policy and the sandbox both read its one list of secrets, so
// the two cannot disagree about what is secret.
package places

import (
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// Place is a listed path and why it is listed. Path is relative to home
// unless absolute; a leading $NAME stands for that folder ($XDG_CONFIG_HOME,
// $XDG_DATA_HOME, $CACHE, $CARGO_HOME, ...: see folder); a final slash
// marks a folder. Env, when set, names a variable that moves the place
// (its value wins). Name is a name pattern the policy asks about wherever
// it lies (".env*", "*.pem"): the sandbox cannot hide a name at every
// depth, so a Place with only a Name is the policy's alone.
type Place struct {
	Path string
	Env  string
	Name string
	Why  string
}

// Resolve turns the places into absolute paths for this user: a place's
// variable wins when set; "$NAME" prefixes stand for their folders; the
// rest is relative to home. A final slash (a folder) is kept. Places
// with no path for this user, and repeats, are left out.
func Resolve(list []Place, home string, getenv func(string) string) []string {
	var out []string
	for _, pl := range list {
		path := pl.For(home, getenv)
		if path != "" && !slices.Contains(out, path) {
			out = append(out, path)
		}
	}
	return out
}

// For is where the place is for this user, absolute, or "".
func (pl Place) For(home string, getenv func(string) string) string {
	path := ""
	if pl.Env != "" {
		path = FirstPath(getenv(pl.Env))
		if path != "" && pl.Folder() && !strings.HasSuffix(path, "/") {
			path += "/"
		}
	}
	if path == "" && pl.Path != "" {
		path = expand(pl.Path, home, getenv)
	}
	if !filepath.IsAbs(path) && !strings.HasPrefix(path, "/") {
		return "" // a Unix path is kept on Windows too: the policy judges it
	}
	return path
}

// Paths are where the place is for this user: where the variable moves
// it, and where it is without the variable (a tool run with another
// environment, or an old copy, still finds that one). Absolute, without
// repeats; none when the place has no path for this user.
func (pl Place) Paths(home string, getenv func(string) string) []string {
	var out []string
	for _, lookup := range []func(string) string{getenv, noEnv} {
		if p := pl.For(home, lookup); p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func noEnv(string) string { return "" }

// Folder reports whether the place is a folder (its path ends with a
// slash).
func (pl Place) Folder() bool { return strings.HasSuffix(pl.Path, "/") }

// Pattern reports whether the place's path is a pattern (/proc/*/environ):
// the policy matches it, the sandbox has other ways to keep it out.
func (pl Place) Pattern() bool { return strings.ContainsAny(pl.Path, "*?[") }

// FirstPath is a variable's path: the first of a list (GOPATH,
// KUBECONFIG), or a socket's (DOCKER_HOST=unix:///run/x.sock).
func FirstPath(v string) string {
	if rest, ok := strings.CutPrefix(v, "unix://"); ok {
		return rest
	}
	v, _, _ = strings.Cut(v, string(filepath.ListSeparator))
	return v
}

// expand replaces a leading $NAME with its folder and makes the rest
// relative to home; a final slash (a folder) is kept.
func expand(path, home string, getenv func(string) string) string {
	dir := strings.HasSuffix(path, "/")
	if strings.HasPrefix(path, "$") {
		name, rest, _ := strings.Cut(path[1:], "/")
		base := folder(name, home, getenv)
		if base == "" {
			return ""
		}
		path = join(base, rest)
	} else if !filepath.IsAbs(path) && !strings.HasPrefix(path, "/") {
		if home == "" {
			return ""
		}
		path = join(home, path)
	}
	if dir && !strings.HasSuffix(path, "/") {
		path += "/"
	}
	return path
}

// folder is what a $NAME stands for, with the tools' own defaults.
func folder(name, home string, getenv func(string) string) string {
	if v := FirstPath(getenv(name)); filepath.IsAbs(v) {
		return v
	}
	if home == "" {
		return ""
	}
	switch name {
	case "XDG_CONFIG_HOME":
		return join(home, ".config")
	case "XDG_DATA_HOME":
		return join(home, ".local", "share")
	case "CACHE":
		return UserCache(home, getenv)
	case "CARGO_HOME":
		return join(home, ".cargo")
	case "GOPATH":
		return join(home, "go")
	case "GRADLE_USER_HOME":
		return join(home, ".gradle")
	case "ZDOTDIR":
		return "" // unset: the zsh files in home are listed on their own
	}
	return "" // XDG_RUNTIME_DIR and others: only where set
}

// join is filepath.Join, but in a home written the Unix way ("/home/u")
// it joins with slashes whatever the platform: the policy judges Unix
// paths on Windows too (a command line run through ssh or WSL), and a
// path joined with backslashes there would not be absolute.
func join(base string, elem ...string) string {
	if strings.HasPrefix(base, "/") {
		return path.Join(append([]string{base}, elem...)...)
	}
	return filepath.Join(append([]string{base}, elem...)...)
}

// UserCache is the user's cache folder: $XDG_CACHE_HOME, ~/.cache, or
// ~/Library/Caches on macOS.
func UserCache(home string, getenv func(string) string) string {
	if runtime.GOOS == "darwin" {
		return join(home, "Library", "Caches")
	}
	if v := getenv("XDG_CACHE_HOME"); filepath.IsAbs(v) {
		return v
	}
	return join(home, ".cache")
}

// RendezvousEnv names a folder for termhelper --persist's background
// helpers to listen in, in place of the default (see Rendezvous).
const RendezvousEnv = "TERMHELPER_PERSIST_DIR"

// Rendezvous is the folder where this user's background helpers listen:
// $TERMHELPER_PERSIST_DIR, else $XDG_RUNTIME_DIR/termhelper (the user's
// own, emptied at logout and reboot), else termhelper-UID in the
// temporary folder, as tmux does. The sandbox refuses confined commands
// a connection there: a helper serves whoever connects as a host.
func Rendezvous(getenv func(string) string) string {
	if dir := getenv(RendezvousEnv); dir != "" {
		return dir
	}
	if run := getenv("XDG_RUNTIME_DIR"); run != "" && filepath.IsAbs(run) {
		return filepath.Join(run, "termhelper")
	}
	return filepath.Join(os.TempDir(), "termhelper-"+strconv.Itoa(os.Getuid()))
}
