package policy

import (
	"regexp"
	"strings"
)

// readSpec says which words of a reading command name what it reads.
type readSpec struct {
	args  string // options taking the next word as a value that is not a path
	files string // options whose value is a file it reads (grep -f, file -m)
	// pattern: the first operand is a pattern, not a path (grep), unless
	// one of patOpts gave it.
	pattern bool
	patOpts string
	// recursive options make it read everything under a folder; all: it
	// always does (tree, du, rg). Then, given no path, it reads ".".
	recursive string
	all       bool
	dot       bool // given no path, it lists "." (ls)
}

// readers are the programs of the default allow list that read files, and
// those often added to it. What they print reaches the model, so what they
// read is checked (checkReads).
var readers = map[string]readSpec{
	"cat":  {},
	"tac":  {args: "-s --separator"},
	"nl":   {args: "-b -d -f -h -i -l -n -s -v -w"},
	"head": {args: "-n -c --lines --bytes"},
	"tail": {args: "-n -c --lines --bytes -s --sleep-interval --pid"},
	"less": {args: "-b -h -j -p -x -y -z -P -T --pattern --tabs -# --shift", files: "-k -o -O --lesskey-file"},
	"more": {args: "-n --lines"},
	"wc":   {files: "--files0-from"},
	"file": {args: "-F -e -P --separator --exclude --parameter", files: "-m -f --magic-file --files-from"},
	"stat": {args: "-c -t --format --printf"},
	"ls": {args: "-I -w -T --ignore --hide --width --tabsize --color --format --sort --time --time-style" +
		" --quoting-style --block-size --indicator-style", recursive: "-R --recursive", dot: true},
	"tree": {args: "-L -P -I -o -H -T --charset --filelimit --timefmt --sort", all: true},
	"du":   {args: "-d -B -t --max-depth --block-size --threshold --exclude --time-style", files: "-X --exclude-from --files0-from", all: true},
	"grep": {args: "-e --regexp -A -B -C -m -d -D --context --after-context --before-context --max-count --include --exclude" +
		" --exclude-dir --color --colour --label --binary-files --devices --directories --group-separator",
		files: "-f --file --exclude-from", pattern: true, patOpts: "-e -f --regexp --file",
		recursive: "-r -R --recursive --dereference-recursive"},
	"rg": {args: "-A -B -C -m -M -j -g -t -T -E --glob --iglob --type --type-not --max-count --max-columns" +
		" --threads --max-depth --color --colors --encoding --sort --sortr --type-add --pre --pre-glob" +
		" --context-separator --field-match-separator --path-separator --replace -r -e --regexp",
		files: "-f --file --ignore-file", pattern: true, patOpts: "-e -f --regexp --file", all: true},
	"ag":      {args: "-A -B -C -m -G -g --ignore --ignore-dir --depth --file-search-regex", files: "-p --path-to-ignore", pattern: true, all: true},
	"sort":    {args: "-k -t -S -T --key --field-separator --buffer-size --temporary-directory --parallel -o --output", files: "--files0-from"},
	"uniq":    {args: "-f -s -w --skip-fields --skip-chars --check-chars"},
	"cut":     {args: "-b -c -d -f --bytes --characters --delimiter --fields --output-delimiter"},
	"base64":  {args: "-w --wrap"},
	"xxd":     {args: "-c -g -l -n -o -s -C --cols --groupsize --len --name --seek"},
	"hexdump": {args: "-e -n -s"},
	"od":      {args: "-A -j -N -S -t -w --address-radix --skip-bytes --read-bytes --strings --format --width"},
	"strings": {args: "-n -t -e --bytes --radix --encoding"},
	"md5sum":  {}, "sha1sum": {}, "sha256sum": {}, "sha512sum": {}, "shasum": {args: "-a --algorithm"},
	"cksum": {}, "b2sum": {},
	"diff": {args: "-U -C -W -I -x -X --unified --context --width --ignore-matching-lines --exclude --label",
		recursive: "-r --recursive"},
	"cmp":    {args: "-i -n --ignore-initial --bytes"},
	"comm":   {},
	"paste":  {args: "-d --delimiters"},
	"column": {args: "-c -s -o -t -N -R -E -W"},
	"fold":   {args: "-w --width"},
	"rev":    {},
	"bat":    {args: "-l -H -r -m --language --highlight-line --line-range --map-syntax --theme --style --tabs --wrap"},
	"jq":     {args: "--indent --arg --argjson --slurpfile --rawfile -L", files: "-f --from-file", pattern: true, patOpts: "-f --from-file"},
}

func init() {
	for _, alias := range []string{"egrep", "fgrep", "zgrep"} {
		readers[alias] = readers["grep"]
	}
	r := readers["grep"]
	r.all = true
	readers["rgrep"] = r
	for _, alias := range []string{"zcat", "bzcat", "xzcat"} {
		readers[alias] = readers["cat"]
	}
}

// readArgs is what a reading command's words say it reads.
type readArgs struct {
	paths     []word // files and folders it reads
	recursive bool
}

// parse walks the words as getopt would: options (with their values,
// separate or attached, short options grouped), then operands.
func (s readSpec) parse(ws []word) readArgs {
	var ra readArgs
	var ops []word
	patGiven, opts := false, true
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		t := w.text
		switch {
		case opts && t == "--":
			opts = false
		case opts && strings.HasPrefix(t, "--") && len(t) > 2:
			i += s.longOption(&ra, &patGiven, ws[i:])
		case opts && strings.HasPrefix(t, "-") && len(t) > 1 && !strings.HasPrefix(t, unknown):
			i += s.shortOptions(&ra, &patGiven, ws[i:])
		default:
			ops = append(ops, w)
		}
	}
	if s.pattern && !patGiven && len(ops) > 0 {
		ops = ops[1:]
	}
	ra.recursive = ra.recursive || s.all
	if len(ops) == 0 && (ra.recursive || s.dot) {
		ops = []word{{raw: ".", text: ".", known: true}}
	}
	ra.paths = append(ra.paths, ops...)
	return ra
}

// longOption handles --name or --name=value at ws[0] and returns how many
// more words it used.
func (s readSpec) longOption(ra *readArgs, patGiven *bool, ws []word) int {
	name, val, eq := strings.Cut(ws[0].text, "=")
	*patGiven = *patGiven || hasField(s.patOpts, name)
	ra.recursive = ra.recursive || hasField(s.recursive, name)
	isFile, takes := hasField(s.files, name), hasField(s.args, name)
	switch {
	case (isFile || takes) && eq:
		if isFile {
			v := ws[0]
			v.text = val
			ra.paths = append(ra.paths, v)
		}
		return 0
	case (isFile || takes) && len(ws) > 1:
		if isFile {
			ra.paths = append(ra.paths, ws[1])
		}
		return 1
	}
	return 0
}

// shortOptions handles a group like -rnA at ws[0]; an option taking a
// value takes the rest of the group, or else the next word.
func (s readSpec) shortOptions(ra *readArgs, patGiven *bool, ws []word) int {
	t := ws[0].text
	for j := 1; j < len(t); j++ {
		o := "-" + t[j:j+1]
		*patGiven = *patGiven || hasField(s.patOpts, o)
		ra.recursive = ra.recursive || hasField(s.recursive, o)
		isFile, takes := hasField(s.files, o), hasField(s.args, o)
		if !isFile && !takes {
			continue
		}
		if j+1 < len(t) {
			if isFile {
				v := ws[0]
				v.text = t[j+1:]
				ra.paths = append(ra.paths, v)
			}
			return 0
		}
		if len(ws) > 1 {
			if isFile {
				ra.paths = append(ra.paths, ws[1])
			}
			return 1
		}
	}
	return 0
}

// checkReads asks about a reading command whose paths include a protected
// path, a path outside the root, or one that cannot be known.
func (a *analyzer) checkReads(c cmd) {
	base := cmdBase(c.words[0].text)
	var ra readArgs
	if base == "find" {
		starts, _ := findSplit(c.words[1:])
		ra = readArgs{paths: starts, recursive: true}
	} else if spec, ok := readers[base]; ok {
		ra = spec.parse(c.words[1:])
	} else {
		return
	}
	for _, w := range ra.paths {
		a.readPath(w, w.raw, c.text, ra.recursive)
	}
}

// readDevices can be read without reading anything a person keeps.
var readDevices = regexp.MustCompile(`^/dev/(null|zero|stdin|tty|fd/[0-9]+|full|random|urandom)$`)

// readPath asks about one path a command reads (part names it in the
// reason). A loop variable stands for each of the loop's words.
func (a *analyzer) readPath(w word, part, in string, recursive bool) {
	if items, ok := a.env.loops[w.param]; ok && w.param != "" {
		for _, it := range items {
			a.readPath(it, part, in, recursive)
		}
		return
	}
	t := w.text
	switch {
	case w.procSubst || t == "-" || readDevices.MatchString(t):
		return
	case strings.Contains(t, unknown):
		a.askSoft(part, in, "reads a path that cannot be known before running")
		return
	case !isAbsPath(t) && a.env.cwd == "":
		if pat := a.p.readProtect.match(t, ""); pat != "" {
			a.askSecret(part, in, "reads a protected path: "+pat)
			return
		}
		a.askSoft(part, in, "reads a path in a folder that an earlier cd makes unknown")
		return
	}
	abs := joinPath(a.env.cwd, t)
	if why, class := a.readWhy(t, abs, w.glob); why != "" {
		a.r.note(class, part, in, a.withWhere(why))
		return
	}
	if recursive {
		if held := a.p.readProtect.under(abs); held != "" {
			a.askSecret(part, in, "reads everything in "+abs+", which holds a protected path: "+held)
		}
	}
}

// readWhy says why reading t (abs once resolved) needs approval, or "",
// and whether it is a secret. An existing path is resolved as the kernel
// resolves it (kernelPath), so a link in the root to ~/.ssh/id_rsa is what
// it points to, and up/.. is the folder above where up points.
func (a *analyzer) readWhy(t, abs string, glob bool) (string, askClass) {
	if pat := a.p.readProtect.match(t, a.env.cwd); pat != "" && glob {
		return "may read a protected path (the pattern could match " + pat + ")", askSecret
	} else if pat != "" {
		return "reads a protected path: " + pat, askSecret
	}
	if !inside(a.p.root, abs) {
		return "reads a path outside the project root: " + abs, askSoft
	}
	if glob {
		return "", askSoft
	}
	real := a.resolved(t)
	if real == abs || real == "" {
		return "", askSoft
	}
	if pat := a.p.readProtect.match(real, ""); pat != "" {
		return "reads a protected path through a symbolic link: " + pat, askSecret
	}
	if !inside(a.p.root, real) {
		return "reads a path outside the project root through a symbolic link: " + real, askSoft
	}
	return "", askSoft
}
