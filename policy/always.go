package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// AlwaysName returns the entry "always" persists for command: the name of
// its first simple command past wrappers and builtins (timeout 60 npm test
// and cd web && npm test are about npm) and, for a program with
// subcommands, the subcommand past global options: "npm install" for npm
// --prefix web install lodash, "git status" for git -C sub status, "make
// build test" for make -j4 build test. It returns "" when there is no such
// command, or when what it names cannot be known before running ($CMD, npm
// $SUB), or for a program with subcommands run without one (make): the
// bare name would approve every use of the program.
func AlwaysName(command string) string {
	f, err := parse(command)
	if err != nil {
		return ""
	}
	a := &analyzer{r: &report{}, env: &shellEnv{vars: map[string]string{}}, src: command}
	var key []string
	done := false
	syntax.Walk(f, func(n syntax.Node) bool {
		s, ok := n.(*syntax.Stmt)
		if !ok || done {
			return !done
		}
		call, ok := s.Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		ch := a.chain(a.newCmd(s, call))
		last := ch[len(ch)-1]
		if len(last.words) > 0 && builtinsAllowed[last.words[0].text] {
			return true // "cd web && npm test" is about npm
		}
		key, _ = commandKey(last.words)
		if base := cmdBase(last.words[0].text); isInterpreter(base) || isShell(base) {
			key = scriptKey(last.words)
		}
		done = true
		return false
	})
	if len(key) == 0 || key[0] == "" {
		return ""
	}
	if _, tool := subTools[cmdBase(key[0])]; tool && len(key) == 1 {
		return ""
	}
	return strings.Join(key, " ")
}

// scriptOpts may come before the script an interpreter runs without
// changing what runs: buffering, warnings, optimisation, quiet.
const scriptOpts = "-u -B -O -OO -q -s -S -E -I -P --no-warnings --enable-source-maps --trace-warnings" +
	" --trace-uncaught --no-deprecation -w -W -x -e -o"

// scriptKey is what "always" remembers of an interpreter or shell: the
// script or module it runs (python3 tools/gen.py, python3 -m pytest, bash
// build.sh), so that approving one script approves no other. Code given
// inline (python3 -c, node -e, bash -c) or on stdin gets no entry: the
// next piece of code is another program, and "always" counts as "allow"
// that once.
func scriptKey(ws []word) []string {
	key := []string{ws[0].text}
	shell := isShell(cmdBase(ws[0].text))
	for i := 1; i < len(ws); i++ {
		t := ws[i].text
		switch {
		case !ws[i].known || ws[i].glob:
			return nil
		case t == "-m" && !shell && i+1 < len(ws) && ws[i+1].known:
			return append(key, t, ws[i+1].text)
		case !strings.HasPrefix(t, "-") || t == "-":
			if t == "-" || isStdinPath(t) {
				return nil
			}
			return append(key, t)
		case !hasField(scriptOpts, t) || shell && strings.ContainsAny(t, "cs") || !shell && (t == "-e" || t == "-x" || t == "-o"):
			return nil // -c, -e, -r, -p, -i... or an option that may take the next word
		}
	}
	return nil
}

// matchAlways reports whether an entry from the "always" store allows the
// command words. A one-word entry is a name, as all entries were before
// subcommands were remembered: it allows every use of the program. A longer
// entry for a program with subcommands allows exactly that subcommand: the
// command's key (commandKey) must be the entry, so "npm install" allows npm
// install lodash but not npm publish, and "make test" not make test deploy.
func matchAlways(entry []string, ws []word) bool {
	if len(entry) == 0 || len(ws) == 0 {
		return false
	}
	if len(entry) == 1 {
		return matchName(entry[0], ws[0].text)
	}
	if _, tool := subTools[cmdBase(entry[0])]; !tool {
		return matchEntry(entry, ws) // written by hand: a word prefix, like the config's
	}
	key, exact := commandKey(ws)
	if !exact || len(key) != len(entry) || !matchName(entry[0], key[0]) {
		return false
	}
	for i := 1; i < len(key); i++ {
		if key[i] != entry[i] {
			return false
		}
	}
	return true
}
