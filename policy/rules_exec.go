package policy

import (
	"path"
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
func codeOptRule(a *analyzer, c cmd) {
	ws := c.words
	for i := 1; i+1 < len(ws); i++ {
		if ws[i].text == "-c" || ws[i].text == "--command" {
			a.codeIn(c, ws[i+1], "inside "+cmdBase(ws[0].text)+" -c", kindSh)
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
		case (t == "-S" || t == "--split-string") && i+1 < len(ws):
			a.codeString(c, ws[i+1], "inside env -S")
		case strings.HasPrefix(t, "--split-string="):
			v := ws[i]
			v.text = strings.TrimPrefix(t, "--split-string=")
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
	for _, st := range a.pipeStages(b) {
		if from != "" {
			if r := a.stdinReaderIn(st); r != "" {
				a.deny(nodeText(a.src, st), nodeText(a.src, b), "runs what "+from+" outputs as code, unread")
			}
		}
		if from == "" {
			from = a.sourceIn(st)
		}
	}
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
		switch {
		case (t == "-o" && base == "curl" || t == "-O" && base == "wget" || t == "--output" ||
			t == "--output-document") && i+1 < len(ws):
			out = ws[i+1].text
			i++
		case strings.HasPrefix(t, "--output-document=") || strings.HasPrefix(t, "--output="):
			_, out, _ = strings.Cut(t, "=")
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
