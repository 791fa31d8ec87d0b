package sandbox

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// guarded are protected paths, and which of them are made neutral.
type guarded struct{ protect, neutral []string }

func (g *guarded) add(paths ...string) { g.protect = append(g.protect, paths...) }

// keepNeutral protects files git finds by their being there, which most
// repositories lack: where one is missing, the trampoline makes it with
// content that changes nothing for git (neutralContent), so that it can
// be bound read-only like the rest and nothing can be planted there.
func (g *guarded) keepNeutral(paths ...string) {
	g.add(paths...)
	g.neutral = append(g.neutral, paths...)
}

// neutralContent is what a neutral file holds: a commondir names its own
// folder (git dies on an empty one); a config or alternates file is
// empty.
func neutralContent(path string) string {
	if filepath.Base(path) == "commondir" {
		return ".\n"
	}
	return ""
}

// gitProtected are the paths of the repository at root whose change would
// run a program at the user's next git command, or lead git to config,
// hooks or objects elsewhere: its hooks, wherever core.hooksPath puts
// them (husky puts them in the project), its config (core.fsmonitor,
// aliases, the hooks path itself), what moves them (commondir,
// config.worktree, objects/info/alternates, info/), the same for each
// linked worktree's and submodule's git folder (their commondir and
// gitdir files too), and each submodule's .git file. A repository whose
// .git is a file (a worktree, a submodule) has them where the file
// points, and the file itself is protected so that it cannot be pointed
// elsewhere.
func gitProtected(root, home string, r *reads) guarded {
	gitDir, common := gitDirs(root, r)
	var g guarded
	if gitDir != filepath.Join(root, ".git") {
		g.add(filepath.Join(root, ".git"))
	}
	g.gitFolder(common)
	if gitDir != common {
		g.worktreeFolder(gitDir)
	}
	configs := []string{filepath.Join(common, "config"), filepath.Join(gitDir, "config.worktree")}
	inc := included(configs, home, r)
	g.keepNeutral(inc...)
	for _, config := range append(configs, inc...) {
		if hp := hooksPath(config, r); hp != "" {
			g.add(expandHooksPath(hp, root, home) + "/")
		}
	}
	g.worktrees(common, gitDir, r)
	g.submodules(common, root, r)
	g.inPlace(submoduleGits(root, gitDir, common, r), r)
	return g
}

// inPlace guards the submodules the index lists whose git folder is in
// their work tree (added from a repository already there, or by an old
// git) as the main one: the user's git status runs git in each.
func (g *guarded) inPlace(dotGits []string, r *reads) {
	for _, dotGit := range dotGits {
		if isFolder(dotGit, r) {
			g.gitFolder(dotGit)
		}
	}
}

// gitFolder guards what a git folder holds that git follows elsewhere or
// runs: hooks, config, info/ (attributes and excludes), and the files
// that move the config and the objects, which most repositories lack.
func (g *guarded) gitFolder(dir string) {
	g.add(filepath.Join(dir, "hooks")+"/", filepath.Join(dir, "config"), filepath.Join(dir, "info")+"/")
	g.keepNeutral(filepath.Join(dir, "commondir"), filepath.Join(dir, "config.worktree"),
		filepath.Join(dir, "objects", "info", "alternates"))
}

// worktreeFolder guards a linked worktree's own git folder: what names
// its common folder and its work tree, and its own config.
func (g *guarded) worktreeFolder(dir string) {
	g.add(filepath.Join(dir, "gitdir"))
	g.keepNeutral(filepath.Join(dir, "commondir"), filepath.Join(dir, "config.worktree"))
}

// worktrees guards the git folder of every linked worktree: git in each
// worktree reads them, wherever the worktree lies.
func (g *guarded) worktrees(common, gitDir string, r *reads) {
	dir := filepath.Join(common, "worktrees")
	r.walkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || path == dir:
			return nil
		case d.IsDir() && path != gitDir:
			g.worktreeFolder(path)
		}
		if d.IsDir() {
			return fs.SkipDir
		}
		return nil
	})
}

// submodules guards every submodule's git folder under .git/modules
// (nested ones too; a folder with a HEAD is one), and the .git file in
// its work tree, inside root, that points git there.
func (g *guarded) submodules(common, root string, r *reads) {
	r.walkDir(filepath.Join(common, "modules"), func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.IsDir() && skipInModules[d.Name()]:
			return fs.SkipDir
		case d.Name() == "HEAD" && !d.IsDir():
			dir := filepath.Dir(path)
			g.gitFolder(dir)
			if wt := coreValue(filepath.Join(dir, "config"), "worktree", r); wt != "" {
				if dotGit := filepath.Join(absFrom(dir, wt), ".git"); isUnder(dotGit, root) {
					g.add(dotGit)
				}
			}
		}
		return nil
	})
}

// skipInModules are the folders of a git folder that hold no submodule.
var skipInModules = map[string]bool{"objects": true, "refs": true, "logs": true, "hooks": true, "info": true, "worktrees": true}

// hooksPath reads core.hooksPath from a git config file, or "".
func hooksPath(config string, r *reads) string { return coreValue(config, "hooksPath", r) }

// linkedBack tells whether gitDir, which root's .git file names, names
// root back as git's own do: a worktree's folder, in its common folder's
// worktrees, holds a gitdir file naming root/.git; a submodule's has
// core.worktree naming root. Any command may write a .git file into a
// root that has none: it must not make another folder writable.
func linkedBack(root, gitDir, common string, r *reads) bool {
	dotGit := filepath.Join(root, ".git")
	if b, err := r.readFile(filepath.Join(gitDir, "gitdir")); err == nil {
		return sameFile(absFrom(gitDir, strings.TrimSpace(string(b))), dotGit, r) &&
			sameFile(filepath.Dir(gitDir), filepath.Join(common, "worktrees"), r)
	}
	wt := coreValue(filepath.Join(gitDir, "config"), "worktree", r)
	return wt != "" && common == gitDir && sameFile(absFrom(gitDir, wt), root, r)
}

// sameFile tells whether a and b are the same existing file.
func sameFile(a, b string, r *reads) bool {
	fa, err := r.stat(a)
	if err != nil {
		return false
	}
	fb, err := r.stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// coreValue reads a key of the core section from a git config file, or "".
func coreValue(config, key string, r *reads) string {
	values := configValues(config, "core", key, r)
	if len(values) == 0 {
		return ""
	}
	return values[len(values)-1]
}

// configValues reads every value of a key in the sections of a git config
// file named section (includeIf "gitdir:..." is includeif).
func configValues(config, section, key string, r *reads) []string {
	f, err := r.open(config)
	if err != nil {
		return nil
	}
	defer f.Close()
	var in string
	var values []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			name, _, _ := strings.Cut(strings.Trim(line, "[]"), " ")
			in = strings.ToLower(name)
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && in == section && strings.EqualFold(strings.TrimSpace(k), key) {
			values = append(values, strings.Trim(strings.TrimSpace(v), `"`))
		}
	}
	return values
}

// maxIncluded bounds the config files followed through their includes.
const maxIncluded = 32

// included are the files that configs include (include.path, every
// includeIf's path, whatever its condition), and those they include in
// turn: git reads them as config. A relative path is the including
// file's folder's, "~/" is home.
func included(configs []string, home string, r *reads) []string {
	var out []string
	seen := map[string]bool{}
	for len(configs) > 0 && len(out) < maxIncluded {
		config := configs[0]
		configs = configs[1:]
		for _, section := range []string{"include", "includeif"} {
			for _, p := range configValues(config, section, "path", r) {
				if p = expandIncluded(p, filepath.Dir(config), home); p != "" && !seen[p] && !isFolder(p, r) {
					seen[p] = true
					out, configs = append(out, p), append(configs, p)
				}
			}
		}
	}
	return out
}

// isFolder tells whether path is a folder: an include naming one is
// refused by git, and protecting it would make the folder read-only.
func isFolder(path string, r *reads) bool {
	fi, err := r.stat(path)
	return err == nil && fi.IsDir()
}

func expandIncluded(p, dir, home string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home == "" {
			return ""
		}
		return filepath.Join(home, rest)
	}
	return absFrom(dir, p)
}

// expandHooksPath makes a hooks path absolute as git does: "~/" is home,
// a relative path is the work tree's.
func expandHooksPath(p, root, home string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	return absFrom(root, p)
}

// gitDirs finds the repository's git folder and its common folder (where
// hooks and config are): root/.git itself, or where a .git file points
// (and, for a worktree, its commondir).
func gitDirs(root string, r *reads) (gitDir, common string) {
	dotGit := filepath.Join(root, ".git")
	fi, err := r.lstat(dotGit)
	if err != nil || fi.IsDir() || !fi.Mode().IsRegular() {
		return dotGit, dotGit
	}
	gitDir = readGitFile(dotGit, r)
	if gitDir == "" {
		return dotGit, dotGit
	}
	common = gitDir
	if b, err := r.readFile(filepath.Join(gitDir, "commondir")); err == nil {
		common = absFrom(gitDir, strings.TrimSpace(string(b)))
	}
	return gitDir, common
}

// readGitFile reads "gitdir: PATH" from a .git file.
func readGitFile(path string, r *reads) string {
	f, err := r.open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	dir, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return ""
	}
	return absFrom(filepath.Dir(path), strings.TrimSpace(dir))
}

func absFrom(base, path string) string {
	if !filepath.IsAbs(path) {
		path = filepath.Join(base, path)
	}
	return filepath.Clean(path)
}
