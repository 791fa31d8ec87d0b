package policy

import (
	"strings"
)

// The options by which programs often added to the allow list run a
// command, write a file or read one. An entry for sort, tar or make is
// meant for sorting, listing an archive or building; these options make
// the program do something else, and are asked about (writeChecks).

func init() {
	for name, check := range map[string]func(c cmd) (string, string){
		"sort": sortWrites, "tar": tarWrites, "gtar": tarWrites, "bsdtar": tarWrites, "zip": zipWrites,
		"man": manWrites, "rg": rgWrites, "less": lessWrites, "curl": curlWrites, "xxd": xxdWrites,
		"make": makeWrites, "gmake": makeWrites, "npm": npmWrites, "pnpm": npmWrites, "yarn": npmWrites,
		"bun": npmWrites, "rsync": rsyncWrites, "tee": teeWrites, "vim": vimWrites, "vi": vimWrites,
		"nvim": vimWrites, "view": vimWrites, "ex": vimWrites,
	} {
		writeChecks[name] = check
	}
}

// firstOf runs checks in turn and returns the first finding.
func firstOf(c cmd, checks ...func(c cmd) (string, string)) (string, string) {
	for _, check := range checks {
		if part, why := check(c); why != "" {
			return part, why
		}
	}
	return "", ""
}

func sortWrites(c cmd) (string, string) {
	return firstOf(c, optionWrites("writes its output to a file", "-o", "--output"),
		optionWrites("runs a program to compress its temporary files", "--compress-program"))
}

// tarRuns are tar's options that run a program.
var tarRuns = "-I -F --to-command --checkpoint-action --use-compress-program --info-script --new-volume-script" +
	" --rsh-command --rmt-command"

// tarWrites lets tar list (-t) or compare (-d) an archive, and create one
// on its standard output; it asks when tar runs a program, extracts (which
// writes files), or writes an archive file.
func tarWrites(c cmd) (string, string) {
	ws := c.words[1:]
	for _, w := range ws {
		for _, o := range strings.Fields(tarRuns) {
			if hasOption(w.text, o) {
				return w.raw, "runs a program (" + o + ")"
			}
		}
	}
	mode, archive := tarMode(ws)
	switch {
	case mode == 'x':
		return c.words[0].raw, "extracts files from the archive, writing them"
	case strings.ContainsRune("cruA", mode) && archive != "-" && archive != "/dev/stdout":
		return c.words[0].raw, "writes the archive " + orDefault(archive, "named by $TAPE")
	}
	return "", ""
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// tarLetters take a value, in a group of short options or in the old
// style (tar czf x.tgz dir).
const tarLetters = "bCfFgIKLNTVX"

// tarMode finds tar's operation (c, x, t, r, u, A, d; 0 when none) and the
// archive file -f names ("" when none).
func tarMode(ws []word) (mode rune, archive string) {
	longModes := map[string]rune{"--create": 'c', "--extract": 'x', "--get": 'x', "--list": 't', "--append": 'r',
		"--update": 'u', "--catenate": 'A', "--concatenate": 'A', "--delete": 'u', "--diff": 'd', "--compare": 'd'}
	for i, w := range ws {
		t := w.text
		if name := longName(t, "--create --extract --get --list --append --update --catenate --concatenate --delete --diff --compare"); name != "" {
			mode = longModes[name]
		}
		if v, _ := optValue(ws, i, 'f', strings.ReplaceAll(tarLetters, "f", ""), "--file"); v != nil {
			archive = v.text
		}
		group := strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--")
		if i == 0 && !strings.HasPrefix(t, "-") {
			group = true // the old style: the first word is a group of letters
			archive = oldStyleArchive(ws)
		}
		for _, m := range "cxtruAd" {
			if group && strings.ContainsRune(t, m) && !valueBefore(t, m) {
				mode = m
			}
		}
	}
	return mode, archive
}

// valueBefore reports a group in which a letter taking a value comes
// before m, so that m is part of that value (-Cxdir is -C xdir).
func valueBefore(t string, m rune) bool {
	i := strings.IndexRune(t, m)
	return strings.HasPrefix(t, "-") && strings.ContainsAny(t[1:i], tarLetters)
}

// oldStyleArchive is the value of f in tar's old style: the word after
// the group, past the values of the letters before it.
func oldStyleArchive(ws []word) string {
	letters := ws[0].text
	f := strings.IndexByte(letters, 'f')
	if f < 0 {
		return ""
	}
	n := 1
	for _, l := range letters[:f] {
		if strings.ContainsRune(tarLetters, l) {
			n++
		}
	}
	if n < len(ws) {
		return ws[n].text
	}
	return ""
}

// tarFiles: creating an archive (c, r, u), tar reads its operands, in
// the folder -C names; otherwise it reads the archive, and its operands
// name members of it.
func tarFiles(ws []word) []word {
	mode, archive := tarMode(ws)
	if !strings.ContainsRune("cru", mode) || mode == 0 {
		if archive == "" || archive == "-" {
			return nil
		}
		return []word{{raw: archive, text: archive, known: !strings.Contains(archive, unknown)}}
	}
	dir := ""
	var out []word
	for i := 0; i < len(ws); i++ {
		t := ws[i].text
		if v, used := optValue(ws, i, 'C', "", "--directory"); v != nil {
			dir, i = v.text, i+used
			continue
		}
		switch {
		case i == 0 && !strings.HasPrefix(t, "-"):
			i += len(strings.Map(keepTarLetters, t))
		case strings.HasPrefix(t, "-"):
			if hasField(tarArgs, t) || groupEnds(t, 'f', "") {
				i++
			}
		case dir != "" && !isAbsPath(t):
			w := ws[i]
			w.text = dir + "/" + t
			out = append(out, w)
		default:
			out = append(out, ws[i])
		}
	}
	return out
}

// keepTarLetters keeps the letters of an old-style group that take a
// value, for counting them.
func keepTarLetters(r rune) rune {
	if strings.ContainsRune(tarLetters, r) {
		return r
	}
	return -1
}

// zipWrites: zip writes the archive it is given, unless that is "-" (its
// standard output), and -TT runs a command to test it.
func zipWrites(c cmd) (string, string) {
	if part, why := optionWrites("runs a command to test the archive", "-TT", "--unzip-command")(c); why != "" {
		return part, why
	}
	ws := c.words[1:]
	for i := 0; i < len(ws); i++ {
		t := ws[i].text
		switch {
		case hasField("-b -n -t -tt -P -O -s -sp -ds --out --password --temp-path --suffixes", t):
			i++
		case strings.HasPrefix(t, "-") && t != "-":
		case t == "-":
			return "", ""
		default:
			return ws[i].raw, "writes the archive " + t
		}
	}
	return "", ""
}

func manWrites(c cmd) (string, string) {
	for i, w := range c.words[1:] {
		if v, _ := optValue(c.words[1:], i, 'P', "", "--pager"); v != nil && v.text != "cat" {
			return w.raw, "runs " + v.text + " as its pager"
		}
		if hasOption(w.text, "-H") || hasOption(w.text, "--html") || isLong(w.text, "--browser") {
			return w.raw, "runs a web browser"
		}
	}
	return "", ""
}

func rgWrites(c cmd) (string, string) {
	return optionWrites("runs a program", "--pre", "--hostname-bin")(c)
}

// lessWrites: less -o writes what it shows to a file, and +CMD gives less
// commands to run (and less runs shell commands).
func lessWrites(c cmd) (string, string) {
	for _, w := range c.words[1:] {
		if strings.HasPrefix(w.text, "+") || strings.HasPrefix(w.text, "-+") {
			return w.raw, "gives less commands to run, and less runs shell commands"
		}
	}
	return optionWrites("writes what it shows to a file", "-o", "-O", "--log-file", "--LOG-FILE")(c)
}

func curlWrites(c cmd) (string, string) {
	return optionWrites("writes a file", "-o", "-O", "-D", "-c", "--output", "--remote-name", "--remote-name-all",
		"--dump-header", "--cookie-jar", "--trace", "--trace-ascii", "--stderr", "--libcurl", "--etag-save",
		"--hsts", "--alt-svc", "--output-dir")(c)
}

// xxdWrites: xxd's second operand is the file it writes.
func xxdWrites(c cmd) (string, string) {
	if ops := operands(c.words[1:]); len(ops) > 1 {
		return ops[1].raw, "writes its output to a file"
	}
	return "", ""
}

// makeVars are the variables that say how make runs every recipe.
var makeVars = map[string]bool{"SHELL": true, ".SHELLFLAGS": true, "MAKESHELL": true, "MAKEFLAGS": true,
	"MAKEFILES": true, "MAKE": true, "MFLAGS": true}

// plainValue is a variable's value that cannot be a command: a word,
// number, path or list of them (CC=clang, PREFIX=/usr/local).
var plainValue = lazyRegexp(`^[A-Za-z0-9._+,:/@%=-]*$`)

// makeWrites: an entry for make trusts the repository's own Makefile;
// --eval, another makefile, a variable that changes the shell, or one
// whose value may be a command, makes it run something else.
func makeWrites(c cmd) (string, string) {
	if part, why := optionWrites("runs make code given on the command line", "-E", "--eval")(c); why != "" {
		return part, why
	}
	if part, why := optionWrites("reads another makefile", "-f", "--file", "--makefile", "-I", "--include-dir")(c); why != "" {
		return part, why
	}
	for _, w := range c.words[1:] {
		name, val, ok := strings.Cut(w.text, "=")
		if ok && !strings.HasPrefix(name, "-") && (makeVars[name] || !plainValue.MatchString(val)) {
			return w.raw, "sets " + name + ", which goes into the Makefile's recipes"
		}
	}
	return "", ""
}

// npmRisky are npm's settings that choose what runs a script or the
// programs it starts; on the command line they may be abbreviated.
const npmRisky = "--script-shell --node-options --shell --userconfig --globalconfig --editor --git --browser" +
	" --viewer --init-module --onload-script --node-gyp"

// npmWrites: an entry for npm test trusts the project's script; a setting
// that changes the shell or Node's options runs something else.
func npmWrites(c cmd) (string, string) {
	for _, w := range c.words[1:] {
		if w.text == "--" {
			break
		}
		if name := longName(w.text, npmRisky); name != "" {
			return w.raw, "sets npm's " + strings.TrimPrefix(name, "--") + ", which changes what the script runs"
		}
	}
	return "", ""
}

// jqEnv finds jq's environment: $ENV and env, and the name after them
// when it is given literally ($ENV.HOME, env["HOME"]).
var jqEnv = lazyRegexp(`(?:\$ENV|(?:^|[^.\w$])env)\b(?:\s*(?:\.\s*"?|\[\s*")([A-Za-z_][A-Za-z0-9_]*))?`)

// jqRule asks about a jq program that reads the environment in a way
// masking cannot follow: a secret variable (env.API_KEY[0:4]), or every
// variable ($ENV, env | tostring).
func jqRule(a *analyzer, c cmd) {
	prog, ok := jqProgram(c.words[1:])
	if !ok {
		return
	}
	for _, m := range jqEnv.FindAllStringSubmatch(prog.text, -1) {
		switch {
		case m[1] == "":
			a.askSecretVar(prog.raw, c.text, "reads every variable's value ($ENV, env), where masking cannot follow it", "")
			return
		case a.p.secretVar(m[1]):
			a.askSecretVar(prog.raw, c.text, "reads the value of "+m[1]+secretWhy, m[1])
		}
	}
}

// jqProgram is the program jq runs when it is given on the command line.
func jqProgram(ws []word) (word, bool) {
	for i := 0; i < len(ws); i++ {
		t := ws[i].text
		switch {
		case hasField("-f --from-file --args --jsonargs", t):
			return word{}, false
		case hasField("--arg --argjson --slurpfile --rawfile", t):
			i += 2
		case hasField("--indent -L", t):
			i++
		case t == "--":
			if i+1 < len(ws) {
				return ws[i+1], true
			}
		case !strings.HasPrefix(t, "-") || t == "-":
			return ws[i], true
		}
	}
	return word{}, false
}

// projectDirOpts name, per program, the options that make it build or run
// the project in another folder: its Makefile, package.json scripts or
// Cargo.toml are then another project's.
var projectDirOpts = map[string][2]string{
	"make": {"C", "--directory"}, "gmake": {"C", "--directory"}, "npm": {"C", "--prefix"},
	"pnpm": {"C", "--dir"}, "yarn": {"", "--cwd"}, "bun": {"", "--cwd"}, "cargo": {"C", "--manifest-path"},
	"go": {"C", ""}, "just": {"d", "--working-directory --justfile"}, "rake": {"C", "--directory"},
}

// projectDirRule asks about building or running a project outside the
// root: make -C /elsewhere, npm test --prefix /elsewhere.
func projectDirRule(a *analyzer, c cmd) {
	opts := projectDirOpts[cmdBase(c.words[0].text)]
	for i := 1; i < len(c.words) && c.words[i].text != "--"; i++ {
		var v *word
		used := 0
		if opts[0] != "" {
			v, used = optValue(c.words, i, opts[0][0], "", opts[1])
		} else {
			v, used = optValue(c.words, i, 0, "", opts[1])
		}
		if v == nil {
			continue
		}
		i += used
		switch dir := joinPath(a.env.cwd, v.text); {
		case strings.Contains(v.text, unknown) || a.env.cwd == "" && !isAbsPath(v.text):
			a.askSoft(v.raw, c.text, "runs a project in a folder that cannot be known before running")
		case !inside(a.p.root, a.p.logical(kernelPath("", dir))):
			a.askSoft(v.raw, c.text, "runs the project in "+dir+", outside the project root")
		}
	}
}

func rsyncWrites(c cmd) (string, string) {
	return optionWrites("runs a command to reach the other side", "-e", "--rsh", "--rsync-path")(c)
}

// teeWrites: every operand of tee is a file it writes.
func teeWrites(c cmd) (string, string) {
	if ops := operands(c.words[1:]); len(ops) > 0 {
		return ops[0].raw, "writes to a file"
	}
	return "", ""
}

// vimWrites: vim runs the commands it is given on the command line (-c,
// --cmd, +CMD, -S and -u scripts, -s keys), which may be shell commands.
func vimWrites(c cmd) (string, string) {
	for _, w := range c.words[1:] {
		t := w.text
		if strings.HasPrefix(t, "+") && !isNumber(t[1:]) || hasField("-c --cmd -S -u -s -W -w", t) || strings.HasPrefix(t, "--cmd") {
			return w.raw, "runs the editor commands it is given, which can run shell commands"
		}
	}
	return "", ""
}
