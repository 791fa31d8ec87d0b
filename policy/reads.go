package policy

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// readArgs is what a reading command's words say it reads.
type readArgs struct {
	paths     []word // files and folders it reads
	recursive bool
	follow    bool // the recursion follows the symbolic links it meets
	// content: it prints what the files it reads hold (grep -r), not only
	// their names (ls -R); filter: what its options say it skips.
	content bool
	filter  fileFilter
}

// optState is what the options seen so far have said.
type optState struct {
	ra       readArgs
	patGiven bool // an option gave the pattern (grep -e): every operand is a path
	noOps    bool // an option said the operands are not paths (jq --args)
	hidden   bool // an option said hidden files are read too (rg --hidden)
}

// parse walks the words as getopt would: options (with their values,
// separate or attached, short options grouped), then operands.
func (s readSpec) parse(ws []word) readArgs {
	var st optState
	var ops []word
	opts := true
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		t := w.text
		switch {
		case opts && t == "--":
			opts = false
		case opts && (strings.HasPrefix(t, "--") || s.whole && strings.HasPrefix(t, "-")) && len(t) > 2:
			i += s.longOption(&st, ws[i:])
		case opts && strings.HasPrefix(t, "-") && len(t) > 1 && !strings.HasPrefix(t, unknown):
			i += s.shortOptions(&st, ws[i:])
		default:
			ops = append(ops, w)
		}
	}
	ra := st.ra
	ra.paths = append(ra.paths, s.operands(ops, st)...)
	ra.recursive = ra.recursive || s.all
	ra.follow = ra.recursive && (ra.follow || s.followAll)
	ra.content = s.content
	ra.filter.skipHidden = s.skipHidden && !st.hidden
	if s.extra != nil {
		ra.paths = append(ra.paths, s.extra(ws)...)
	}
	return ra
}

// operands picks the operands that are paths.
func (s readSpec) operands(ops []word, st optState) []word {
	if s.pattern && !st.patGiven && len(ops) > 0 {
		ops = ops[1:]
	}
	if s.assigns {
		ops = slices.DeleteFunc(slices.Clone(ops), func(w word) bool { return awkAssign.MatchString(w.text) })
	}
	switch {
	case s.ops == opsNone || st.noOps:
		return nil
	case s.ops == opsFirst && len(ops) > 1:
		return ops[:1]
	case len(ops) == 0 && (st.ra.recursive || s.all || s.dot):
		return []word{{raw: ".", text: ".", known: true}}
	}
	return ops
}

// awkAssign is an awk operand that sets a variable rather than naming a file.
var awkAssign = lazyRegexp(`^[A-Za-z_][A-Za-z0-9_]*=`)

// flag notes what an option without a value says.
// An abbreviated long option counts (grep --recur): asking more is
// the safe side, except for stop, which would hide the operands.
func (s readSpec) flag(st *optState, name string) {
	st.patGiven = st.patGiven || optIn(s.patOpts, name)
	st.ra.recursive = st.ra.recursive || optIn(s.recursive, name)
	st.ra.follow = st.ra.follow || optIn(s.follow, name)
	st.noOps = st.noOps || hasField(s.stop, name)
	st.hidden = st.hidden || optIn(s.hidden, name)
}

// optIn reports whether name is one of list's options, or a long option
// abbreviating one (longName).
func optIn(list, name string) bool { return hasField(list, name) || longName(name, list) != "" }

// longOption handles --name or --name=value at ws[0] and returns how many
// more words it used.
func (s readSpec) longOption(st *optState, ws []word) int {
	name, val, eq := strings.Cut(ws[0].text, "=")
	s.flag(st, name)
	// date --f=FILE is date --file=FILE: an abbreviation that is not
	// exactly an option taking a plain value is taken as a file option.
	takes := hasField(s.args, name)
	isFile := hasField(s.files, name) || !takes && longName(name, s.files) != ""
	switch {
	case hasField(s.pairs+" "+s.pairFiles, name):
		if len(ws) > 2 && hasField(s.pairFiles, name) {
			st.ra.paths = append(st.ra.paths, ws[2])
		}
		return min(2, len(ws)-1)
	case (isFile || takes) && eq:
		v := ws[0]
		v.text = val
		s.valued(st, name, isFile, v)
		return 0
	case (isFile || takes) && len(ws) > 1:
		s.valued(st, name, isFile, ws[1])
		return 1
	}
	return 0
}

// valued notes the value v of the option name: a file it reads, or what
// a recursive read skips or keeps to (grep --exclude=GLOB).
func (s readSpec) valued(st *optState, name string, isFile bool, v word) {
	f := &st.ra.filter
	switch {
	case optIn(s.recurseValue, name) && strings.HasPrefix("recurse", v.text) && v.text != "":
		st.ra.recursive = true // grep -d recurse is grep -r
	case isFile:
		st.ra.paths = append(st.ra.paths, v)
	case strings.Contains(v.text, unknown):
	case hasField(s.include, name) && strings.HasPrefix(v.text, "!"): // rg -g '!.env*'
		f.rules = append(f.rules, fileRule{glob: v.text[1:]})
	case hasField(s.include, name):
		f.rules = append(f.rules, fileRule{glob: v.text, include: true})
	case hasField(s.exclude, name):
		f.rules = append(f.rules, fileRule{glob: v.text})
	case hasField(s.excludeDir, name):
		f.excludeDir = append(f.excludeDir, v.text)
	}
}

// shortOptions handles a group like -rnA at ws[0]; an option taking a
// value takes the rest of the group, or else the next word.
func (s readSpec) shortOptions(st *optState, ws []word) int {
	t := ws[0].text
	for j := 1; j < len(t); j++ {
		o := "-" + t[j:j+1]
		s.flag(st, o)
		isFile, takes := hasField(s.files, o), hasField(s.args, o)
		if !isFile && !takes {
			continue
		}
		if j+1 < len(t) {
			v := ws[0]
			v.text = t[j+1:]
			s.valued(st, o, isFile, v)
			return 0
		}
		if len(ws) > 1 {
			s.valued(st, o, isFile, ws[1])
			return 1
		}
	}
	return 0
}

// checkReads asks about a reading command whose paths include a protected
// path, a path outside the root, or one that cannot be known.
func (a *analyzer) checkReads(c cmd) {
	base := cmdBase(c.words[0].text)
	var ra readArgs
	if base == "find" {
		ra = findReads(c.words[1:])
	} else if spec, ok := readers[base]; ok {
		ra = spec.parse(c.words[1:])
	} else {
		return
	}
	for _, w := range ra.paths {
		a.readPath(w, w.raw, c.text, ra)
	}
}

// findReads: find reads its start paths, and with -files0-from the start
// paths listed in a file (whose lines its errors print); -L and -follow
// make it follow the links it meets.
func findReads(ws []word) readArgs {
	starts, expr := findSplit(ws)
	ra := readArgs{paths: starts, recursive: true}
	for _, w := range ws[:len(ws)-len(expr)] {
		ra.follow = ra.follow || w.text == "-L"
	}
	for i, w := range expr {
		ra.follow = ra.follow || w.text == "-follow"
		if w.text == "-files0-from" && i+1 < len(expr) {
			ra.paths = append(ra.paths, expr[i+1])
		}
	}
	return ra
}

// readDevices can be read without reading anything a person keeps.
var readDevices = lazyRegexp(`^/dev/(null|zero|stdin|tty|fd/[0-9]+|full|random|urandom)$`)

// readPath asks about one path a command reads (part names it in the
// reason). A loop variable stands for each of the loop's words.
func (a *analyzer) readPath(w word, part, in string, how readArgs) {
	if items, ok := a.env.loops[w.param]; ok && w.param != "" {
		for _, it := range items {
			a.readPath(it, part, in, how)
		}
		return
	}
	if w.tree {
		how.recursive, how.content = true, true // find . -exec cat {} + reads every file
	}
	t := w.text
	switch {
	case w.procSubst || t == "-" || readDevices.MatchString(t):
		return
	case strings.Contains(t, unknown):
		if pat := a.p.readProtect.match(t, a.env.cwd); pat != "" {
			a.askSecret(part, in, "may read a protected path: "+pat)
			return
		}
		a.askSoft(part, in, "reads a path that cannot be known before running")
		return
	case !isAbsPath(t) && a.env.cwd == "":
		if pat := a.p.readProtect.match(t, ""); pat != "" {
			a.askSecret(part, in, "reads a protected path: "+pat)
			return
		}
		a.askSoft(part, in, "reads a path in a folder that an earlier cd makes unknown")
		return
	}
	abs := joinPath(a.env.cwd, t)
	why, class := a.readWhy(t, abs, w.glob)
	if why != "" {
		a.r.note(class, part, in, a.withWhere(why))
	}
	if !how.recursive || class == askSecret {
		return
	}
	a.p.walkReasons(abs, w.glob, how, func(class askClass, why string) {
		a.r.note(class, part, in, a.withWhere(why))
	})
}

// walkReasons gives note each reason a recursive read from abs (a glob
// when glob) needs approval: the folder holds a protected path, a link
// out of the root that the read follows, or a secret file whose content
// it prints.
func (p *Policy) walkReasons(abs string, glob bool, how readArgs, note func(askClass, string)) {
	if held := p.readProtect.under(abs); held != "" {
		note(askSecret, "reads everything in "+abs+", which holds a protected path: "+held)
		return
	}
	if how.follow {
		if why, class := p.linksOut(globDir(abs, glob)); why != "" {
			note(class, why)
		}
	}
	if how.content {
		if why, class := p.secretInside(globDir(abs, glob), how.filter); why != "" {
			note(class, why)
		}
	}
}

// globDir is the folder a recursive read of a glob starts in: the part of
// the path before the first pattern character.
func globDir(abs string, glob bool) string {
	if !glob {
		return abs
	}
	if i := strings.IndexAny(abs, "*?["); i >= 0 {
		abs = path.Dir(abs[:i] + "x")
	}
	return abs
}

// readWhy says why reading t (abs once resolved) needs approval, or "",
// and whether it is a secret. An existing path is resolved as the kernel
// resolves it (kernelPath), so a link in the root to ~/.ssh/id_rsa is what
// it points to, and up/.. is the folder above where up points.
func (a *analyzer) readWhy(t, abs string, glob bool) (string, askClass) {
	if pat := a.p.readProtect.match(t, a.env.cwd); pat != "" && glob {
		return "may read a protected path (the pattern could match " + pat + ")", askSecret
	} else if pat != "" {
		return "reads a protected path: " + pat, askSecret
	}
	if !inside(a.p.root, abs) {
		return "reads a path outside the project root: " + abs, askSoft
	}
	if isGitConfig(abs) && gitCredentials(filepath.FromSlash(kernelPath("", abs))) {
		return "reads " + abs + ", which holds a credential (a token in a header or a remote's URL)", askSecret
	}
	if glob {
		return a.globWhy(abs)
	}
	if real := a.resolved(t); real != abs && real != "" {
		return a.p.throughLink(real)
	}
	return "", askSoft
}

// throughLink says why reading real, where a path inside the root leads
// through a symbolic link, needs approval, or "".
func (p *Policy) throughLink(real string) (string, askClass) {
	if pat := p.readProtect.match(real, ""); pat != "" {
		return "reads a protected path through a symbolic link: " + pat, askSecret
	}
	if !inside(p.root, real) {
		return "reads a path outside the project root through a symbolic link: " + real, askSoft
	}
	return "", askSoft
}
