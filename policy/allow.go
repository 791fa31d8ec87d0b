package policy

import (
	"strings"
)

// builtinsAllowed only change the shell's own state for the rest of the line
// (the next command starts afresh in the root), or print what the shell
// or the system already shows, or wait: asking about them would only teach
// people to click "allow" without reading. They need no allow entry. What
// they read or assign is still judged: read and printf -v set variables
// (read PATH asks as PATH=x does), set alone prints every variable.
var builtinsAllowed = map[string]bool{
	"cd": true, "pushd": true, "popd": true, "true": true, "false": true,
	":": true, "test": true, "[": true,
	// What bash reads as [[ ]], a POSIX sh reads as a command named [[,
	// which does not exist: harmless either way.
	"[[":   true,
	"exit": true, "return": true, "break": true, "continue": true, "shift": true,
	"wait": true, "sleep": true, "read": true, "printf": true, "type": true,
	"jobs": true, "times": true, "dirs": true, "set": true, "unset": true,
	"basename": true, "dirname": true, "seq": true, "nproc": true, "expr": true,
	"id": true, "tty": true, "clear": true,
}

// checkAllowed asks about c unless its name (and leading words) match an
// allow entry and it does nothing that writes.
func (a *analyzer) checkAllowed(c cmd, name string) {
	if builtinsAllowed[name] || name == "command" && len(c.words) > 1 && hasField("-v -V", c.words[1].text) {
		return
	}
	if !a.onAllowList(c) {
		a.askSoft(c.words[0].raw, c.text, "not on the allow list")
		return
	}
	if check := writeChecks[cmdBase(name)]; check != nil {
		if part, why := check(c); why != "" {
			a.askSoft(part, c.text, why)
		}
	}
	if c.extra {
		a.askSoft(c.words[0].raw, c.text, "gets arguments that cannot be known before running")
	}
}

func (a *analyzer) onAllowList(c cmd) bool {
	for _, e := range a.allow {
		if matchEntry(e, c.words) {
			return true
		}
	}
	for _, e := range a.always {
		if matchAlways(e, c.words) {
			return true
		}
	}
	return false
}

func splitEntries(list []string) [][]string {
	out := make([][]string, 0, len(list))
	for _, e := range list {
		if f := strings.Fields(e); len(f) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// matchEntry reports whether words start with the entry's words. The name
// matches exactly; a path matches an entry by its base name only when it is
// a system program (/usr/bin/ls is ls, ./ls is not).
func matchEntry(entry []string, words []word) bool {
	if len(entry) == 0 || len(words) < len(entry) {
		return false
	}
	if !matchName(entry[0], words[0].text) {
		return false
	}
	for i, e := range entry[1:] {
		w := words[i+1]
		if !w.known || w.glob || w.text != e {
			return false
		}
	}
	return true
}

var systemBinDirs = []string{"/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/",
	"/usr/sbin/", "/opt/homebrew/bin/", "/run/current-system/sw/bin/"}

func matchName(entry, name string) bool {
	if entry == name {
		return true
	}
	if strings.Contains(entry, "/") || !strings.Contains(name, "/") {
		return false
	}
	for _, d := range systemBinDirs {
		if rest, ok := strings.CutPrefix(name, d); ok && rest == entry {
			return true
		}
	}
	return false
}

// writeChecks find the options by which a command of the default allow list
// (or one often added to it) writes, deletes or runs something. They return
// the offending part and why, or "" when the command only reads.
var writeChecks = map[string]func(c cmd) (string, string){
	"find": findWrites,
	"tree": optionWrites("writes its output to a file", "-o", "--output", "-R"),
	"file": optionWrites("compiles a magic file", "-C", "--compile"),
	"date": dateWrites,
	"env":  envWrites,
	"sort": optionWrites("writes its output to a file", "-o", "--output"),
	"uniq": uniqWrites,
}

// optionWrites flags any of opts, alone, with "=value", or as a letter
// inside a group of short options ("-fo").
func optionWrites(why string, opts ...string) func(c cmd) (string, string) {
	return func(c cmd) (string, string) {
		for _, w := range c.words[1:] {
			if w.text == "--" {
				break
			}
			for _, o := range opts {
				if hasOption(w.text, o) {
					return w.raw, why
				}
			}
		}
		return "", ""
	}
}

func hasOption(arg, opt string) bool {
	if arg == opt || strings.HasPrefix(arg, opt+"=") {
		return true
	}
	if len(opt) == 2 && len(arg) > 1 && arg[0] == '-' && arg[1] != '-' {
		return strings.ContainsRune(arg[1:], rune(opt[1]))
	}
	return false
}

// findActions are the find primaries that delete, run or write.
var findActions = map[string]string{
	"-delete": "deletes what it finds", "-exec": "runs a command", "-execdir": "runs a command",
	"-ok": "runs a command", "-okdir": "runs a command", "-fprint": "writes a file",
	"-fprint0": "writes a file", "-fprintf": "writes a file", "-fls": "writes a file",
}

func findWrites(c cmd) (string, string) {
	for _, w := range c.words[1:] {
		if why, ok := findActions[w.text]; ok {
			return w.raw, why
		}
		if !w.known && !w.glob {
			return w.raw, "an argument that cannot be known could be -delete or -exec"
		}
	}
	return "", ""
}

// dateWrites flags setting the clock: -s, or an operand not starting with +.
func dateWrites(c cmd) (string, string) {
	ws := c.words[1:]
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		switch {
		case hasOption(w.text, "-s") || hasOption(w.text, "--set"):
			return w.raw, "sets the clock"
		case dateArgOpts[w.text]:
			i++ // the option's argument, a date to show, not to set
		case !strings.HasPrefix(w.text, "-") && !strings.HasPrefix(w.text, "+"):
			return w.raw, "sets the clock"
		}
	}
	return "", ""
}

var dateArgOpts = map[string]bool{"-d": true, "--date": true, "-f": true, "--file": true,
	"-r": true, "--reference": true, "-z": true, "-v": true, "-j": false}

// envWrites allows env only for printing the environment.
func envWrites(c cmd) (string, string) {
	if _, ok := envInner(c); ok {
		return c.words[0].raw, "env runs another command"
	}
	for _, w := range c.words[1:] {
		if hasOption(w.text, "-S") || hasOption(w.text, "--split-string") {
			return w.raw, "env runs another command"
		}
	}
	return "", ""
}

// uniqWrites flags uniq's second operand, its output file.
func uniqWrites(c cmd) (string, string) {
	if ops := operands(c.words[1:]); len(ops) > 1 {
		return ops[1].raw, "writes its output to a file"
	}
	return "", ""
}
