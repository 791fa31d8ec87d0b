package policy

import (
	"strings"
)

// An awk program can run commands (system(), print | "cmd", "cmd" |
// getline), write files (print > "file"), read them (getline < "file")
// and read the environment (ENVIRON). gawk --sandbox refuses all but the
// last.

// awkEffects is what an awk program does besides printing its input.
type awkEffects struct {
	runs, writes, code bool // code: loads more code (@include, @load)
	reads              []string
	readsUnknown       bool     // getline < a file named at run time
	env                []string // ENVIRON["NAME"]: the names read
	envAny             bool     // ENVIRON read some other way
}

// awkToken is one token of an awk program: an identifier or number, a
// string literal (str), or punctuation.
type awkToken struct {
	text string
	str  bool
}

// awkTokens cuts a program into tokens, leaving out comments and regular
// expression literals (whose | is no pipe).
func awkTokens(src string) []awkToken {
	var out []awkToken
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			i++
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '"':
			j := closing(src, i, '"')
			end := j
			if j-1 > i && src[j-1] == '"' {
				end = j - 1 // a string left open runs to the end
			}
			out = append(out, awkToken{text: unescape(src[i+1:end], `"\/`), str: true})
			i = j
		case c == '/' && regexHere(out):
			i = closing(src, i, '/')
		case isLetter(c) || c == '_' || c >= '0' && c <= '9':
			j := i
			for j < len(src) && (isLetter(src[j]) || src[j] == '_' || src[j] >= '0' && src[j] <= '9' || src[j] == '.') {
				j++
			}
			out = append(out, awkToken{text: src[i:j]})
			i = j
		default:
			n := 1
			if i+1 < len(src) && strings.Contains(" || >> |& && ", " "+src[i:i+2]+" ") {
				n = 2
			}
			out = append(out, awkToken{text: src[i : i+n]})
			i += n
		}
	}
	return out
}

// closing returns the index after the end of the literal opened at
// src[i] by delim, backslashes escaping.
func closing(src string, i int, delim byte) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case delim:
			return j + 1
		}
	}
	return len(src)
}

// regexHere reports whether a / after the tokens so far starts a regular
// expression rather than a division.
func regexHere(before []awkToken) bool {
	if len(before) == 0 {
		return true
	}
	last := before[len(before)-1]
	return !last.str && (strings.Contains("( , { } ; ! ~ && || \n", last.text) && len(last.text) <= 2 ||
		last.text == "print" || last.text == "printf" || last.text == "return")
}

// awkProgram reads what a program does.
func awkProgram(src string) awkEffects {
	var fx awkEffects
	ts := awkTokens(src)
	for i, t := range ts {
		if t.str {
			continue
		}
		switch t.text {
		case "system":
			fx.runs = fx.runs || next(ts, i, 1) == "("
		case "|", "|&":
			fx.runs = true
		case "@":
			fx.code = true
		case "getline":
			fx.getline(ts, i)
		case "print", "printf":
			fx.writes = fx.writes || printRedirects(ts[i+1:])
		case "ENVIRON":
			if next(ts, i, 1) == "[" && i+3 < len(ts) && ts[i+2].str && next(ts, i, 3) == "]" {
				fx.env = append(fx.env, ts[i+2].text)
			} else {
				fx.envAny = true
			}
		}
	}
	return fx
}

// next is the text of the token n after i, or "".
func next(ts []awkToken, i, n int) string {
	if i+n < len(ts) {
		return ts[i+n].text
	}
	return ""
}

// getline notes getline [var] < FILE: a read of FILE.
func (fx *awkEffects) getline(ts []awkToken, i int) {
	j := i + 1
	if j < len(ts) && !ts[j].str && ts[j].text != "<" && (isLetter(ts[j].text[0]) || ts[j].text[0] == '_') {
		j++ // the variable read into
	}
	if j >= len(ts) || ts[j].text != "<" {
		return
	}
	if j+1 < len(ts) && ts[j+1].str && (j+2 == len(ts) || !strings.Contains("+ ( [", ts[j+2].text)) {
		fx.reads = append(fx.reads, ts[j+1].text)
		return
	}
	fx.readsUnknown = true
}

// printRedirects reports a print statement (its tokens from just after
// print) whose output goes to a file: > or >> outside parentheses, to
// anything but the standard output or error.
func printRedirects(ts []awkToken) bool {
	depth := 0
	for i, t := range ts {
		switch {
		case t.str:
		case t.text == "(" || t.text == "[":
			depth++
		case t.text == ")" || t.text == "]":
			depth--
		case t.text == ";" || t.text == "}" || t.text == "\n" || t.text == "{":
			return false
		case (t.text == ">" || t.text == ">>") && depth <= 0:
			return i+1 >= len(ts) || !ts[i+1].str || !quietDevices.MatchString(ts[i+1].text)
		}
	}
	return false
}

// awkArgs finds awk's program texts (the first operand, or -e/--source)
// and whether code comes from a file or library (-f, -E, -i, -l and their
// long forms) or gawk's --sandbox keeps it from running or opening
// anything.
func awkArgs(ws []word) (progs []word, fromFile, sandbox bool) {
	given := false
	for i := 0; i < len(ws); i++ {
		t := ws[i].text
		switch {
		case t == "--":
			if !given && i+1 < len(ws) {
				progs = append(progs, ws[i+1])
			}
			return progs, fromFile, sandbox
		case isLong(t, "--sandbox") || t == "-S":
			sandbox = true
		case isLong(t, "--source --file --exec --include --load"), hasField("-e -f -E -i -l", t):
			v, used := optValue(ws, i, t[len(t)-1], "", "--source --file --exec --include --load")
			given = true
			if t == "-e" || isLong(t, "--source") {
				if v != nil {
					progs = append(progs, *v)
				}
			} else {
				fromFile = true
			}
			i += used
		case hasField("-v -F -W", t) || isLong(t, "--assign --field-separator") && !strings.Contains(t, "="):
			i++
		case strings.HasPrefix(t, "-e") && len(t) > 2:
			v := ws[i]
			v.text, given = t[2:], true
			progs = append(progs, v)
		case strings.HasPrefix(t, "-") && len(t) > 1:
			fromFile = fromFile || strings.ContainsAny(t[1:2], "fEil") // -fFILE
		case !given:
			return append(progs, ws[i]), fromFile, sandbox
		default:
			return progs, fromFile, sandbox
		}
	}
	return progs, fromFile, sandbox
}

// awkWrites finds what an awk command does besides printing: a program
// that runs commands, writes files or loads code, or code from a file.
func awkWrites(c cmd) (string, string) {
	progs, fromFile, sandbox := awkArgs(c.words[1:])
	switch {
	case sandbox:
		return "", ""
	case fromFile:
		return c.words[0].raw, "runs an awk program from a file, which is not judged and may run commands"
	}
	for _, p := range progs {
		fx := awkProgram(p.text)
		switch {
		case strings.Contains(p.text, unknown):
			return p.raw, "an awk program that cannot be known before running may run commands"
		case fx.runs:
			return p.raw, "the awk program runs commands (system(), or a pipe to or from one)"
		case fx.writes:
			return p.raw, "the awk program writes to a file"
		case fx.code:
			return p.raw, "the awk program loads more code (@include, @load)"
		}
	}
	return "", ""
}

// awkFiles are the files an awk program reads with getline < "FILE".
func awkFiles(ws []word) []word {
	progs, _, _ := awkArgs(ws)
	var out []word
	for _, p := range progs {
		fx := awkProgram(p.text)
		for _, f := range fx.reads {
			w := p
			w.text, w.glob = f, false
			out = append(out, w)
		}
		if fx.readsUnknown {
			w := p
			w.text = unknown
			out = append(out, w)
		}
	}
	return out
}

// awkRule asks about an awk program that reads the environment in a way
// masking cannot follow: ENVIRON of a secret variable, or of names known
// only when it runs (substr(ENVIRON[k], 9) in a loop over them).
func awkRule(a *analyzer, c cmd) {
	progs, _, _ := awkArgs(c.words[1:])
	for _, p := range progs {
		fx := awkProgram(p.text)
		if fx.envAny {
			a.askSecretVar(p.raw, c.text, "reads every variable's value (ENVIRON), where masking cannot follow it", "")
		}
		for _, name := range fx.env {
			if a.p.secretVar(name) {
				a.askSecretVar(p.raw, c.text, "reads the value of "+name+secretWhy, name)
			}
		}
	}
}

// awkRunsInput reports an awk command whose program can run what it
// reads: curl URL | awk '{system($0)}' is curl | sh.
func awkRunsInput(c cmd) bool {
	progs, fromFile, sandbox := awkArgs(c.words[1:])
	for _, p := range progs {
		if awkProgram(p.text).runs {
			return !sandbox
		}
	}
	return fromFile && !sandbox
}
