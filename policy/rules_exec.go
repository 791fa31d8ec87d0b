package policy

import (
	"path"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// shellList are the programs that run shell code from -c, a file or stdin.
var shellList = []string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish",
	"csh", "tcsh", "yash", "posh", "rbash", "oksh", "loksh"}

// interpreterList run code in another language from -c/-e, a file or stdin.
var interpreterList = []string{"python", "python2", "python3", "perl", "ruby", "node",
	"nodejs", "php", "lua", "pwsh", "powershell", "osascript", "tclsh", "deno", "bun"}

// shellArgs is what a shell's words say it will run.
type shellArgs struct {
	code   *word // the -c string
	script *word // the file it runs, if no -c
	stdin  bool  // reads its code from stdin
}

// parseShellArgs reads sh/bash/zsh options: -c (also in groups like -ec or
// -lc), options taking an argument (-o, -O, --rcfile), then the operands.
func parseShellArgs(ws []word) shellArgs {
	var sa shellArgs
	hasC, readStdin := false, false
	i := 1
	for ; i < len(ws); i++ {
		t := ws[i].text
		if t == "--" || t == "-" {
			i++
			break
		}
		if !(strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+")) || len(t) < 2 {
			break
		}
		switch {
		case t == "--command" || t == "-C" || t == "--init-command":
			hasC = true
		case hasField("-o +o -O +O --rcfile --init-file", t):
			i++
		case !strings.HasPrefix(t, "--"):
			hasC = hasC || strings.Contains(t[1:], "c")
			readStdin = readStdin || strings.Contains(t[1:], "s")
		}
	}
	if i < len(ws) {
		op := ws[i]
		if hasC {
			sa.code = &op
		} else if !readStdin {
			sa.script = &op
		}
	}
	sa.stdin = !hasC && (sa.script == nil || isStdinPath(sa.script.text))
	return sa
}

func isStdinPath(p string) bool {
	return p == "-" || p == "/dev/stdin" || p == "/dev/fd/0"
}

// shellRule parses the code a shell is given and judges it as part of the
// line: bash -c 'sudo ls' is sudo ls.
func shellRule(a *analyzer, c cmd) {
	name := cmdBase(c.words[0].text)
	a.downloadedArgs(c)
	sa := parseShellArgs(c.words)
	switch {
	case sa.code != nil:
		a.codeIn(c, *sa.code, "inside "+name+" -c", kindByName(name))
	case sa.script != nil && !sa.stdin:
		a.ranDownloaded(c, *sa.script)
	default:
		a.stdinCode(c, name)
	}
}

// codeString judges a string of shell code run by this same shell (eval,
// trap, alias).
func (a *analyzer) codeString(c cmd, code word, where string) {
	a.codeIn(c, code, where, a.kind)
}

// codeIn judges a string of shell code handed to a shell of kind.
func (a *analyzer) codeIn(c cmd, code word, where string, kind shellKind) {
	if strings.Contains(code.text, unknown) {
		a.askSoft(code.raw, c.text, "runs shell code that cannot be known before running")
		return
	}
	env := a.env.clone()
	for _, as := range c.assigns {
		env.vars[as.name] = as.val.text
	}
	a.nested(code.text, where, env, kind, a.wholeToAnswer(c))
}

// stdinCode judges the here-document or here-string a shell reads as its
// script (bash <<'EOF' ... EOF).
func (a *analyzer) stdinCode(c cmd, name string) {
	if c.stmt == nil {
		return
	}
	for _, r := range c.stmt.Redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			a.codeIn(c, a.env.hdoc(a.src, r), "in the here-document "+name+" runs", kindByName(name))
		case syntax.WordHdoc:
			a.codeIn(c, a.env.word(a.src, r.Word), "in the here-string "+name+" runs", kindByName(name))
		}
	}
}

// evalRule: eval joins its arguments and runs them as shell code.
func evalRule(a *analyzer, c cmd) {
	a.downloadedArgs(c)
	if len(c.words) < 2 {
		return
	}
	code := word{raw: c.text}
	var parts []string
	for _, w := range c.words[1:] {
		parts = append(parts, w.text)
	}
	code.text = strings.Join(parts, " ")
	a.codeString(c, code, "inside eval")
}

func sourceRule(a *analyzer, c cmd) {
	a.downloadedArgs(c)
	if ops := operands(c.words[1:]); len(ops) > 0 {
		a.ranDownloaded(c, ops[0])
	}
}

func interpreterRule(a *analyzer, c cmd) {
	a.downloadedArgs(c)
	if ops := operands(c.words[1:]); len(ops) > 0 && !hasCodeOption(c.words) {
		a.ranDownloaded(c, ops[0])
	}
}

// jobsRule: bash's jobs -x CMD ARGS runs CMD.
func jobsRule(a *analyzer, c cmd) {
	for i, w := range c.words[1:] {
		if !strings.HasPrefix(w.text, "-") || w.text == "-" || w.text == "--" {
			return
		}
		if strings.Contains(w.text, "x") && len(c.words) > i+2 {
			a.simple(cmd{words: c.words[i+2:], text: c.text, level: c.level + 1})
			return
		}
	}
}

// testVarRule: bash's test -v NAME and -R NAME evaluate a subscript in
// NAME as arithmetic, where $(cmd) runs: test -v 'a[$(cmd)]'.
func testVarRule(a *analyzer, c cmd) {
	for i := 1; i+1 < len(c.words); i++ {
		if t := c.words[i].text; (t == "-v" || t == "-R") && riskyName(c.words[i+1]) {
			a.askSoft(c.words[i+1].raw, c.text, "expands a variable in a way that can run commands hidden in its value")
		}
	}
}

// riskyName reports a variable name that may hold a subscript.
func riskyName(w word) bool {
	return strings.ContainsAny(w.text, "["+unknown)
}

// watchRule: watch runs its arguments through sh -c, or directly with -x.
func watchRule(a *analyzer, c cmd) {
	ws := c.words[1:]
	direct := false
	for len(ws) > 0 && strings.HasPrefix(ws[0].text, "-") {
		t := ws[0].text
		direct = direct || t == "-x" || t == "--exec"
		ws = ws[1:]
		if hasField("-n --interval -q --equexit", t) && len(ws) > 0 {
			ws = ws[1:]
		}
	}
	if len(ws) == 0 {
		return
	}
	if direct {
		a.simple(cmd{words: ws, text: c.text, level: c.level + 1})
		return
	}
	a.codeIn(c, joinWords(ws), "inside watch", kindSh)
}

func joinWords(ws []word) word {
	var texts, raws []string
	for _, w := range ws {
		texts = append(texts, w.text)
		raws = append(raws, w.raw)
	}
	return word{raw: strings.Join(raws, " "), text: strings.Join(texts, " ")}
}

// codeOptRule judges the -c/--command string of flock, su and script,
// which hand it to the user's shell.
// The code may be stuck to -c or follow a group ending in c (script
// -qc CODE), or be --command's value (--command=CODE, --comm CODE).
func codeOptRule(a *analyzer, c cmd) {
	ws := c.words
	for i := 1; i < len(ws); i++ {
		if v, used := optValue(ws, i, 'c', "EIOBTmtwu", "--command"); v != nil {
			a.codeIn(c, *v, "inside "+cmdBase(ws[0].text)+" -c", kindSh)
			i += used
		}
	}
}

// trapRule: trap 'code' SIGNAL runs code later in this shell.
func trapRule(a *analyzer, c cmd) {
	ops := operands(c.words[1:])
	if len(ops) >= 2 && ops[0].text != "" {
		a.codeString(c, ops[0], "inside trap")
	}
}

// aliasRule: alias x='code' makes code run under another name.
func aliasRule(a *analyzer, c cmd) {
	for _, w := range c.words[1:] {
		if _, val, ok := strings.Cut(w.text, "="); ok {
			v := w
			v.text = val
			a.codeString(c, v, "inside alias")
		}
	}
}

// envRule: env -S 'cmd args' splits a string into a command.
func envRule(a *analyzer, c cmd) {
	ws := c.words
	for i := 1; i < len(ws); i++ {
		t := ws[i].text
		switch {
		case (t == "-S" || isLong(t, "--split-string") && !strings.Contains(t, "=")) && i+1 < len(ws):
			a.codeString(c, ws[i+1], "inside env -S")
		case isLong(t, "--split-string"):
			v := ws[i]
			_, v.text, _ = strings.Cut(t, "=")
			a.codeString(c, v, "inside env -S")
		case shortValue(t, 'S', "uC") != "":
			v := ws[i]
			v.text = shortValue(t, 'S', "uC")
			a.codeString(c, v, "inside env -S")
		}
	}
}

// hasCodeOption reports an interpreter given its code on the command line
// (python -c, node -e, python -m module).
func hasCodeOption(ws []word) bool {
	for _, w := range ws[1:] {
		t := w.text
		if hasField("-c -e -E -m -r -p --eval --print -Command -command -File -file -EncodedCommand", t) {
			return true
		}
		if strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.ContainsAny(t[1:], "ce") && len(t) <= 4 {
			return true
		}
	}
	return false
}

// readsStdinCode reports a command that runs whatever arrives on its stdin.
func readsStdinCode(c cmd) bool {
	if len(c.words) == 0 || !c.words[0].known || c.extra {
		return false
	}
	base := cmdBase(c.words[0].text)
	switch {
	case isShell(base):
		return parseShellArgs(c.words).stdin
	case base == "source" || base == ".":
		ops := operands(c.words[1:])
		return len(ops) > 0 && isStdinPath(ops[0].text)
	case isInterpreter(base):
		ops := operands(c.words[1:])
		return !hasCodeOption(c.words) && (len(ops) == 0 || isStdinPath(ops[0].text))
	case base == "awk" || base == "gawk" || base == "mawk" || base == "nawk":
		return awkRunsInput(c)
	}
	return false
}

func isShell(base string) bool {
	for _, s := range shellList {
		if s == base {
			return true
		}
	}
	return false
}

func isInterpreter(base string) bool {
	if strings.HasPrefix(base, "python") || strings.HasPrefix(base, "ruby") || strings.HasPrefix(base, "perl") {
		return true
	}
	for _, s := range interpreterList {
		if s == base {
			return true
		}
	}
	return false
}

// fetchers download text; decoders reveal text hidden from review. Either
// feeding a shell runs code nobody read.
var fetchers = map[string]bool{"curl": true, "wget": true, "fetch": true, "aria2c": true,
	"http": true, "https": true, "xh": true, "lwp-request": true, "get": true, "lynx": true,
	"links": true, "w3m": true, "elinks": true, "nc": true, "ncat": true, "netcat": true,
	"socat": true, "ftp": true, "tftp": true, "invoke-webrequest": true, "iwr": true,
	"invoke-restmethod": true, "irm": true}

// source names the program a command's output comes from when that output
// is fetched or decoded text, or "".
func source(c cmd) string {
	if len(c.words) == 0 {
		return ""
	}
	base := cmdBase(c.words[0].text)
	if fetchers[base] {
		return base
	}
	for _, w := range c.words[1:] {
		t := w.text
		switch {
		case base == "base64" && (t == "-d" || t == "--decode" || t == "-D"),
			base == "xxd" && strings.HasPrefix(t, "-r"),
			base == "openssl" && t == "-d":
			return base + " " + t
		}
	}
	return ""
}

// chain lists c and the commands it wraps, outermost first.
func (a *analyzer) chain(c cmd) []cmd {
	out := []cmd{c}
	for len(out) < maxWrappers {
		last := out[len(out)-1]
		if len(last.words) == 0 || !last.words[0].known {
			break
		}
		in, ok := a.inner(last)
		if !ok {
			break
		}
		out = append(out, in)
	}
	return out
}

// sourceIn names the fetcher or decoder anywhere in n, or "".
func (a *analyzer) sourceIn(n syntax.Node) string {
	for _, c := range a.cmdsIn(n) {
		for _, l := range a.chain(c) {
			if s := source(l); s != "" {
				return s
			}
		}
	}
	return ""
}

// stdinReaderIn names a command in n that runs its stdin as code, or "".
func (a *analyzer) stdinReaderIn(n syntax.Node) string {
	for _, c := range a.cmdsIn(n) {
		ch := a.chain(c)
		if last := ch[len(ch)-1]; readsStdinCode(last) {
			return cmdBase(last.words[0].text)
		}
	}
	return ""
}

// pipeline denies fetched or decoded text piped into something that runs
// it: curl ... | sh, wget -qO- ... | bash, base64 -d | sh, curl | tee >(sh).
func (a *analyzer) pipeline(b *syntax.BinaryCmd) {
	if a.seen[b] {
		return
	}
	from := ""
	stages := a.pipeStages(b)
	for i, st := range stages {
		if from != "" {
			if r := a.stdinReaderIn(st); r != "" {
				a.deny(nodeText(a.src, st), nodeText(a.src, b), "runs what "+from+" outputs as code, unread")
			}
		}
		if from == "" {
			from = a.sourceIn(st)
		}
		if i > 0 {
			a.pipedCode(stages[i-1], st)
			a.pipedPids(stages[i-1], st)
		}
	}
}

// pipedCode judges the text echo, printf or cat <<EOF writes into a
// shell as that shell's code: echo 'sudo id' | sh is sudo id.
func (a *analyzer) pipedCode(from, to *syntax.Stmt) {
	reader, ok := a.stdinReader(to)
	if !ok {
		return
	}
	name := cmdBase(reader.words[0].text)
	for _, text := range a.writtenText(from) {
		a.codeIn(reader, text, "in what "+name+" reads from "+quote(nodeText(a.src, from)), kindByName(name))
	}
}

// stdinReader finds the command in n that runs its stdin as code.
func (a *analyzer) stdinReader(n syntax.Node) (cmd, bool) {
	for _, c := range a.cmdsIn(n) {
		ch := a.chain(c)
		if last := ch[len(ch)-1]; readsStdinCode(last) && isShell(cmdBase(last.words[0].text)) {
			return last, true
		}
	}
	return cmd{}, false
}

// writtenText is what a statement of echo, printf or cat with a
// here-document prints, in every form a shell could print it (dash's echo
// reads backslash escapes, bash's does not), or nothing when that cannot
// be known.
func (a *analyzer) writtenText(st *syntax.Stmt) []word {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return nil
	}
	c := a.newCmd(st, call)
	var text string
	switch cmdBase(c.words[0].text) {
	case "echo":
		ws := c.words[1:]
		for len(ws) > 0 && hasField("-n -e -E -ne -en", ws[0].text) {
			ws = ws[1:]
		}
		text = joinWords(ws).text
		return knownTexts(c, text, xsiEcho(text))
	case "printf":
		if ops := operands(c.words[1:]); len(ops) == 1 && !strings.Contains(ops[0].text, "%") {
			return knownTexts(c, ansiC(ops[0].text))
		}
	case "cat":
		if len(c.words) == 1 {
			for _, r := range st.Redirs {
				switch r.Op {
				case syntax.Hdoc, syntax.DashHdoc:
					return knownTexts(c, a.env.hdoc(a.src, r).text)
				case syntax.WordHdoc:
					return knownTexts(c, a.env.word(a.src, r.Word).text+"\n")
				}
			}
		}
	}
	return nil
}

// knownTexts makes words of the texts that hold nothing unknown.
func knownTexts(c cmd, texts ...string) []word {
	var out []word
	for i, t := range texts {
		if !strings.Contains(t, unknown) && (i == 0 || t != texts[0]) {
			out = append(out, word{raw: c.text, text: t, known: true})
		}
	}
	return out
}

// xsiEcho decodes the escapes of dash's echo: \0NNN in octal, \c ends the
// output, and the C escapes.
func xsiEcho(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch c := s[i+1]; {
		case c == 'c':
			return b.String()
		case c == '0':
			n := 0
			for n < 3 && i+2+n < len(s) && s[i+2+n] >= '0' && s[i+2+n] <= '7' {
				n++
			}
			v, _ := strconv.ParseUint("0"+s[i+2:i+2+n], 8, 8)
			b.WriteByte(byte(v))
			i += 1 + n
		case strings.IndexByte("abfnrtv\\", c) >= 0:
			b.WriteString(ansiC(s[i : i+2]))
			i++
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func (a *analyzer) pipeStages(b *syntax.BinaryCmd) []*syntax.Stmt {
	a.seen[b] = true
	var out []*syntax.Stmt
	for _, s := range []*syntax.Stmt{b.X, b.Y} {
		if inner, ok := s.Cmd.(*syntax.BinaryCmd); ok && len(s.Redirs) == 0 &&
			(inner.Op == syntax.Pipe || inner.Op == syntax.PipeAll) {
			out = append(out, a.pipeStages(inner)...)
			continue
		}
		out = append(out, s)
	}
	return out
}

// downloadedArgs denies code runners given fetched text through a
// substitution: eval "$(curl ...)", sh <(curl ...), bash -c "$(wget -O- ...)",
// bash < <(curl ...), bash <<< "$(curl ...)".
func (a *analyzer) downloadedArgs(c cmd) {
	for _, w := range c.words[1:] {
		if w.node != nil {
			if s := a.substSource(w.node); s != "" {
				a.deny(w.raw, c.text, "runs what "+s+" outputs as code, unread")
			}
		}
	}
	if c.stmt == nil {
		return
	}
	for _, r := range c.stmt.Redirs {
		for _, w := range []*syntax.Word{r.Word, r.Hdoc} {
			if w == nil || r.Op == syntax.RdrOut || r.Op == syntax.AppOut {
				continue
			}
			if s := a.substSource(w); s != "" {
				a.deny(nodeText(a.src, r), c.text, "runs what "+s+" outputs as code, unread")
			}
		}
	}
}

// substSource looks for a fetcher or decoder inside the command and process
// substitutions of a word.
func (a *analyzer) substSource(w *syntax.Word) string {
	found := ""
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			found = a.sourceIn(n)
		case *syntax.ProcSubst:
			if n.Op != syntax.CmdOut {
				found = a.sourceIn(n)
			}
		}
		return found == ""
	})
	return found
}

// noteDownload remembers the files curl and wget save, so that running one
// later in the line (curl -o x.sh URL && sh x.sh) counts as curl | sh.
func (a *analyzer) noteDownload(c cmd) {
	base := cmdBase(c.words[0].text)
	ws := c.words[1:]
	var url, out string
	remoteName := base == "wget"
	for i := 0; i < len(ws); i++ {
		t := ws[i].text
		if v, used := savedAs(base, ws, i); v != nil {
			out = v.text
			i += used
			continue
		}
		switch {
		case base == "curl" && (t == "-O" || t == "--remote-name" || strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.Contains(t, "O")):
			remoteName = true
		case strings.Contains(t, "://"):
			url = t
		}
	}
	if out == "" && remoteName && url != "" {
		out = path.Base(strings.SplitN(strings.SplitN(url, "?", 2)[0], "#", 2)[0])
	}
	if out != "" && out != "-" && !strings.Contains(out, unknown) {
		a.env.downloads()[a.key(out)] = base
	}
}

// savedOutput remembers the file a fetcher's or decoder's output is
// redirected to (curl URL > i.sh && sh i.sh is curl | sh).
func (a *analyzer) savedOutput(s *syntax.Stmt, c cmd) {
	from := ""
	for _, l := range a.chain(c) {
		if from == "" && len(l.words) > 0 {
			from = source(l)
		}
	}
	if from == "" {
		return
	}
	for _, r := range s.Redirs {
		if fd := r.N; (fd == nil || fd.Value == "1") && outputOp(r.Op) {
			if t := a.env.word(a.src, r.Word); !strings.Contains(t.text, unknown) {
				a.env.downloads()[a.key(t.text)] = from
			}
		}
	}
}

func outputOp(op syntax.RedirOperator) bool {
	switch op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.AppAll:
		return true
	}
	return false
}

// savedAs returns the file curl -o or wget -O at ws[i] saves what it
// downloads to, and how many more words the option used.
func savedAs(base string, ws []word, i int) (*word, int) {
	if base == "wget" {
		return optValue(ws, i, 'O', outputTakers[base], "--output-document")
	}
	return outputValue(base, ws, i)
}

func (a *analyzer) key(p string) string {
	if a.env.cwd == "" {
		return path.Clean(p)
	}
	return joinPath(a.env.cwd, p)
}

// ranDownloaded denies running a file saved by curl or wget earlier in the
// same line.
func (a *analyzer) ranDownloaded(c cmd, file word) {
	if from, ok := a.env.downloads()[a.key(file.text)]; ok {
		a.deny(file.raw, c.text, "runs a file "+from+" downloaded in this line, unread")
	}
}
