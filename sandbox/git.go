package sandbox

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// gitProtected are the paths of the repository at root whose change would
// run a program at the user's next git command: its hooks, wherever
// core.hooksPath puts them (husky puts them in the project), its config
// (core.fsmonitor, aliases, the hooks path itself), and the same for each
// submodule's git folder. A repository whose .git is a file (a worktree,
// a submodule) has them where the file points, and the file itself is
// protected so that it cannot be pointed elsewhere.
func gitProtected(root, home string, r *reads) []string {
	gitDir, common := gitDirs(root, r)
	var out []string
	if gitDir != filepath.Join(root, ".git") {
		out = append(out, filepath.Join(root, ".git"))
	}
	out = append(out, hooksAndConfig(common)...)
	if gitDir != common {
		out = append(out, filepath.Join(gitDir, "config.worktree"))
	}
	if hp := hooksPath(filepath.Join(common, "config"), r); hp != "" {
		out = append(out, expandHooksPath(hp, root, home)+"/")
	}
	return append(out, submodules(common, r)...)
}

func hooksAndConfig(gitDir string) []string {
	return []string{filepath.Join(gitDir, "hooks") + "/", filepath.Join(gitDir, "config")}
}

// submodules are the hooks and config of every submodule's git folder
// under .git/modules (nested ones too): a folder with a HEAD is one.
func submodules(common string, r *reads) []string {
	var out []string
	r.walkDir(filepath.Join(common, "modules"), func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.IsDir() && (d.Name() == "objects" || d.Name() == "refs" || d.Name() == "logs" || d.Name() == "hooks"):
			return fs.SkipDir
		case d.Name() == "HEAD" && !d.IsDir():
			out = append(out, hooksAndConfig(filepath.Dir(path))...)
		}
		return nil
	})
	return out
}

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
	f, err := r.open(config)
	if err != nil {
		return ""
	}
	defer f.Close()
	section, value := "", ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			name, _, _ := strings.Cut(strings.Trim(line, "[]"), " ")
			section = strings.ToLower(name)
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && section == "core" && strings.EqualFold(strings.TrimSpace(k), key) {
			value = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return value
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
