package policy

import (
	"os"
	"path"
	"path/filepath"
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
var quietDevices = lazyRegexp(`^/dev/(null|zero|stdout|stderr|tty|fd/[0-9]+|full|random|urandom)$`)

var blockDevice = lazyRegexp(`^/dev/(sd|hd|vd|xvd|nvme|mmcblk|loop|md|dm-|sr|disk|rdisk|mapper/|block/|root$|mem$|kmem$|port$|fb)`)

// isBlockDevice reports a disk by its name, or a path that is one (or a
// link to one) when the line is judged: /dev/block/8:0, a repository's
// disk -> /dev/sda.
func isBlockDevice(p string) bool {
	if blockDevice.MatchString(path.Clean(p)) {
		return true
	}
	fi, err := os.Stat(filepath.FromSlash(p))
	return err == nil && fi.Mode()&os.ModeDevice != 0 && fi.Mode()&os.ModeCharDevice == 0
}

// powerFiles stop, suspend or restart the machine when written to.
var powerFiles = lazyRegexp(`^/(proc/sysrq-trigger|sys/power/(state|disk))$`)

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
	case isBlockDevice(p) || a.env.cwd != "" && !strings.Contains(p, unknown) && isBlockDevice(joinPath(a.env.cwd, p)):
		a.deny(part, in, "writes to a block device")
		return
	case powerFiles.MatchString(path.Clean(p)):
		a.deny(part, in, "stops, suspends or restarts the machine")
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
	targets := base != "rsync" && base != "scp" // -t: rsync's times, scp's remote side
	for i := 0; i < len(ws); i++ {
		t := ws[i].text
		if v, used := optValue(ws, i, 't', "SmogeTfb", "--target-directory"); targets && v != nil {
			dest = v
			i += used
			continue
		}
		switch {
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

// outputOpts are the options naming a file a command writes its output
// to: short letters, then long options.
var outputOpts = map[string][2]string{
	"curl": {"o", "--output"}, "wget": {"Oao", "--output-document --output-file --append-output"},
	"sort": {"o", "--output"}, "tree": {"o", ""}, "time": {"o", "--output"},
}

// outputTakers are the short options of these commands that take the
// rest of a group as their own value (curl -Hvalue), so that a letter
// after them is no option.
var outputTakers = map[string]string{"curl": "HdeEFKQrTuUwxXyYzAbcDt", "wget": "eiBPtTUwQlDIX",
	"sort": "kStT", "time": "f"}

// outputValue returns the file an output option at ws[i] names (-o FILE,
// -sSLo FILE, -o.env, --output=FILE, --out FILE) and how many more words it
// used.
func outputValue(base string, ws []word, i int) (*word, int) {
	opts := outputOpts[base]
	for _, l := range []byte(opts[0]) {
		if v, used := optValue(ws, i, l, outputTakers[base], ""); v != nil {
			return v, used
		}
	}
	if opts[1] == "" {
		return nil, 0
	}
	return optValue(ws, i, 0, "", opts[1])
}

// outputOptRule judges the file named by an output option (curl -o .env),
// and for script its typescript file and -c code.
func outputOptRule(a *analyzer, c cmd) {
	base := cmdBase(c.words[0].text)
	if base == "script" {
		codeOptRule(a, c)
		return
	}
	ws := c.words[1:]
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		if base == "time" && !strings.HasPrefix(w.text, "-") {
			break // the timed command starts here; its own options are its own
		}
		if v, used := outputValue(base, ws, i); v != nil {
			a.writeTarget(*v, w.raw, c.text, false)
			i += used
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

// paramAssign judges ${NAME:=word} and ${NAME=word}, which assign NAME
// when it is unset or empty: unset PATH; : ${PATH:=tools}; ls runs the
// repository's ls. The value is not tracked: NAME may well be set.
func (a *analyzer) paramAssign(pe *syntax.ParamExp) {
	if pe.Param == nil || pe.Exp == nil || pe.Exp.Op != syntax.AssignUnset && pe.Exp.Op != syntax.AssignUnsetOrNull {
		return
	}
	as := assignment{name: pe.Param.Value, raw: nodeText(a.src, pe), val: a.env.word(a.src, pe.Exp.Word)}
	a.checkVar(as, "", true)
}

// unsetRule: unset NAME changes what the commands after it see as NAME=
// would: unset GIT_PAGER gives git back the repository's core.pager,
// unset PATH lets ${PATH:=tools} choose what runs. Only a variable of the
// shell alone (lower case) is harmless, and unset -f removes functions.
func unsetRule(a *analyzer, c cmd) {
	funcs := false
	for _, w := range c.words[1:] {
		switch {
		case w.text == "-f":
			funcs = true
		case funcs || w.text == "-v" || w.text == "-n" || w.text == "--":
		case !w.known:
			a.askSoft(w.raw, c.text, "unsets a variable whose name cannot be known before running")
		case !shellLocal(w.text) && !harmlessVars[strings.ToUpper(w.text)]:
			a.askSoft(w.raw, c.text, "unsets "+w.text+", which can change what commands do")
		default:
			delete(a.env.vars, w.text)
			delete(a.env.loops, w.text)
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
		if strings.HasPrefix(w.text, "-") && (strings.Contains(w.text[1:], "k") && w.text != "-o" || w.text == "-o" && next == "keyword") {
			a.askSoft(w.raw, c.text, "set -k makes the NAME=value words of later commands their environment, unseen")
		}
	}
}

// waitRule: bash's wait -p NAME assigns NAME (and a subscript in NAME is
// evaluated: wait -n -p 'a[$(cmd)]' runs cmd).
func waitRule(a *analyzer, c cmd) {
	for i := 1; i < len(c.words); i++ {
		if v, used := optValue(c.words, i, 'p', "", ""); v != nil {
			a.assignName(*v, c)
			i += used
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
