package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/termhelper/termhelper/places"
)

// The default lists. Each entry says why it is there; a path that does
// not exist on this machine is skipped when the plan is applied.

// place is a default entry: a path (relative to home unless absolute), or
// the value of env when it is set, and why it is listed.
type place struct {
	path string
	env  string // an environment variable that moves it, if any
	why  string
}

// caches are the package managers' caches a command may write, so that
// installs and builds work confined. They are shared with the user's own
// runs, so the list keeps to caches whose entries are checked or keyed
// by content; a tool's own home (~/.cargo/bin, ~/.gradle's init scripts)
// stays read-only. $CACHE is the user's cache folder ($XDG_CACHE_HOME,
// ~/.cache, or ~/Library/Caches on macOS).
var caches = []place{
	{".npm", "npm_config_cache", "npm's cache, npx's packages"},
	{"$CACHE/yarn", "YARN_CACHE_FOLDER", "yarn 1's cache"},
	{".yarn/berry", "", "yarn 2 and later: the global cache"},
	{"$XDG_DATA_HOME/pnpm/store", "", "pnpm's content-addressed store"},
	{"Library/pnpm/store", "", "pnpm's store (macOS)"},
	{"$CACHE/pnpm", "", "pnpm's metadata cache"},
	{".bun/install/cache", "BUN_INSTALL_CACHE_DIR", "bun's cache"},
	{"$CACHE/node-gyp", "", "Node headers for native modules"},
	{"$CACHE/node/corepack", "COREPACK_HOME", "corepack's package managers"},
	{"$CACHE/deno", "DENO_DIR", "Deno's cache"},
	{"$CACHE/pip", "PIP_CACHE_DIR", "pip's cache"},
	{"$CACHE/uv", "UV_CACHE_DIR", "uv's cache"},
	{".cache/uv", "", "uv's cache (macOS too)"},
	{"$CACHE/pypoetry", "", "Poetry's cache"},
	{"$CARGO_HOME/registry", "", "cargo's registry index and crates"},
	{"$CARGO_HOME/git", "", "cargo's git dependencies"},
	{"$CACHE/go-build", "GOCACHE", "Go's build cache"},
	{"$GOPATH/pkg/mod", "GOMODCACHE", "Go's module cache (and downloaded toolchains)"},
	{".m2/repository", "", "Maven's local repository"},
	{"$GRADLE_USER_HOME/caches", "", "Gradle's caches"},
	{"$GRADLE_USER_HOME/wrapper", "", "Gradle wrapper's distributions"},
	{"$GRADLE_USER_HOME/daemon", "", "Gradle daemon's registry and logs"},
	{"$GRADLE_USER_HOME/native", "", "Gradle's native libraries"},
	{"$GRADLE_USER_HOME/jdks", "", "Gradle's toolchains"},
	{"$GRADLE_USER_HOME/.tmp", "", "Gradle's temporary files"},
	{"$CACHE/composer", "COMPOSER_CACHE_DIR", "Composer's cache"},
	{"$CACHE/ccache", "CCACHE_DIR", "ccache"},
	{"$CACHE/sccache", "SCCACHE_DIR", "sccache"},
}

// shellStartup are the files a shell runs at its start (and git's
// global config, whose aliases, hooks path and fsmonitor run programs):
// a command that wrote them would run again, unconfined, in the user's
// next terminal.
var shellStartup = []place{
	{".profile", "", "sh and bash login"},
	{".bashrc", "", "bash"}, {".bash_profile", "", "bash login"}, {".bash_login", "", "bash login"},
	{".bash_logout", "", "bash logout"},
	{"$ZDOTDIR/.zshenv", "", "zsh"}, {"$ZDOTDIR/.zshrc", "", "zsh"}, {"$ZDOTDIR/.zprofile", "", "zsh login"},
	{"$ZDOTDIR/.zlogin", "", "zsh login"}, {"$ZDOTDIR/.zlogout", "", "zsh logout"},
	{".zshenv", "", "zsh"}, {".zshrc", "", "zsh"}, {".zprofile", "", "zsh login"}, {".zlogin", "", "zsh login"},
	{"$XDG_CONFIG_HOME/fish/", "", "fish: config.fish, conf.d, functions"},
	{".kshrc", "", "ksh"}, {".mkshrc", "", "mksh"}, {".cshrc", "", "csh"}, {".tcshrc", "", "tcsh"}, {".login", "", "csh login"},
	{".gitconfig", "", "git's global config"}, {"$XDG_CONFIG_HOME/git/config", "", "git's global config (XDG place)"},
}

// SecretPlaces are the files, folders and sockets a confined command
// finds empty (with a mount namespace) or cannot read (Landlock alone):
// the one list of secret places (places.Secrets), each where a variable
// moves it and where it is by default. getenv gives the environment the
// tools see (os.Getenv, or the login environment); home is the user's
// home folder.
func SecretPlaces(home string, getenv func(string) string) []string {
	secrets.Lock()
	defer secrets.Unlock()
	if secrets.out != nil && secrets.home == home && sameVars(secrets.vars, getenv) {
		return slices.Clone(secrets.out)
	}
	vars := map[string]string{}
	out := secretPlaces(home, func(name string) string {
		v := getenv(name)
		vars[name] = v
		return v
	})
	secrets.home, secrets.vars, secrets.out = home, vars, out
	return slices.Clone(out)
}

// secrets is SecretPlaces' last answer: the list depends on home and
// the variables it read alone, and a command asks for it each time.
var secrets struct {
	sync.Mutex
	home string
	vars map[string]string // each variable read, and its value
	out  []string
}

// sameVars reports whether getenv gives each of vars its value.
func sameVars(vars map[string]string, getenv func(string) string) bool {
	for name, v := range vars {
		if getenv(name) != v {
			return false
		}
	}
	return true
}

// secretPlaces is SecretPlaces, worked out afresh.
func secretPlaces(home string, getenv func(string) string) []string {
	var out []string
	for _, pl := range places.Secrets {
		if pl.Pattern() {
			continue // other processes' environments: the pid namespace keeps them out
		}
		for _, path := range pl.Paths(home, getenv) {
			if path = strings.TrimSuffix(path, "/"); !slices.Contains(out, path) {
				out = append(out, path)
			}
		}
	}
	return out
}

// Caches are the package managers' caches a confined command may write
// (workspace-write only). Honoured: GOCACHE, GOMODCACHE and GOPATH,
// CARGO_HOME, GRADLE_USER_HOME, XDG_CACHE_HOME and each tool's own
// variable; not read: settings in the tools' own files (go env -w,
// .npmrc's cache=).
func Caches(home string, getenv func(string) string) []string {
	return resolve(caches, home, getenv)
}

// ProtectedPaths stay read-only even inside writable places: the
// project's .termhelper.toml and the files that make another program run
// code (ProjectRunners), the user's shell start-up files, and what
// in the repository would run a program at the user's next git command
// (gitProtected). A folder ends with a slash: the trampoline makes it
// when it is missing, so that nothing can be planted there.
func ProtectedPaths(root, home string, getenv func(string) string) []string {
	return protectedPaths(root, home, getenv, nil).protect
}

func protectedPaths(root, home string, getenv func(string) string, r *reads) guarded {
	g := guarded{protect: []string{filepath.Join(root, ".termhelper.toml")}}
	g.add(ProjectRunners(root)...)
	git := gitProtected(root, home, r)
	g.add(git.protect...)
	g.neutral = git.neutral
	g.add(resolve(shellStartup, home, getenv)...)
	return g
}

// GitDirs are the git folders of the repository at root that lie outside
// it (a worktree's, a submodule's): git writes its objects, index and
// refs there, so they are writable like the root.
func GitDirs(root string) []string { return gitDirsOutside(root, nil) }

func gitDirsOutside(root string, r *reads) []string {
	gitDir, common := gitDirs(root, r)
	if gitDir != filepath.Join(root, ".git") && !linkedBack(root, gitDir, common, r) {
		return nil
	}
	var out []string
	for _, d := range []string{gitDir, common} {
		if d != "" && !isUnder(d, root) && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// Defaults is the plan for root with the default lists: the caches and
// outside git folders writable, the protected paths, the secret places
// (but one that holds the root, which the user chose to work in). A
// missing cache whose parent folder exists is made (0700), so that a
// first `npm install` or `go build` works; one whose parent is missing
// belongs to a tool this user does not run. The caller sets Mode,
// Network and TempDir and adds the config's lists and the trash folder.
// Made for each confined command, the lists are made again only once
// what they were made from has changed (see reads).
func Defaults(root, home string, getenv func(string) string) Plan {
	if !keepsPlans {
		return defaults(root, home, getenv, nil)
	}
	if p, ok := madeBefore(root, home, getenv); ok {
		return p
	}
	r := &reads{}
	p := defaults(root, home, r.lookup(getenv), r)
	keepMade(root, home, r, p)
	return p
}

func defaults(root, home string, getenv func(string) string, r *reads) Plan {
	g := protectedPaths(root, home, getenv, r)
	p := Plan{Root: root, Protect: g.protect, Neutral: g.neutral}
	for _, c := range Caches(home, getenv) {
		if makeCache(c, r) {
			p.Writable = append(p.Writable, c)
		}
	}
	p.Writable = append(p.Writable, gitDirsOutside(root, r)...)
	if own := ownInstall(root); own != "" && within(own, p.Writable) != "" {
		p.Protect = append(p.Protect, own)
	}
	for _, s := range SecretPlaces(home, getenv) {
		if s != root && !isUnder(root, s) {
			p.Hide = append(p.Hide, s)
		}
	}
	return p
}

// makeCache tells whether the cache dir is there, making it if its
// parent is.
func makeCache(dir string, r *reads) bool {
	if _, err := r.stat(dir); err == nil {
		return true
	}
	if _, err := r.stat(filepath.Dir(dir)); err != nil {
		return false
	}
	err := os.Mkdir(dir, 0o700)
	r.made(dir)
	return err == nil
}

// resolve turns the entries into absolute paths for this user (see
// places.Resolve).
func resolve(list []place, home string, getenv func(string) string) []string {
	pl := make([]places.Place, len(list))
	for i, p := range list {
		pl[i] = places.Place{Path: p.path, Env: p.env, Why: p.why}
	}
	return places.Resolve(pl, home, getenv)
}

// within returns the place of places that holds path, or "".
func within(path string, places []string) string {
	for _, pl := range places {
		if path == pl || isUnder(path, pl) {
			return pl
		}
	}
	return ""
}

// isUnder reports whether path lies strictly below dir.
func isUnder(path, dir string) bool {
	if dir == "/" {
		return path != "/"
	}
	return strings.HasPrefix(path, dir+"/")
}

// executable is os.Executable; tests stand in an install of their own.
var executable = os.Executable

// ownInstall is the folder termhelper itself was installed into: for an
// npm install (npx's included) the folder holding its node_modules,
// launcher and binary together, else the binary's folder. npx keeps its
// installs in npm's cache, a place confined commands may write: one could
// replace the launcher or the binary, and the next start of termhelper
// would run it outside any sandbox. Protected, it stays as installed. An
// install inside the root is the project's own ("" then: a project that
// builds termhelper must be able to).
func ownInstall(root string) string {
	exe, err := executable()
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	dir := filepath.Dir(exe)
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if filepath.Base(d) == "node_modules" {
			dir = filepath.Dir(d)
			break
		}
	}
	if dir == root || isUnder(dir, root) || isUnder(root, dir) {
		return ""
	}
	return dir
}
