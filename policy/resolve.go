package policy

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// maxLinks bounds the symbolic links one path may go through, as the
// kernel's ELOOP does.
const maxLinks = 40

// kernelPath is the file p (absolute, or relative to dir) names when a
// program opens it: resolved component by component, each symbolic link
// replaced by what it points to before the next component is looked at.
// So "up/../x", with up a link to /elsewhere/dir, is /elsewhere/x, not x
// in dir: ".." is taken after the link, as the kernel takes it. A
// component that does not exist is taken as a plain folder: an earlier
// command of the line may make it.
func kernelPath(dir, p string) string {
	if !isAbsPath(p) {
		p = dir + "/" + p
	}
	vol, done := "", ""
	todo := strings.Split(p, "/")
	links := 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch {
		case c == "" || c == ".":
			continue
		case c == "..":
			done = parentOf(done)
			continue
		case len(c) == 2 && c[1] == ':' && isLetter(c[0]) && vol == "" && done == "":
			vol = c // C: on Windows
			continue
		}
		next := done + "/" + c
		target, isLink := readLink(vol + next)
		if !isLink {
			done = next
			continue
		}
		if links++; links > maxLinks {
			return vol + path.Join(next, strings.Join(todo, "/"))
		}
		if isAbsPath(target) {
			vol, done = "", ""
		}
		todo = append(strings.Split(target, "/"), todo...)
	}
	if done == "" {
		done = "/"
	}
	return vol + done
}

// parentOf is the folder holding done ("" stands for the file system root,
// whose parent is itself).
func parentOf(done string) string {
	if d := path.Dir(done); d != "/" && d != "." {
		return d
	}
	return ""
}

// readLink reports whether p is a symbolic link, and where it points
// (with forward slashes).
func readLink(p string) (string, bool) {
	native := filepath.FromSlash(p)
	fi, err := os.Lstat(native)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return "", false
	}
	t, err := os.Readlink(native)
	if err != nil {
		return "", false
	}
	return filepath.ToSlash(t), true
}

// kernelParent resolves the folder holding p and keeps p's last component
// as written: what rm and mv act on is the link itself, not where it
// points. A trailing slash makes the last component a folder to go into,
// so it is resolved too.
func kernelParent(dir, p string) string {
	if strings.HasSuffix(p, "/") {
		return kernelPath(dir, p)
	}
	d, base := path.Split(p)
	if base == "." || base == ".." {
		return kernelPath(dir, p)
	}
	if d == "" {
		d = "."
	}
	return path.Join(kernelPath(dir, d), base)
}

// logical names a resolved path by the root and home folder as the policy
// knows them: where they themselves sit behind a link (/home -> /var/home),
// a resolved path inside them is given back under their own names.
func (p *Policy) logical(real string) string {
	for _, pair := range [][2]string{{p.realRoot, p.root}, {p.realHome, p.home}} {
		if pair[0] != pair[1] && pair[1] != "" && inside(pair[0], real) {
			return pair[1] + strings.TrimPrefix(real, pair[0])
		}
	}
	return real
}

// resolved is the file t names for the kernel when the shell is in cwd,
// under the names the policy knows ("" when cwd is unknown and t is
// relative).
func (a *analyzer) resolved(t string) string {
	if a.env.cwd == "" && !isAbsPath(t) {
		return ""
	}
	return a.p.logical(kernelPath(a.env.cwd, t))
}
