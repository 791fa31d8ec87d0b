package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/termhelper/termhelper/mask"
)

// Masking replaces a secret value wherever it shows whole; a value read in
// pieces (printenv KEY | grep -o ., ${KEY#????}, head -c 4) or encoded
// shows unmasked. So reading a secret variable's value in any form is a
// read of a secret.

// probeValue stands for a secret value when asking mask which names it
// masks: long enough, and no setting word such as "true".
const probeValue = "termhelper-probe-value"

// secretVar reports a variable whose value is masked in output: the names
// mask.SecretValues masks (KEY, TOKEN, SECRET, PASSWORD, CREDENTIAL in the
// name, or the config's mask_env), unless masking is off.
func (p *Policy) secretVar(name string) bool {
	if p.cfg.MaskEnvOff || name == "" {
		return false
	}
	return len(mask.SecretValues([]string{name + "=" + probeValue}, p.cfg.MaskEnv)) > 0
}

const secretWhy = ", a secret variable: masking hides its value only when it shows whole"

// askSecretVar records a read of the value of the secret variable name
// ("": of every variable). A confined command has the helper's own
// secret variables as placeholders (termhelper-masked:NAME), so the
// sandbox holds such a read; a value the request's env sets reaches the
// command as it is, and stays asked about.
func (a *analyzer) askSecretVar(part, in, why, name string) {
	class := askSoft
	for n, v := range a.reqEnv {
		if v != nil && (n == name || name == "" && a.p.secretVar(n)) {
			class = askSecret
		}
	}
	a.r.note(class, part, in, a.withWhere(why))
}

// paramRead asks about an expansion of a secret variable: $KEY, ${KEY},
// ${KEY#????}, ${#KEY}, ${KEY:0:4}, every form.
func (a *analyzer) paramRead(pe *syntax.ParamExp) {
	if pe.Param == nil || pe.Excl && pe.Names != 0 {
		return // ${!KEY*} lists names
	}
	if name := pe.Param.Value; a.p.secretVar(name) {
		a.askSecretVar(nodeText(a.src, pe), "", "reads the value of "+name+secretWhy, name)
	}
}

// arithNames asks about secret variables named bare in arithmetic, which
// evaluates their value and shows it in its errors: ((KEY)), let x=KEY,
// [[ KEY -eq 1 ]].
func (a *analyzer) arithNames(n syntax.Node) {
	syntax.Walk(n, func(n syntax.Node) bool {
		if l, ok := n.(*syntax.Lit); ok && a.p.secretVar(l.Value) {
			a.askSecretVar(l.Value, "", "evaluates the value of "+l.Value+secretWhy, l.Value)
		}
		return true
	})
}

// dumpers print every variable's value when given no name: env and
// printenv (the environment), export -p, declare -p and set (the shell's
// variables).
var dumpers = map[string]string{"env": "", "printenv": "", "export": "p", "declare": "px",
	"typeset": "px", "set": "", "readonly": "p"}

// dumpRule judges a command that prints variables' values: a secret one
// by name (printenv KEY, declare -p KEY) is a read of a secret; all of
// them only with env and printenv, which print each value as it is, and
// only when the values reach the answer whole, where masking hides the
// secret ones: straight, or through filters that pass whole lines (env |
// grep PATH, env | sort). set, export -p and declare -p quote each value,
// and a quoted value is not the value masking looks for.
func dumpRule(a *analyzer, c cmd) {
	base := cmdBase(c.words[0].text)
	names, dump := dumpArgs(base, c.words[1:])
	for _, n := range names {
		if a.p.secretVar(n.text) {
			a.askSecretVar(n.raw, c.text, "prints the value of "+n.text+secretWhy, n.text)
		}
	}
	switch {
	case dump && base != "env" && base != "printenv":
		a.askSecretVar(c.words[0].raw, c.text, "prints every variable's value quoted as the shell reads it back, "+
			"so a value holding a quote, $ or \\ shows in a form masking does not know", "")
	case dump && !a.wholeToAnswer(c):
		a.askSecretVar(c.words[0].raw, c.text, "prints every variable's value where it can be cut in pieces, which masking cannot hide", "")
	}
}

// dumpArgs splits a dumper's words into the names it prints and whether it
// prints every variable.
func dumpArgs(base string, ws []word) ([]word, bool) {
	if base == "env" {
		if _, runs := envInner(cmd{words: append([]word{{text: "env", known: true}}, ws...)}); runs {
			return nil, false
		}
		return nil, true
	}
	var names []word
	flags := ""
	for _, w := range ws {
		switch {
		case strings.HasPrefix(w.text, "-") || strings.HasPrefix(w.text, "+"):
			flags += w.text[1:]
		case !strings.Contains(w.text, "="):
			names = append(names, w)
		}
	}
	if base == "set" {
		return nil, len(ws) == 0 // set -e, set -- a b: no values shown
	}
	printing := base == "printenv" || strings.ContainsAny(flags, dumpers[base]) || flags == "" && len(ws) == 0
	if !printing {
		return nil, false
	}
	return names, len(names) == 0
}

// wholeToAnswer reports whether what c prints reaches the answer with each
// line whole: c's statement is marked so by boundStmts, and the code it is
// in reaches the answer too.
func (a *analyzer) wholeToAnswer(c cmd) bool {
	return a.outBound && c.stmt != nil && c.level == 0 && a.bound[c.stmt]
}

// psArgOpts are ps's options that take a value (which may hold an e).
const psArgOpts = "-o -O -p -u -U -g -G -t -q -C -s -k --pid --ppid --sort --format --user --group --sid --tty -N o O p U t k"

// psRule asks about a ps that prints the environments of processes (the
// user's other programs hold secrets in theirs, and no mask knows them):
// BSD-style e (ps e, ps eww, ps auxe), -E (macOS), -e on the BSDs, an
// environ format.
func psRule(a *analyzer, c cmd) {
	ws := c.words[1:]
	for _, w := range ws {
		// The environ format however it is given: -o environ, -Ao
		// pid,environ, -oenviron, axopid,environ, --format=environ.
		if strings.Contains(w.text, "environ") {
			a.askSecret(w.raw, c.text, "prints the environments of processes, which hold secrets")
			return
		}
	}
	for i := 0; i < len(ws); i++ {
		t := ws[i].text
		switch {
		case strings.Contains(t, unknown):
			a.askSoft(ws[i].raw, c.text, "options that cannot be known before running may make ps print environments")
			return
		case hasField(psArgOpts, t):
			if i+1 < len(ws) && strings.Contains(ws[i+1].text, "environ") {
				t = "e"
			} else {
				i++
				continue
			}
		}
		if a.p.psEnvOption(t) {
			a.askSecret(ws[i].raw, c.text, "prints the environments of processes, which hold secrets")
			return
		}
		if len(t) > 2 && t[0] == '-' && t[1] != '-' && strings.ContainsRune("oOpuUgGtqCsk", rune(t[len(t)-1])) {
			i++ // -eo FORMAT: the group's last option takes the next word
		}
	}
}

// psEnvOption reports one ps word that shows environments.
func (p *Policy) psEnvOption(t string) bool {
	bsdE := p.goos == "freebsd" || p.goos == "openbsd" || p.goos == "netbsd" || p.goos == "dragonfly"
	switch {
	case strings.HasPrefix(t, "--"):
		return strings.Contains(t, "environ")
	case strings.HasPrefix(t, "-"):
		return strings.Contains(t, "E") || bsdE && strings.Contains(t, "e")
	}
	return t == "e" || isLetters(t) && strings.Contains(t, "e")
}

func isLetters(t string) bool {
	for i := 0; i < len(t); i++ {
		if !isLetter(t[i]) {
			return false
		}
	}
	return t != ""
}
