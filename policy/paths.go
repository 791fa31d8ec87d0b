package policy

import (
	"path"
	"strings"

	"github.com/termhelper/termhelper/config"
)

// targetKind says how much a delete or permission change would reach.
type targetKind int

const (
	notBroad       targetKind = iota
	kindEscape                // a folder outside the root, reached with ..
	kindRootAll               // * at the root: everything in it
	kindRoot                  // the root itself or a folder containing it
	kindHome                  // the home folder or a folder containing it
	kindSystem                // / and the system's top folders
	kindEverything            // the whole file system
)

// broad classifies a delete target. A target that starts with a variable
// that may be empty ("$DIR/*") is judged as if it were empty, since that is
// how such a line wipes / when DIR is unset.
func (a *analyzer) broad(w word) (targetKind, string) {
	if w.leadVar != "" {
		alt := w
		alt.text, alt.leadVar = strings.TrimPrefix(w.text, unknown), ""
		if k, why := a.broad(alt); k != notBroad {
			return k, why + " when " + w.leadVar + " is empty or unset"
		}
	}
	t := w.text
	if t == "" || strings.Contains(t, unknown) {
		return notBroad, ""
	}
	if isDriveRoot(t) {
		return kindEverything, "a whole drive"
	}
	dir, all := t, false
	if w.glob {
		d, b := path.Split(t)
		if !matchesAll(b) || strings.ContainsAny(d, "*?[") {
			return a.globMatchesPlace(t)
		}
		dir, all = d, true
		if dir == "" {
			dir = "."
		}
	}
	kind, why := a.classify(dir)
	if alt := a.linkedTarget(dir); alt != "" {
		if k, w := a.classify(alt); k > kind {
			kind, why = k, w+" (through a symbolic link)"
		}
	}
	switch {
	case !all:
		return kind, why
	case kind == kindRoot && why == "the project root":
		return kindRootAll, "everything in the project root"
	case kind != notBroad:
		return kind, "everything in " + why
	}
	return notBroad, ""
}

// globMatchesPlace classifies a glob by the broadest place no command
// may delete that it could match: /hom?/u is the home folder, /??? the
// system's top folders, /srv/*/proj the root.
func (a *analyzer) globMatchesPlace(glob string) (targetKind, string) {
	if a.env.cwd == "" && !isAbsPath(glob) {
		return notBroad, ""
	}
	glob = joinPath(a.env.cwd, glob)
	d, b := path.Split(glob)
	kind, why := notBroad, ""
	for _, place := range a.places() {
		k, w := notBroad, ""
		if ok, _ := path.Match(glob, place); ok {
			k, w = a.classify(place)
		} else if ok, _ := path.Match(path.Clean(d), place); ok && matchesAll(b) {
			// /hom?/*: everything in a place.
			if k, w = a.classify(place); k == kindRoot && place == a.p.root {
				k = kindRootAll
			}
			w = "everything in " + w
		}
		if k > kind {
			kind, why = k, w+" (the pattern matches "+place+")"
		}
	}
	return kind, why
}

// places are the folders a delete must never reach: the file system's
// root, its top folders, and every folder on the way to the root and the
// home folder.
func (a *analyzer) places() []string {
	out := []string{"/"}
	for top := range systemTops {
		out = append(out, "/"+top)
	}
	for _, p := range []string{a.p.root, a.env.homeDir()} {
		for ; p != "/" && p != "." && p != ""; p = path.Dir(p) {
			out = append(out, p)
		}
	}
	return out
}

// linkedTarget is where a delete of p acts when a symbolic link on the way
// leads elsewhere (links/home/* is the home folder's content), or "".
func (a *analyzer) linkedTarget(p string) string {
	if a.env.cwd == "" && !isAbsPath(p) {
		return ""
	}
	real := a.p.logical(kernelParent(a.env.cwd, p))
	if real == joinPath(a.env.cwd, p) {
		return ""
	}
	return real
}

// classify places a path (relative to the working directory) among the
// places no command may delete.
func (a *analyzer) classify(p string) (targetKind, string) {
	rel := !path.IsAbs(p)
	if rel && a.env.cwd == "" {
		c := path.Clean(p)
		if c == "." || c == ".." || strings.HasPrefix(c, "../") {
			return kindRoot, "the working folder, which an earlier cd makes unknown"
		}
		return notBroad, ""
	}
	p = joinPath(a.env.cwd, p)
	root, home := a.p.root, a.env.homeDir()
	switch {
	case isDriveRoot(p):
		return kindEverything, "a whole drive"
	case p == "/":
		return kindEverything, "the whole file system"
	case p == root:
		return kindRoot, "the project root"
	case home != "" && p == home:
		return kindHome, "the home folder"
	case inside(p, root):
		return kindRoot, "a folder that contains the project root"
	case home != "" && inside(p, home):
		return kindHome, "a folder that contains the home folder"
	case isSystemDir(p):
		return kindSystem, "a system folder"
	case rel && !inside(root, p):
		return kindEscape, "a folder outside the project root"
	}
	return notBroad, ""
}

// inside reports whether p is dir or lies under it.
func inside(dir, p string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// systemTops, in lower case: macOS and Windows name them without regard
// to case.
var systemTops = map[string]bool{
	"usr": true, "etc": true, "var": true, "opt": true, "home": true, "users": true,
	"system": true, "library": true, "applications": true, "private": true, "nix": true,
	"snap": true, "boot": true, "lib": true, "bin": true, "sbin": true, "proc": true,
	"sys": true, "dev": true, "root": true, "srv": true, "volumes": true,
	"windows": true, "program files": true, "program files (x86)": true, "programdata": true,
}

// isSystemDir: any top folder (/etc, /tmp, C:/Windows), and the second
// level of the system's own trees (/usr/local, /home/bob, /Users/bob,
// C:/Users/bob).
func isSystemDir(p string) bool {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) > 1 && isDriveRoot(parts[0]) {
		parts = parts[1:]
	}
	switch len(parts) {
	case 1:
		return true
	case 2:
		return systemTops[strings.ToLower(parts[0])]
	}
	return false
}

func isDriveRoot(t string) bool {
	t = strings.TrimRight(t, `/\`)
	return len(t) == 2 && t[1] == ':' && isLetter(t[0])
}

// matchesAll reports a glob that matches every name in a folder: *, .*, *.*
func matchesAll(b string) bool {
	return strings.Contains(b, "*") && strings.Trim(b, "*?.") == ""
}

// protector matches paths against protected path patterns: the write
// protector (config's protected paths and lock files) and the read
// protector (secrets, see newReadProtector).
type protector struct {
	patterns []protPattern
	// globAll: a glob that matches every name (*) is judged too. Writes
	// leave it to the broad-target rules; a read of * could read a key.
	globAll bool
	fold    bool // match without regard to case (foldsCase)
	// win: Windows names: a trailing dot or space is dropped (.git.\config
	// is .git\config), and a short 8.3 name (GIT~1) may stand for a long
	// one. dotGlob: a * matches a leading dot, as in cmd.exe and
	// PowerShell.
	win, dotGlob bool
}

type protPattern struct {
	raw    string
	parts  []string // path elements of the pattern
	dir    bool     // "x/": the folder and everything in it
	anchor string   // "" for a name matched at any depth; else the folder it is relative to
}

func newProtector(pc config.PolicyConfig, root, home, userDir string, fold bool) *protector {
	pr := &protector{fold: fold}
	for _, raw := range append(append([]string(nil), pc.ProtectedPaths...), pc.LockFiles...) {
		pr.add(raw, root, home)
	}
	if userDir != "" {
		// The "always" list and the user's config: a command that wrote them
		// could allow itself.
		pr.add(userDir+"/", root, home)
	}
	return pr
}

func (pr *protector) add(raw, root, home string) {
	p := protPattern{raw: raw, dir: strings.HasSuffix(raw, "/")}
	s := strings.Trim(raw, "/")
	switch {
	case strings.HasPrefix(raw, "~/"):
		p.anchor, s = home, strings.TrimPrefix(s, "~/")
	case strings.HasPrefix(raw, "/") || isAbsPath(raw):
		p.anchor = "/" // C:/x too: its first element is C:
	case strings.Contains(s, "/"):
		p.anchor = root
	}
	if s == "" {
		return
	}
	if pr.fold {
		s, p.anchor = strings.ToLower(s), strings.ToLower(p.anchor)
	}
	p.parts = strings.Split(s, "/")
	pr.patterns = append(pr.patterns, p)
}

// foldsCase: macOS and Windows file systems find .ENV as .env.
func foldsCase(goos string) bool { return goos == "darwin" || goos == "windows" }

// isAbsPath is path.IsAbs, and a Windows drive path (C:/Users) too.
func isAbsPath(p string) bool {
	return path.IsAbs(p) || len(p) >= 3 && p[1] == ':' && isLetter(p[0]) && (p[2] == '/' || p[2] == '\\')
}

// match returns the pattern a write to target would touch, or "". target is
// the path as written; cwd may be "" (unknown), then only patterns that
// match at any depth can be checked.
func (pr *protector) match(target, cwd string) string {
	if target == "" {
		return ""
	}
	if pr.fold {
		target, cwd = strings.ToLower(target), strings.ToLower(cwd)
	}
	abs := target
	if !isAbsPath(target) {
		if cwd == "" {
			abs = ""
		} else {
			abs = joinPath(cwd, target)
		}
	} else {
		abs = path.Clean(target)
	}
	if pr.win {
		target, abs = winElems(target), winElems(abs)
	}
	rel := strings.Split(path.Clean(target), "/")
	for _, p := range pr.patterns {
		if p.anchor == "" && pr.anyDepth(p, rel) || p.anchor == "" && abs != "" && pr.anyDepth(p, strings.Split(abs, "/")) {
			return p.raw
		}
		if p.anchor != "" && abs != "" && pr.anchored(p, abs) {
			return p.raw
		}
	}
	return ""
}

// under returns an anchored pattern whose place lies inside the folder dir
// (grep -r x ~ reads ~/.ssh), or "". Patterns matched at any depth could be
// anywhere and are not looked for.
func (pr *protector) under(dir string) string {
	for _, p := range pr.patterns {
		if p.anchor == "" {
			continue
		}
		loc := strings.TrimSuffix(p.anchor, "/")
		for _, part := range p.parts {
			if strings.ContainsAny(part, "*?[") {
				break
			}
			loc += "/" + part
		}
		if inside(dir, loc) {
			return p.raw
		}
	}
	return ""
}

// anyDepth matches a pattern without a folder part against every position
// of the path: ".env*" matches "config/.env.local", ".git/" matches
// ".git/hooks/pre-commit".
func (pr *protector) anyDepth(p protPattern, elems []string) bool {
	for i := range elems {
		rest := elems[i:]
		if len(rest) < len(p.parts) || !p.dir && len(rest) != len(p.parts) {
			continue
		}
		if pr.elemsMatch(p.parts, rest) {
			return true
		}
	}
	return false
}

func (pr *protector) anchored(p protPattern, abs string) bool {
	base := strings.Split(strings.Trim(p.anchor, "/"), "/")
	if p.anchor == "/" {
		base = nil
	}
	elems := strings.Split(strings.Trim(abs, "/"), "/")
	if len(elems) < len(base) || !pr.elemsMatch(base, elems) {
		return false
	}
	rest := elems[len(base):]
	if len(rest) < len(p.parts) || !p.dir && len(rest) != len(p.parts) {
		return false
	}
	return pr.elemsMatch(p.parts, rest)
}

func (pr *protector) elemsMatch(pats, elems []string) bool {
	for i, pat := range pats {
		if !pr.elemMatch(pat, elems[i]) {
			return false
		}
	}
	return true
}

// elemMatch matches one path element against one pattern element. The
// element may itself be a glob the shell expands ("> .en*"): then it
// matches when it could name what the pattern protects, tried on two
// sample names the pattern matches (".env" and ".envx" for ".env*").
func (pr *protector) elemMatch(pat, elem string) bool {
	if strings.Contains(elem, unknown) {
		return pat == "*" // /proc/$$/environ is /proc/*/environ
	}
	if ok, _ := path.Match(pat, elem); ok {
		return true
	}
	if pr.win && shortName.MatchString(elem) {
		for _, g := range shortGlobs(elem) {
			if pr.elemMatch(pat, g) {
				return true
			}
		}
	}
	if !strings.ContainsAny(elem, "*?[") || matchesAll(elem) && !pr.globAll {
		return false // a plain name, or a * that the broad-target rules judge
	}
	for _, star := range []string{"", "x"} {
		probe := strings.NewReplacer("*", star, "?", "x", "[", "", "]", "").Replace(pat)
		if strings.HasPrefix(probe, ".") && !strings.HasPrefix(elem, ".") && !pr.dotGlob {
			continue // the shell's * does not match a leading dot
		}
		if ok, _ := path.Match(elem, probe); ok {
			return true
		}
	}
	return false
}

// shortName is a Windows 8.3 name made for a longer one: up to six
// characters, ~ and a number, and up to three of the extension.
var shortName = lazyRegexp(`(?i)^([^~./]{1,6})~[0-9]+(?:\.([^.]{1,3}))?$`)

// shortGlobs are patterns matching the long names a short 8.3 name may
// stand for: its characters start the name and the extension, and a
// leading dot of the long name is left out of the short one.
func shortGlobs(elem string) []string {
	m := shortName.FindStringSubmatch(elem)
	g := m[1] + "*"
	if m[2] != "" {
		g += "." + m[2] + "*"
	}
	return []string{g, "." + g}
}

// winElems drops what Windows drops from each path element: trailing
// dots and spaces.
func winElems(p string) string {
	parts := strings.Split(p, "/")
	for i, e := range parts {
		if t := strings.TrimRight(e, ". "); t != "" {
			parts[i] = t
		}
	}
	return strings.Join(parts, "/")
}
