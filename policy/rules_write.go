package policy

import (
	"path"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// redirect judges a redirection: writing to a file keeps a line from being
// allowed; writing to a protected path or a block device is denied; reading
// a protected path or one outside the root is asked about.
func (a *analyzer) redirect(s *syntax.Stmt, r *syntax.Redirect) {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll,
		syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
	case syntax.DplOut:
		if l := r.Word.Lit(); l == "-" || l != "" && strings.Trim(l, "0123456789") == "" {
			return // 2>&1, >&-: duplicates or closes a descriptor
		}
	case syntax.RdrIn:
		t := a.env.word(a.src, r.Word)
		a.readPath(t, nodeText(a.src, r), nodeText(a.src, s), readArgs{})
		return
	default:
		return // here-documents and strings, <&
	}
	t := a.env.word(a.src, r.Word)
	a.writeTarget(t, nodeText(a.src, r), nodeText(a.src, s), true)
}

// quietDevices can be written without writing anything that lasts.
var quietDevices = regexp.MustCompile(`^/dev/(null|zero|stdout|stderr|tty|fd/[0-9]+|full|random|urandom)$`)

var blockDevice = regexp.MustCompile(`^/dev/(sd|hd|vd|xvd|nvme|mmcblk|loop|md|dm-|sr|disk|rdisk|mapper/|mem$|kmem$|port$|fb)`)

func isBlockDevice(p string) bool { return blockDevice.MatchString(path.Clean(p)) }

// writeTarget judges a path something writes to. plain says whether writing
// an ordinary file is worth an ask by itself (redirections; commands that
// write are asked about by the allow list anyway).
func (a *analyzer) writeTarget(t word, part, in string, plain bool) {
	if t.procSubst {
		return
	}
	p := t.text
	switch {
	case quietDevices.MatchString(p):
		return
	case isBlockDevice(p):
		a.deny(part, in, "writes to a block device")
		return
	case strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/"):
		a.askSoft(part, in, "opens a network connection")
		return
	}
	if pat := a.protected(p, false); pat != "" {
		a.deny(part, in, "writes to a protected path ("+pat+")")
		return
	}
	if !plain {
		return
	}
	if strings.Contains(p, unknown) {
		a.askSoft(part, in, "writes to a file whose name cannot be known before running")
		return
	}
	a.askSoft(part, in, "writes to a file")
}

// protected returns the protected pattern a write to (or, with itself, a
// delete of) p touches, also where a symbolic link leads there: a
// repository's hooks -> .git/hooks makes cp x hooks/pre-commit a write
// into .git.
func (a *analyzer) protected(p string, itself bool) string {
	if pat := a.p.protect.match(p, a.env.cwd); pat != "" || strings.Contains(p, unknown) {
		return pat
	}
	if a.env.cwd == "" && !isAbsPath(p) {
		return ""
	}
	real := kernelPath(a.env.cwd, p)
	if itself {
		real = kernelParent(a.env.cwd, p)
	}
	return a.p.protect.match(a.p.logical(real), "")
}

// teeRule: every operand of tee is written.
func teeRule(a *analyzer, c cmd) {
	for _, w := range operands(c.words[1:]) {
		a.writeTarget(w, w.raw, c.text, false)
	}
}

// copyArgOpts are the options of cp, mv, install, ln and rsync that take
// the next word.
var copyArgOpts = "-t -S -m -o -g -e --target-directory --suffix --mode --owner --group --rsh --exclude --include --filter -f"

// copyRule judges the destination of cp/mv/install/ln/rsync (and, for mv,
// the sources it removes). The destination may be a folder, so the name each
// source would get in it is checked too.
func copyRule(a *analyzer, c cmd) {
	base := cmdBase(c.words[0].text)
	var ops []word
	var dest *word
	ws := c.words[1:]
	for i := 0; i < len(ws); i++ {
		t := ws[i].text
		switch {
		case t == "-t" || t == "--target-directory":
			if i+1 < len(ws) {
				dest = &ws[i+1]
			}
			i++
		case strings.HasPrefix(t, "--target-directory="):
			d := ws[i]
			d.text = strings.TrimPrefix(t, "--target-directory=")
			dest = &d
		case strings.HasPrefix(t, "-") && len(t) > 1 && hasField(copyArgOpts, t):
			i++
		case strings.HasPrefix(t, "-") && len(t) > 1:
		default:
			ops = append(ops, ws[i])
		}
	}
	if dest == nil && len(ops) > 1 {
		dest, ops = &ops[len(ops)-1], ops[:len(ops)-1]
	}
	if dest == nil {
		return
	}
	a.writeTarget(*dest, dest.raw, c.text, false)
	for _, src := range ops {
		if !a.guessing {
			a.readPath(src, src.raw, c.text, readArgs{})
		}
		into := *dest
		into.text = strings.TrimSuffix(dest.text, "/") + "/" + path.Base(src.text)
		a.writeTarget(into, dest.raw, c.text, false)
		if base == "mv" {
			if pat := a.protected(src.text, true); pat != "" {
				a.deny(src.raw, c.text, "moves a protected path away ("+pat+")")
			}
		}
	}
}

// inPlaceRule judges sed -i and perl -i, which rewrite their files.
func inPlaceRule(a *analyzer, c cmd) {
	inPlace, scriptGiven := false, false
	var files []word
	ws := c.words[1:]
	for i := 0; i < len(ws); i++ {
		t := ws[i].text
		switch {
		case t == "-e" || t == "-f" || t == "-E" || t == "--expression" || t == "--file":
			scriptGiven = true
			i++
		case strings.HasPrefix(t, "--in-place"):
			inPlace = true
		case strings.HasPrefix(t, "-") && len(t) > 1 && !strings.HasPrefix(t, "--"):
			inPlace = inPlace || strings.Contains(t, "i")
			scriptGiven = scriptGiven || strings.ContainsAny(t[1:], "e") && cmdBase(c.words[0].text) == "perl"
		case strings.HasPrefix(t, "-"):
		default:
			files = append(files, ws[i])
		}
	}
	if !inPlace {
		return
	}
	if !scriptGiven && len(files) > 0 {
		files = files[1:]
	}
	for _, f := range files {
		a.writeTarget(f, f.raw, c.text, false)
	}
}

// fileArgRule: truncate and touch write each operand.
func fileArgRule(a *analyzer, c cmd) {
	ws := c.words[1:]
	for i := 0; i < len(ws); i++ {
		t := ws[i].text
		switch {
		case hasField("-s -r -d -t --size --reference --date", t):
			i++
		case strings.HasPrefix(t, "-") && len(t) > 1:
		default:
			a.writeTarget(ws[i], ws[i].raw, c.text, false)
		}
	}
}

// outputOpts are the options naming a file a command writes its output to.
var outputOpts = map[string]string{
	"curl": "-o --output", "wget": "-O --output-document -o --output-file -a --append-output",
	"sort": "-o --output", "tree": "-o", "time": "-o --output",
}

// outputOptRule judges the file named by an output option (curl -o .env),
// and for script its typescript file and -c code.
func outputOptRule(a *analyzer, c cmd) {
	base := cmdBase(c.words[0].text)
	if base == "script" {
		codeOptRule(a, c)
		return
	}
	opts := outputOpts[base]
	ws := c.words[1:]
	for i, w := range ws {
		name, val, eq := strings.Cut(w.text, "=")
		switch {
		case eq && strings.HasPrefix(name, "--") && hasField(opts, name):
			v := w
			v.text = val
			a.writeTarget(v, w.raw, c.text, false)
		case hasField(opts, w.text) && i+1 < len(ws):
			a.writeTarget(ws[i+1], ws[i+1].raw, c.text, false)
		}
		if base == "time" && !strings.HasPrefix(w.text, "-") {
			break // the timed command starts here; its own options are its own
		}
	}
	if base == "curl" || base == "wget" {
		a.noteDownload(c)
	}
}

// ddRule: of= names what dd writes.
func ddRule(a *analyzer, c cmd) {
	for _, w := range c.words[1:] {
		if v, ok := strings.CutPrefix(w.text, "of="); ok {
			t := w
			t.text = v
			a.writeTarget(t, w.raw, c.text, false)
		}
	}
}

// readRule: read assigns the names it is given, as NAME=value would (read
// PATH < list changes what later commands run).
func readRule(a *analyzer, c cmd) {
	ws := c.words[1:]
	for i := 0; i < len(ws); i++ {
		t := ws[i].text
		switch {
		case hasField("-a -d -i -n -N -p -t -u", t):
			if t == "-a" && i+1 < len(ws) {
				a.assignName(ws[i+1], c)
			}
			i++
		case strings.HasPrefix(t, "-") && len(t) > 1:
		default:
			a.assignName(ws[i], c)
		}
	}
}

// setRule notes set -a (set -o allexport): every variable set afterwards
// reaches the programs the line starts.
func setRule(a *analyzer, c cmd) {
	for i, w := range c.words[1:] {
		if w.text == "--" || !strings.HasPrefix(w.text, "-") && !strings.HasPrefix(w.text, "+") {
			return
		}
		next := ""
		if i+2 < len(c.words) {
			next = c.words[i+2].text
		}
		if strings.HasPrefix(w.text, "-") && (strings.Contains(w.text[1:], "a") || w.text == "-o" && next == "allexport") {
			a.env.allExport = true
		}
	}
}

// printfRule: printf -v NAME assigns NAME.
func printfRule(a *analyzer, c cmd) {
	for i := 1; i+1 < len(c.words); i++ {
		if c.words[i].text == "-v" {
			a.assignName(c.words[i+1], c)
		}
	}
}

// assignName judges a variable a builtin sets to a value only known when it
// runs.
func (a *analyzer) assignName(w word, c cmd) {
	as := assignment{name: w.text, raw: w.raw, val: word{text: unknown}}
	if !w.known {
		a.askSoft(w.raw, c.text, "sets a variable whose name cannot be known before running")
		return
	}
	a.track(as)
	a.checkVar(as, c.text, true)
}
