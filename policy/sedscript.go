package policy

import "strings"

// A sed script can do more than edit text: e runs a command (s///e runs
// the pattern space), w and W write files, r and R read files into the
// output (sed '1r .env' README.md prints .env). GNU sed --sandbox refuses
// all of them.

// sedEffects is what a sed script does besides editing its input.
type sedEffects struct {
	runs, writes []string // the commands that run and the files written
	reads        []string // the files read into the output
	unknown      bool     // the script could not be read
}

// sedArgs splits sed's words into its scripts (from -e, --expression or
// the first operand), whether one comes from a file (-f), whether it
// edits files in place (-i), and whether --sandbox keeps it from running
// or opening anything.
func sedArgs(ws []word) (scripts []word, fromFile, inPlace, sandbox bool) {
	given := false
	var ops []word
	for i := 0; i < len(ws); i++ {
		t := ws[i].text
		switch {
		case t == "--":
			ops = append(ops, ws[i+1:]...)
			i = len(ws)
		case isLong(t, "--sandbox"):
			sandbox = true
		case isLong(t, "--line-length") && !strings.Contains(t, "="):
			i++
		case isLong(t, "--in-place"):
			inPlace = true
		case isLong(t, "--expression --file"):
			v, used := optValue(ws, i, 0, "", "--expression --file")
			given, fromFile = true, fromFile || isLong(t, "--file")
			if v != nil && isLong(t, "--expression") {
				scripts = append(scripts, *v)
			}
			i += used
		case strings.HasPrefix(t, "-") && len(t) > 1 && !strings.HasPrefix(t, "--"):
			used, script, file, inp := sedShort(ws, i)
			given, fromFile, inPlace = given || script != nil || file, fromFile || file, inPlace || inp
			if script != nil {
				scripts = append(scripts, *script)
			}
			i += used
		case !strings.HasPrefix(t, "-") || t == "-":
			ops = append(ops, ws[i])
		}
	}
	if !given && len(ops) > 0 {
		scripts = append(scripts, ops[0])
	}
	return scripts, fromFile, inPlace, sandbox
}

// sedShort reads a group of short options: -n, -i[SUFFIX] (which takes
// the rest of the group: -ie is -i with suffix e), -e SCRIPT, -f FILE,
// -l N.
func sedShort(ws []word, i int) (used int, script *word, file, inPlace bool) {
	t := ws[i].text
	for j := 1; j < len(t); j++ {
		switch t[j] {
		case 'i':
			return 0, nil, false, true
		case 'e', 'f', 'l':
			v := ws[i]
			if v.text = t[j+1:]; v.text == "" && i+1 < len(ws) {
				v, used = ws[i+1], 1
			}
			if t[j] == 'e' {
				script = &v
			}
			return used, script, t[j] == 'f', false
		}
	}
	return 0, nil, false, false
}

// sedScript reads a script as GNU sed does, command by command.
func sedScript(s string) sedEffects {
	var fx sedEffects
	for i := 0; i < len(s); {
		i = sedAddress(s, skipSpace(s, i, " \t\n;}{!"))
		if i < 0 {
			return sedEffects{unknown: true}
		}
		i = skipSpace(s, i, " \t!")
		if i >= len(s) {
			break
		}
		next := fx.command(s, i)
		if next < 0 {
			return sedEffects{unknown: true}
		}
		i = next
	}
	return fx
}

func skipSpace(s string, i int, set string) int {
	for i < len(s) && strings.IndexByte(set, s[i]) >= 0 {
		i++
	}
	return i
}

// sedAddress skips the addresses before a command (3, $, /re/, \%re%,
// first~step, addr,+N), or returns -1.
func sedAddress(s string, i int) int {
	for k := 0; k < 2 && i < len(s); k++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9' || c == '$' || c == '+' || c == '~':
			for i < len(s) && strings.IndexByte("0123456789$+~", s[i]) >= 0 {
				i++
			}
		case c == '/' || c == '\\' && i+1 < len(s):
			if c == '\\' {
				i++
			}
			if i = sedDelimited(s, i); i < 0 {
				return -1
			}
			i = skipSpace(s, i, "IM")
		default:
			return i
		}
		if i >= len(s) || s[i] != ',' {
			return i
		}
		i++
	}
	return i
}

// sedDelimited skips text delimited by s[i] (/re/), backslashes escaping,
// and returns the index after the closing delimiter, or -1.
func sedDelimited(s string, i int) int {
	if i >= len(s) {
		return -1
	}
	d := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case d:
			return j + 1
		case '\n':
			return -1
		}
	}
	return -1
}

// command reads the command at s[i] and returns where the next one may
// start, or -1.
func (fx *sedEffects) command(s string, i int) int {
	c := s[i]
	rest, end := lineFrom(s, i+1)
	switch {
	case c == 'a' || c == 'i' || c == 'c':
		for strings.HasSuffix(rest, "\\") && end < len(s) {
			rest, end = lineFrom(s, end) // text goes on after a line ending in \
		}
		return end
	case c == '#', c == ':':
		return end // a comment or a label
	case c == 'e':
		fx.runs = append(fx.runs, "e"+rest)
		return end
	case c == 'r' || c == 'R':
		fx.reads = append(fx.reads, strings.TrimSpace(rest))
		return end
	case c == 'w' || c == 'W':
		fx.writes = append(fx.writes, strings.TrimSpace(rest))
		return end
	case c == 's':
		return fx.substitute(s, i+1)
	case c == 'y':
		if j := sedDelimited(s, i+1); j > 0 {
			return sedDelimited(s, j-1)
		}
		return -1
	case c == 'b' || c == 't' || c == 'T' || c == 'v':
		return strings.IndexAny(s[i:]+";", ";\n}") + i
	case strings.IndexByte("=dDFgGhHlLnNpPqQxz{}", c) >= 0:
		return skipSpace(s, i+1, "0123456789")
	}
	return -1
}

// lineFrom is the rest of the line from i (the argument of r, w, e, a),
// and the index after it.
func lineFrom(s string, i int) (string, int) {
	end := strings.IndexByte(s[i:], '\n')
	if end < 0 {
		return s[i:], len(s)
	}
	return s[i : i+end], i + end + 1
}

// substitute reads s/re/replacement/flags from just after the s: flag e
// runs the pattern space as a command, w FILE writes.
func (fx *sedEffects) substitute(s string, i int) int {
	if i >= len(s) {
		return -1
	}
	j := sedDelimited(s, i)
	if j < 0 {
		return -1
	}
	if j = sedDelimited(s, j-1); j < 0 {
		return -1
	}
	for ; j < len(s) && strings.IndexByte("gpeIiMm0123456789w", s[j]) >= 0; j++ {
		switch s[j] {
		case 'e':
			fx.runs = append(fx.runs, s[i-1:j+1])
		case 'w':
			rest, end := lineFrom(s, j+1)
			fx.writes = append(fx.writes, strings.TrimSpace(rest))
			return end
		}
	}
	return j
}

// sedWrites finds what a sed command does besides printing: -i, a script
// from a file, and scripts that run commands or write files.
func sedWrites(c cmd) (string, string) {
	scripts, fromFile, inPlace, sandbox := sedArgs(c.words[1:])
	switch {
	case inPlace:
		return c.words[0].raw, "edits files in place"
	case sandbox:
		return "", ""
	case fromFile:
		return c.words[0].raw, "runs a sed script from a file, which is not judged and may run commands"
	}
	for _, sc := range scripts {
		fx := sedScript(sc.text)
		switch {
		case strings.Contains(sc.text, unknown) || fx.unknown:
			return sc.raw, "a sed script that cannot be read here may run commands or write files"
		case len(fx.runs) > 0:
			return sc.raw, "runs a command from its script (" + fx.runs[0] + ")"
		}
		for _, f := range fx.writes {
			if !quietDevices.MatchString(f) {
				return sc.raw, "writes the file " + f + " from its script"
			}
		}
	}
	return "", ""
}

// sedFiles are the files sed's scripts read into the output (r FILE).
func sedFiles(ws []word) []word {
	scripts, _, _, sandbox := sedArgs(ws)
	if sandbox {
		return nil
	}
	var out []word
	for _, sc := range scripts {
		for _, f := range sedScript(sc.text).reads {
			w := sc
			w.text, w.glob = f, false
			out = append(out, w)
		}
	}
	return out
}
