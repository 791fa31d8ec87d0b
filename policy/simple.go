package policy

import (
	"path"
	"strings"
)

// maxWrappers bounds how many wrappers (env nice timeout ...) are peeled off
// one simple command.
const maxWrappers = 16

// simple judges one simple command, then the command it wraps, if any.
func (a *analyzer) simple(c cmd) {
	if c.level > maxWrappers {
		a.ask(c.text, "", "too many nested wrapper commands to judge")
		return
	}
	if len(c.words) == 0 {
		a.assignOnly(c)
		return
	}
	a.checkRisky(c)
	a.zshWords(c)
	name := c.words[0]
	if !name.known || name.glob {
		a.unknownName(c)
		return
	}
	a.judgeKnown(c)
}

// checkRisky asks about expansions that can run code hidden in a
// variable's value (bash evaluates $((x)), ${!x} and ${a[$i]} recursively).
func (a *analyzer) checkRisky(c cmd) {
	for _, w := range c.words {
		if w.risky {
			a.askSoft(w.raw, c.text, "expands a variable in a way that can run commands hidden in its value")
		}
	}
	for _, as := range c.assigns {
		if as.val.risky {
			a.askSoft(as.raw, c.text, "expands a variable in a way that can run commands hidden in its value")
		}
	}
}

// judgeKnown applies the deny rules, the wrapped command and the allow list
// to a command whose name is known (or assumed, see unknownName).
func (a *analyzer) judgeKnown(c cmd) {
	base := cmdBase(c.words[0].text)
	for _, as := range c.assigns {
		a.checkAssign(as, c.text)
	}
	a.configDeny(c)
	if rule := rules[base]; rule != nil {
		rule(a, c)
	} else if strings.HasPrefix(base, "mkfs") {
		denyName(a, c)
	}
	if base == "cd" || base == "pushd" || base == "popd" {
		a.cd(c)
	}
	if name := c.words[0].text; strings.Contains(name, "/") {
		a.ranDownloaded(c, c.words[0])
	}
	a.leaves(c)
	if inner, ok := a.inner(c); ok {
		a.simple(inner)
	}
	if !a.guessing {
		a.checkReads(c)
	}
	a.checkAllowed(c, c.words[0].text)
}

// unknownName handles a command name that only exists at run time. It is
// never allowed; where the line itself suggests a value (a glob, the default
// of ${X:-word}, a variable set earlier) that value is judged too, so that
// s?do or ${X:-sudo} are denied like sudo.
func (a *analyzer) unknownName(c cmd) {
	name := c.words[0]
	if name.glob {
		a.askSoft(name.raw, c.text, "the command name is a pattern the shell expands")
	} else {
		a.askSoft(name.raw, c.text, "the command name cannot be known before running")
	}
	switch {
	case a.guessing:
		// Already judging a guessed name: guessing again for the wrapped
		// command would multiply the work with every word (* * * *).
	case name.glob && !strings.Contains(name.text, unknown):
		for _, cand := range globCandidates(name.text) {
			a.judgeAs(c, cand)
		}
	case !strings.Contains(name.text, unknown) && name.text != "":
		a.judgeAs(c, name.text)
	}
}

// judgeAs judges c as if its name were value, keeping only denials: the
// real name is unknown, so nothing learnt here may allow it.
func (a *analyzer) judgeAs(c cmd, value string) {
	sub := *a
	sub.r, sub.guessing = &report{}, true
	w := c.words[0]
	w.text, w.known, w.glob = value, true, false
	c.words = append([]word{w}, c.words[1:]...)
	sub.judgeKnown(c)
	for _, d := range sub.r.deny {
		a.r.deny = appendOnce(a.r.deny, d)
	}
}

// globCandidates are the dangerous names a glob in command position could
// match (/usr/bin/su?o).
func globCandidates(pattern string) []string {
	base := pattern
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	var out []string
	for _, name := range dangerousNames() {
		if ok, _ := path.Match(base, name); ok {
			out = append(out, name)
		}
	}
	return out
}

// cmdBase is the name a deny rule knows a command by: the last path
// element, without zsh's "=" or Windows' ".exe", in lower case because
// macOS and Windows find SUDO as sudo.
func cmdBase(name string) string {
	name = strings.TrimPrefix(name, "=")
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.ToLower(name)
	return strings.TrimSuffix(name, ".exe")
}

// checkAssign asks about setting a variable that can change what runs.
// A variable of the shell alone (x=1, read x) that no command sees unless
// exported is harmless when its name is in lower case: the variables that
// steer the shell and the programs it starts are in upper case (PATH, IFS,
// BASH_ENV), except the proxy settings.
func (a *analyzer) checkAssign(as assignment, in string) {
	a.checkVar(as, in, false)
}

func (a *analyzer) checkVar(as assignment, in string, shellOnly bool) {
	if harmlessVar(as.name, as.val.text) || shellOnly && !a.env.allExport && shellLocal(as.name) {
		return
	}
	a.askSoft(as.raw, in, "sets "+as.name+", which can change what commands do")
}

// assignOnly is a line like X=1: it sets shell variables for what follows.
func (a *analyzer) assignOnly(c cmd) {
	for _, as := range c.assigns {
		a.track(as)
		a.checkVar(as, c.text, true)
	}
}

// shellLocal reports a name in lower case that no program reads from the
// environment by convention.
func shellLocal(name string) bool {
	if strings.HasSuffix(name, "_proxy") || name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func (a *analyzer) track(as assignment) {
	delete(a.env.loops, as.name) // no longer the loop's words
	if as.val.text == "" && !as.val.known {
		a.env.vars[as.name] = unknown
		return
	}
	a.env.vars[as.name] = as.val.text
}

// cd follows the working directory so that "cd / && rm -rf *" is judged in
// /. It is tracked in source order, which is conservative for subshells.
func (a *analyzer) cd(c cmd) {
	args := operands(c.words[1:])
	switch {
	case cmdBase(c.words[0].text) == "popd" || c.extra:
		a.env.cwd = ""
	case len(args) == 0:
		a.env.cwd = a.env.homeDir()
	case strings.Contains(args[0].text, unknown) || args[0].text == "-" || args[0].glob:
		a.env.cwd = ""
	case a.env.cwd != "" || path.IsAbs(args[0].text):
		a.env.cwd = joinPath(a.env.cwd, args[0].text)
	}
}

// operands drops options (words starting with "-") up to "--".
func operands(ws []word) []word {
	var out []word
	opts := true
	for _, w := range ws {
		switch {
		case opts && w.text == "--":
			opts = false
		case opts && strings.HasPrefix(w.text, "-") && w.text != "-":
		default:
			out = append(out, w)
		}
	}
	return out
}

func joinPath(dir, p string) string {
	if isAbsPath(p) {
		return path.Clean(p)
	}
	return path.Join(dir, p)
}
