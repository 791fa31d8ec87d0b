package policy

import (
	"strings"
)

// rmRule denies recursive deletes of broad targets and deletes of protected
// paths. rm itself is moved to the trash at run time; these are the deletes
// nobody should approve by a slip of the finger.
func rmRule(a *analyzer, c cmd) {
	base := cmdBase(c.words[0].text)
	recursive, targets := rmArgs(c.words[1:])
	recursive = recursive || c.extra
	for _, t := range targets {
		kind, why := a.broad(t)
		if kind != notBroad && (recursive || kind == kindEverything) && base == "rm" {
			a.deny(t.raw, c.text, "deletes "+why)
			continue
		}
		if base == "shred" && isBlockDevice(t.text) {
			a.deny(t.raw, c.text, "overwrites a block device")
		}
		if pat := a.protected(t.text, true); pat != "" {
			a.deny(t.raw, c.text, "deletes a protected path ("+pat+")")
		}
	}
}

// rmArgs splits rm's words into "is it recursive" and the operands. GNU rm
// takes options after operands too, and a word that cannot be known could
// be -r, so it counts as one.
func rmArgs(ws []word) (bool, []word) {
	recursive, opts := false, true
	var targets []word
	for _, w := range ws {
		t := w.text
		switch {
		case opts && t == "--":
			opts = false
		case opts && (t == "--recursive" || t == "--no-preserve-root"):
			recursive = true
		case opts && strings.HasPrefix(t, "--"):
		case opts && strings.HasPrefix(t, "-") && len(t) > 1 && !strings.Contains(t, unknown):
			recursive = recursive || strings.ContainsAny(t, "rR")
		default:
			if strings.HasPrefix(t, unknown) && opts {
				recursive = true
			}
			targets = append(targets, w)
		}
	}
	return recursive, targets
}

// findFilters are the tests that narrow what find acts on; without one,
// find acts on everything under its start paths.
var findFilters = map[string]bool{
	"-name": true, "-iname": true, "-path": true, "-ipath": true, "-wholename": true,
	"-iwholename": true, "-regex": true, "-iregex": true, "-newer": true, "-mtime": true,
	"-mmin": true, "-atime": true, "-amin": true, "-ctime": true, "-cmin": true,
	"-size": true, "-empty": true, "-user": true, "-group": true, "-perm": true,
	"-inum": true, "-samefile": true, "-links": true, "-lname": true, "-ilname": true,
	"-newermt": true, "-nouser": true, "-nogroup": true,
}

// findRule denies find -delete on broad start paths, and judges the
// commands of -exec with {} standing for what find finds.
func findRule(a *analyzer, c cmd) {
	starts, expr := findSplit(c.words[1:])
	filtered := false
	for _, w := range expr {
		filtered = filtered || findFilters[w.text]
	}
	for i := 0; i < len(expr); i++ {
		switch expr[i].text {
		case "-delete":
			a.findDelete(c, expr[i], starts, filtered)
		case "-exec", "-execdir", "-ok", "-okdir":
			end := findExecEnd(expr, i+1)
			a.findExec(c, expr[i+1:end], starts, filtered)
			i = end
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(expr) {
				a.writeTarget(expr[i+1], expr[i+1].raw, c.text, false)
			}
		}
	}
}

// findSplit separates find's start paths from its expression.
func findSplit(ws []word) (starts, expr []word) {
	i := 0
	for i < len(ws) && (ws[i].text == "-H" || ws[i].text == "-L" || ws[i].text == "-P" ||
		strings.HasPrefix(ws[i].text, "-O")) {
		i++
	}
	if i < len(ws) && ws[i].text == "-D" {
		i += 2
	}
	for i < len(ws) && !isFindExpr(ws[i].text) {
		starts = append(starts, ws[i])
		i++
	}
	if len(starts) == 0 {
		starts = []word{{raw: ".", text: ".", known: true}}
	}
	if i > len(ws) {
		i = len(ws)
	}
	return starts, ws[i:]
}

func isFindExpr(t string) bool {
	return strings.HasPrefix(t, "-") && len(t) > 1 || t == "(" || t == "!" || t == ")" || t == ","
}

// findExecEnd finds the ";" or "{} +" that ends an -exec.
func findExecEnd(expr []word, from int) int {
	for j := from; j < len(expr); j++ {
		if expr[j].text == ";" || expr[j].text == "+" && j > from && expr[j-1].text == "{}" {
			return j
		}
	}
	return len(expr)
}

func (a *analyzer) findDelete(c cmd, del word, starts []word, filtered bool) {
	for _, s := range starts {
		kind, why := a.broad(s)
		if kind >= kindHome || kind != notBroad && !filtered {
			a.deny(s.raw, c.text, "find -delete deletes "+why)
		}
		if pat := a.protected(s.text, true); pat != "" {
			a.deny(s.raw, c.text, "find -delete deletes a protected path ("+pat+")")
		}
	}
}

// findExec judges an -exec command once per start path, with {} as that
// path when nothing filters what is found, and as an unknown path
// otherwise.
func (a *analyzer) findExec(c cmd, words []word, starts []word, filtered bool) {
	if len(words) == 0 {
		return
	}
	subs := starts
	if filtered {
		subs = []word{{raw: "{}", text: unknown}}
	}
	for _, s := range subs {
		in := cmd{text: c.text, level: c.level + 1}
		for _, w := range words {
			if w.text == "{}" {
				s.raw = "{}"
				w = s
			}
			in.words = append(in.words, w)
		}
		a.simple(in)
	}
}

// chmodRule denies permission or owner changes of broad targets: recursive
// anywhere broad, and even one level at /, the home folder or the root.
func chmodRule(a *analyzer, c cmd) {
	base := cmdBase(c.words[0].text)
	recursive, ops := false, []word{}
	needFirst := base != "chattr" && base != "setfacl"
	for _, w := range c.words[1:] {
		t := w.text
		switch {
		case t == "--recursive" || t == "-R" || strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.Contains(t, "R"):
			recursive = true
		case strings.HasPrefix(t, "--reference"):
			needFirst = false
		case strings.HasPrefix(t, "-") && !(base == "chmod" && isModeWord(t) && needFirst && len(ops) == 0):
		default:
			ops = append(ops, w)
		}
	}
	if needFirst && len(ops) > 0 {
		ops = ops[1:]
	}
	for _, t := range ops {
		kind, why := a.broad(t)
		if kind != notBroad && (recursive || kind >= kindRoot && kind != kindRootAll) {
			a.deny(t.raw, c.text, "changes permissions or owner of "+why)
		}
	}
}

// isModeWord tells chmod's "-x" (a mode) from an option.
func isModeWord(t string) bool {
	return len(t) > 1 && strings.Trim(t[1:], "rwxXstugoa,+-=0123456789") == ""
}
