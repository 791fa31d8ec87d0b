package platform

import (
	"os"
	"path/filepath"
	"slices"
)

// rcFiles are the files whose change means the login environment of shell
// may have changed: what a login, interactive shell of its kind reads
// (every kind's, for a shell not known here), the folders of snippets
// those files commonly source, and the files in which version managers
// keep the default version that an rc file puts on PATH. A '*' in a name
// stands for the files of that folder (see statFiles).
func rcFiles(shell string) []string {
	home := os.Getenv("HOME")
	if home == "" {
		return nil
	}
	sh, kinds, tools := rcFileKinds(home)
	var files []string
	switch kind := filepath.Base(shell); kind {
	case "bash", "zsh", "ksh":
		files = slices.Concat(sh, kinds[kind])
	case "sh", "dash", "mksh":
		files = slices.Concat(sh, kinds["ksh"])
	case "fish", "csh":
		files = slices.Clone(kinds[kind])
	case "tcsh":
		files = slices.Clone(kinds["csh"])
	default:
		files = slices.Concat(sh, kinds["bash"], kinds["zsh"], kinds["fish"], kinds["csh"], kinds["ksh"])
	}
	return append(files, tools...)
}

// rcFileKinds returns what every Bourne-like login shell reads (sh), what
// each kind reads besides (kinds), and the version managers' files
// (tools). /etc/paths is read by macOS's path_helper from /etc/profile and
// /etc/zprofile.
func rcFileKinds(home string) (sh []string, kinds map[string][]string, tools []string) {
	config := os.Getenv("XDG_CONFIG_HOME")
	if config == "" {
		config = filepath.Join(home, ".config")
	}
	zdot := os.Getenv("ZDOTDIR")
	if zdot == "" {
		zdot = home
	}
	in := func(dir string, names ...string) []string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = filepath.Join(dir, n)
		}
		return out
	}
	sh = append([]string{"/etc/profile", "/etc/profile.d/*.sh", "/etc/paths", "/etc/paths.d/*"}, in(home, ".profile")...)
	kinds = map[string][]string{
		"bash": slices.Concat(in("/etc", "bash.bashrc", "bashrc"),
			in(home, ".bash_profile", ".bash_login", ".bashrc", ".bashrc.d/*")),
		"zsh": slices.Concat(in("/etc", "zshenv", "zprofile", "zshrc", "zlogin"),
			in("/etc/zsh", "zshenv", "zprofile", "zshrc", "zlogin"), in(zdot, ".zshenv", ".zprofile", ".zshrc", ".zlogin")),
		"fish": slices.Concat(in("/etc/fish", "config.fish", "conf.d/*.fish"),
			in(filepath.Join(config, "fish"), "config.fish", "conf.d/*.fish", "fish_variables")),
		"csh": slices.Concat(in("/etc", "csh.cshrc", "csh.login"), in(home, ".tcshrc", ".cshrc", ".login")),
		"ksh": in(home, ".kshrc", ".mkshrc"),
	}
	tools = append(in(home, ".nvm/alias/default", ".pyenv/version", ".rbenv/version", ".tool-versions"),
		filepath.Join(config, "mise", "config.toml"))
	return sh, kinds, tools
}
