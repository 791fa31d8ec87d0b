package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/termhelper/termhelper/places"
)

// The default lists. Each entry says why it is there; a path that does
// not exist on this machine is skipped when the plan is applied.

// place is a default entry: a path (relative to home unless absolute), or
// the value of env when it is set, and why it is listed.
type place = places.Place

// caches are the package managers' caches a command may write, so that
// installs and builds work confined. They are shared with the user's own
// runs, so the list keeps to caches whose entries are checked or keyed
// by content; a tool's own home (~/.cargo/bin, ~/.gradle's init scripts)
// stays read-only. $CACHE is the user's cache folder ($XDG_CACHE_HOME,
// ~/.cache, or ~/Library/Caches on macOS).
var caches = []place{
	{Path: ".npm", Env: "npm_config_cache", Why: "npm's cache, npx's packages"},
	{Path: "$CACHE/yarn", Env: "YARN_CACHE_FOLDER", Why: "yarn 1's cache"},
	{Path: ".yarn/berry", Why: "yarn 2 and later: the global cache"},
	{Path: "$XDG_DATA_HOME/pnpm/store", Why: "pnpm's content-addressed store"},
	{Path: "Library/pnpm/store", Why: "pnpm's store (macOS)"},
	{Path: "$CACHE/pnpm", Why: "pnpm's metadata cache"},
	{Path: ".bun/install/cache", Env: "BUN_INSTALL_CACHE_DIR", Why: "bun's cache"},
	{Path: "$CACHE/node-gyp", Why: "Node headers for native modules"},
	{Path: "$CACHE/node/corepack", Env: "COREPACK_HOME", Why: "corepack's package managers"},
	{Path: "$CACHE/deno", Env: "DENO_DIR", Why: "Deno's cache"},
	{Path: "$CACHE/pip", Env: "PIP_CACHE_DIR", Why: "pip's cache"},
	{Path: "$CACHE/uv", Env: "UV_CACHE_DIR", Why: "uv's cache"},
	{Path: ".cache/uv", Why: "uv's cache (macOS too)"},
	{Path: "$CACHE/pypoetry", Why: "Poetry's cache"},
	{Path: "$CARGO_HOME/registry", Why: "cargo's registry index and crates"},
	{Path: "$CARGO_HOME/git", Why: "cargo's git dependencies"},
	{Path: "$CACHE/go-build", Env: "GOCACHE", Why: "Go's build cache"},
	{Path: "$GOPATH/pkg/mod", Env: "GOMODCACHE", Why: "Go's module cache (and downloaded toolchains)"},
	{Path: ".m2/repository", Why: "Maven's local repository"},
	{Path: "$GRADLE_USER_HOME/caches", Why: "Gradle's caches"},
	{Path: "$GRADLE_USER_HOME/wrapper", Why: "Gradle wrapper's distributions"},
	{Path: "$GRADLE_USER_HOME/daemon", Why: "Gradle daemon's registry and logs"},
	{Path: "$GRADLE_USER_HOME/native", Why: "Gradle's native libraries"},
	{Path: "$GRADLE_USER_HOME/jdks", Why: "Gradle's toolchains"},
	{Path: "$GRADLE_USER_HOME/.tmp", Why: "Gradle's temporary files"},
	{Path: "$CACHE/composer", Env: "COMPOSER_CACHE_DIR", Why: "Composer's cache"},
	{Path: "$CACHE/ccache", Env: "CCACHE_DIR", Why: "ccache"},
	{Path: "$CACHE/sccache", Env: "SCCACHE_DIR", Why: "sccache"},
}

// shellStartup are the files a shell runs at its start (and git's
// global config, whose aliases, hooks path and fsmonitor run programs):
// a command that wrote them would run again, unconfined, in the user's
// next terminal.
var shellStartup = []place{
	{Path: ".profile", Why: "sh and bash login"},
	{Path: ".bashrc", Why: "bash"}, {Path: ".bash_profile", Why: "bash login"}, {Path: ".bash_login", Why: "bash login"},
	{Path: ".bash_logout", Why: "bash logout"},
	{Path: "$ZDOTDIR/.zshenv", Why: "zsh"}, {Path: "$ZDOTDIR/.zshrc", Why: "zsh"}, {Path: "$ZDOTDIR/.zprofile", Why: "zsh login"},
	{Path: "$ZDOTDIR/.zlogin", Why: "zsh login"}, {Path: "$ZDOTDIR/.zlogout", Why: "zsh logout"},
	{Path: ".zshenv", Why: "zsh"}, {Path: ".zshrc", Why: "zsh"}, {Path: ".zprofile", Why: "zsh login"}, {Path: ".zlogin", Why: "zsh login"},
	{Path: "$XDG_CONFIG_HOME/fish/", Why: "fish: config.fish, conf.d, functions"},
	{Path: ".kshrc", Why: "ksh"}, {Path: ".mkshrc", Why: "mksh"}, {Path: ".cshrc", Why: "csh"}, {Path: ".tcshrc", Why: "tcsh"}, {Path: ".login", Why: "csh login"},
	{Path: ".gitconfig", Why: "git's global config"}, {Path: "$XDG_CONFIG_HOME/git/config", Why: "git's global config (XDG place)"},
}

// SecretPlaces are the files, folders and sockets a confined command
// finds empty (with a mount namespace) or cannot read (Landlock alone):
// the one list of secret places (places.Secrets), each where a variable
// moves it and where it is by default. getenv gives the environment the
// tools see (os.Getenv, or the login environment); home is the user's
// home folder.
func SecretPlaces(home string, getenv func(string) string) []string {
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
	return places.Resolve(caches, home, getenv)
}

// ProtectedPaths stay read-only even inside writable places: the
// project's .termhelper.toml, the user's shell start-up files, and what
// in the repository would run a program at the user's next git command
// (gitProtected). A folder ends with a slash: the trampoline makes it
// when it is missing, so that nothing can be planted there.
func ProtectedPaths(root, home string, getenv func(string) string) []string {
	return protectedPaths(root, home, getenv, nil)
}

func protectedPaths(root, home string, getenv func(string) string, r *reads) []string {
	out := []string{filepath.Join(root, ".termhelper.toml")}
	out = append(out, gitProtected(root, home, r)...)
	return append(out, places.Resolve(shellStartup, home, getenv)...)
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
	p := Plan{Root: root, Protect: protectedPaths(root, home, getenv, r)}
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
