package policy

import "strings"

// nonPOSIXReads takes every word of an allowed line that is not an option
// as a path it may read (type .env, Get-Content ~\.ssh\id_rsa), and the
// value of -Name:VALUE too, each item of a list (gc README.md,.env), and
// asks about protected ones and those outside the root. A PowerShell
// drive other than the file system's is not a file: env:NAME reads a
// variable.
func (p *Policy) nonPOSIXReads(r *report, command string, args []string) {
	for _, w := range args {
		for _, t := range winReadWords(w) {
			p.winRead(r, command, w, t)
		}
	}
}

// winReadWords are the paths a word of a Windows line may name, with
// forward slashes.
func winReadWords(w string) []string {
	t := strings.Trim(w, `"'`)
	if strings.HasPrefix(t, "-") {
		_, v, ok := strings.Cut(t, ":") // -Path:.env
		if !ok {
			return nil
		}
		t = v
	}
	if len(t) == 2 && t[0] == '/' {
		return nil // /s
	}
	var out []string
	for _, item := range strings.Split(t, ",") {
		if item = strings.Trim(item, `"' `); item != "" {
			out = append(out, winPath(item))
		}
	}
	return out
}

// winRead judges one path a Windows line may read.
func (p *Policy) winRead(r *report, command, w, t string) {
	if drive, name, ok := strings.Cut(t, ":"); ok && len(drive) > 1 && !strings.Contains(drive, "/") {
		switch {
		case !strings.EqualFold(drive, "env"):
			r.note(askSoft, w, command, "reads the PowerShell drive "+drive+":, which is not the file system")
		case name == "" || strings.ContainsAny(name, "*?["):
			r.note(askSecret, w, command, "lists variables in a table that cuts long values short, "+
				"so a secret shows in part, which masking cannot hide")
		}
		return
	}
	abs := p.winAbs(t)
	switch pat := p.readProtect.match(t, p.root); {
	case pat != "":
		r.note(askSecret, w, command, "reads a protected path: "+pat)
	case !insideFold(p.root, abs, p.readProtect.fold):
		r.note(askSoft, w, command, "reads a path outside the project root: "+abs)
	}
}

// winAbs is where a path of a Windows line is: ~ is the home folder, and
// D:name (a drive's current folder) is the root only on the root's drive.
func (p *Policy) winAbs(t string) string {
	if rest, ok := strings.CutPrefix(t, "~"); ok && (rest == "" || rest[0] == '/') {
		t = p.home + rest
	}
	if len(t) >= 2 && t[1] == ':' && isLetter(t[0]) && !isAbsPath(t) {
		if !strings.EqualFold(t[:1], p.root[:1]) || p.root[1] != ':' {
			return t[:2] + "/?/" + t[2:] // another drive's current folder: not the root
		}
		t = t[2:]
	}
	return joinPath(p.root, t)
}

// tableReads judges an allowed program of the sh tables (grep, rg, wc,
// find, ...) by those tables, whatever shell started it: the files its
// options read (grep --file=F, grep -fF, wc --files0-from=F) as the
// words it reads, and the folders it walks (rg --hidden, grep -r) for a
// protected path, a link out it follows or a secret it prints.
func (w *winJudge) tableReads(c winCmd, command string) {
	ws := plainWords(c)
	var ra readArgs
	if spec, ok := readers[c.name]; ok {
		ra = spec.parse(ws[1:])
	} else if c.name == "find" {
		ra = findReads(ws[1:])
	}
	for _, pw := range ra.paths {
		for _, t := range winReadWords(pw.text) { // not tree's /f
			w.tableRead(pw.raw, t, command, ra)
		}
	}
}

func (w *winJudge) tableRead(part, t, command string, ra readArgs) {
	w.p.winRead(w.r, command, part, t)
	if ra.recursive {
		w.p.walkReasons(w.p.winAbs(t), false, ra, func(class askClass, why string) {
			w.r.note(class, part, command, why)
		})
	}
}

// optionWrites applies the allow list's option checks (env running a
// command, find -delete, tree -o) to one plain command of a Windows line,
// as the sh rules do.
func (w *winJudge) optionWrites(c winCmd, command string) {
	check := writeChecks[c.name]
	if check == nil {
		return
	}
	if part, why := check(cmd{words: plainWords(c), text: c.text}); why != "" {
		w.r.note(askSoft, part, command, why)
	}
}
