package policy

import (
	"encoding/base64"
	"strings"
	"unicode/utf16"
)

// winJudge judges a line for cmd.exe or PowerShell, whose syntax the sh
// parser does not know. It is deliberately coarse: a line is allowed only
// when it is one plain command on the allow list with no operator,
// variable or redirection at all; the hard blocks are looked for in every
// command of the line, whatever spelling PowerShell's aliases and
// parameter abbreviations give them.
type winJudge struct {
	p     *Policy
	r     *report
	dir   string
	ps    bool // PowerShell, else cmd.exe
	depth int
	line  string // the whole line, for what its cutting into commands hides
}

func (p *Policy) judgeWindows(r *report, command, dir string, ps bool, depth int) {
	w := &winJudge{p: p, r: r, dir: dir, ps: ps, depth: depth, line: command}
	if depth > maxDepth {
		r.askf(command, "", "shell code nested too deep to judge")
		return
	}
	line := winSplit(command, ps)
	w.runsFetched(command, line)
	w.secretVars(command)
	w.codeInStrings(command)
	w.dotNetWrites(command)
	w.ranDownloaded(line)
	for _, pipe := range line.pipes {
		for i, c := range pipe {
			w.command(c, pipe[:i])
		}
	}
	w.coarse(command, line)
}

func (w *winJudge) shellName() string {
	if w.ps {
		return "PowerShell"
	}
	return "cmd.exe"
}

// coarse asks about all but one plain command of the allow list.
func (w *winJudge) coarse(command string, line winLine) {
	switch {
	case len(line.pipes) == 0:
	case strings.ContainsAny(command, ";|&<>$`%^()\n@{}") || len(line.pipes) > 1:
		w.r.askf(command, "", "operators, variables and redirections are not judged for "+w.shellName())
	default:
		c := line.pipes[0][0]
		if builtinsAllowed[c.name] || w.p.onAllowListPlain(c) {
			w.p.nonPOSIXReads(w.r, command, c.words[1:])
			w.tableReads(c, command)
			w.optionWrites(c, command)
			return
		}
		w.r.note(askSoft, c.raw[0], command, "not on the allow list")
	}
}

// command applies the hard blocks to one command; upstream are the
// commands piping into it.
func (w *winJudge) command(c winCmd, upstream []winCmd) {
	for _, t := range c.redirs {
		w.written(t, c.text)
	}
	if len(c.words) == 0 {
		return
	}
	ws := plainWords(c)
	w.configDeny(c, ws)
	if rule := leaving[c.name]; rule != nil {
		key, _ := commandKey(ws)
		if why := rule(key, ws); why != "" {
			w.r.leave(c.text, "", why)
		}
	}
	if rule := winRules[c.name]; rule != nil {
		rule(w, c, upstream)
	} else if why := whyByName[c.name]; why != "" {
		w.r.denyf(c.raw[0], c.text, why)
	}
}

// plainWords are c's words as the sh analysis has them, the name made
// what it runs, for the allow list, deny rules and the leaving table.
func plainWords(c winCmd) []word {
	ws := make([]word, len(c.words))
	for i, t := range c.words {
		ws[i] = word{raw: c.raw[i], text: t, known: true}
	}
	ws[0].text = c.name
	return ws
}

func (w *winJudge) configDeny(c winCmd, ws []word) {
	for _, rule := range w.p.denyRules {
		if hit, _ := rule.match(ws); hit {
			w.r.denyf(c.text, "", "matches the deny rule "+quote(rule.raw))
		}
	}
}

// winRule judges one command by what it runs.
type winRule func(w *winJudge, c winCmd, upstream []winCmd)

// winRules maps what a command runs to its rule. Filled in init: the
// rules of nested shells call back into the judge, which reads this map.
var winRules map[string]winRule

func init() {
	winRules = map[string]winRule{
		"remove-item": (*winJudge).removeItem,
		"format":      denyDisk, "diskpart": denyDisk, "clear-disk": denyDisk, "format-volume": denyDisk,
		"initialize-disk": denyDisk, "remove-partition": denyDisk,
		"stop-computer": denyPower, "restart-computer": denyPower,
		"start-process": (*winJudge).startProcess,
		"stop-process":  (*winJudge).stopProcess, "taskkill": (*winJudge).stopProcess,
		"set-executionpolicy": (*winJudge).executionPolicy,
		"vssadmin":            denyWord("delete", "deletes the system's restore points"),
		"wbadmin":             denyWord("delete", "deletes the system's backups"),
		"bcdedit":             denyAlways("changes how the machine starts"),
		"set-mppreference":    denyWord("-disable", "turns off the virus scanner"),
		"add-mppreference":    denyWord("-exclusion", "hides files from the virus scanner"),
		"icacls":              (*winJudge).permissions, "takeown": (*winJudge).permissions,
		"set-content": (*winJudge).writes, "add-content": (*winJudge).writes, "out-file": (*winJudge).writes,
		"tee-object": (*winJudge).writes, "new-item": (*winJudge).writes, "set-item": (*winJudge).writes,
		"copy-item": (*winJudge).copies, "move-item": (*winJudge).copies, "rename-item": (*winJudge).copies,
		"cmd":        (*winJudge).nestedCmd,
		"powershell": (*winJudge).nestedPowerShell, "pwsh": (*winJudge).nestedPowerShell,
		"bash": (*winJudge).nestedSh, "sh": (*winJudge).nestedSh, "wsl": (*winJudge).nestedSh,
		"mshta": (*winJudge).scriptHost, "regsvr32": (*winJudge).scriptHost, "rundll32": (*winJudge).scriptHost,
	}
	addWinBlocks()
	for _, n := range []string{"sudo", "runas", "gsudo", "psexec", "psexec64", "shutdown"} {
		if whyByName[n] == "" {
			whyByName[n] = "runs as another user"
		}
	}
}

func denyDisk(w *winJudge, c winCmd, _ []winCmd) {
	w.r.denyf(c.raw[0], c.text, "formats or repartitions a disk")
}

func denyPower(w *winJudge, c winCmd, _ []winCmd) {
	w.r.denyf(c.raw[0], c.text, "stops or restarts the machine")
}

func denyAlways(why string) winRule {
	return func(w *winJudge, c winCmd, _ []winCmd) { w.r.denyf(c.raw[0], c.text, why) }
}

// denyWord denies the command when one of its words starts with prefix.
func denyWord(prefix, why string) winRule {
	return func(w *winJudge, c winCmd, _ []winCmd) {
		for _, t := range c.words[1:] {
			if strings.HasPrefix(strings.ToLower(t), prefix) {
				w.r.denyf(c.text, "", why)
				return
			}
		}
	}
}

// param reports whether word t is PowerShell's -name (any unambiguous
// abbreviation of at least min letters, -name:value too) or cmd's /name.
func param(t, name string, min int) bool {
	t = strings.ToLower(t)
	if strings.HasPrefix(t, "/") {
		return t == "/"+name
	}
	if !strings.HasPrefix(t, "-") {
		return false
	}
	t, _, _ = strings.Cut(t[1:], ":")
	return len(t) >= min && strings.HasPrefix(name, t)
}

// paramValue returns the value of PowerShell's -name VALUE or -name:VALUE.
func paramValue(ws []string, name string, min int) (string, bool) {
	for i, t := range ws {
		if !param(t, name, min) || strings.HasPrefix(t, "/") {
			continue
		}
		if _, v, ok := strings.Cut(t, ":"); ok {
			return v, true
		}
		if i+1 < len(ws) {
			return ws[i+1], true
		}
	}
	return "", false
}

// removeValueParams are Remove-Item's parameters that take a value that is
// not a path.
var removeValueParams = []string{"filter", "include", "exclude", "credential", "stream"}

// removeItem denies recursive deletes of a drive, the home folder, the
// root or a system folder (rm -r -fo C:\, rd /s /q %USERPROFILE%, del /s
// /q C:\*, gci C:\ -r | ri), and deletes of protected paths.
func (w *winJudge) removeItem(c winCmd, upstream []winCmd) {
	recursive, filtered, targets := removeArgs(c.words[1:])
	if len(targets) == 0 && len(upstream) > 0 {
		// Get-ChildItem X -Recurse | Remove-Item: what is listed goes.
		if up := upstream[len(upstream)-1]; up.name == "ls" {
			upRecursive := false
			upRecursive, filtered, targets = removeArgs(up.words[1:])
			recursive = recursive || upRecursive
			if len(targets) == 0 {
				targets = []string{"."}
			}
		}
	}
	for _, t := range targets {
		kind, why := w.broad(t)
		if kind != notBroad && (recursive && (!filtered || kind >= kindHome) || kind == kindEverything) {
			w.r.denyf(t, c.text, "deletes "+why)
		}
		if pat := w.p.protect.match(winPath(t), w.dir); pat != "" {
			w.r.denyf(t, c.text, "deletes a protected path ("+pat+")")
		}
	}
}

// removeArgs reads Remove-Item's and rd/del's words.
func removeArgs(ws []string) (recursive, filtered bool, targets []string) {
	for i := 0; i < len(ws); i++ {
		t := ws[i]
		switch {
		case param(t, "recurse", 1) || param(t, "s", 1):
			recursive = true
		case param(t, "path", 1) || param(t, "literalpath", 1):
			if _, v, ok := strings.Cut(t, ":"); ok {
				targets = append(targets, v)
			} else if i+1 < len(ws) {
				targets = append(targets, ws[i+1])
				i++
			}
		case isValueParam(t, removeValueParams):
			filtered = filtered || !param(t, "credential", 2)
			if !strings.Contains(t, ":") {
				i++
			}
		case strings.HasPrefix(t, "-") || len(t) == 2 && t[0] == '/':
		default:
			targets = append(targets, t)
		}
	}
	return recursive, filtered, targets
}

func isValueParam(t string, names []string) bool {
	for _, n := range names {
		if param(t, n, 2) {
			return true
		}
	}
	return false
}

// startProcess denies elevation: Start-Process -Verb RunAs.
func (w *winJudge) startProcess(c winCmd, _ []winCmd) {
	if v, ok := paramValue(c.words[1:], "verb", 4); ok && strings.HasPrefix(strings.ToLower(v), "runas") {
		w.r.denyf(c.text, "", "runs as another user (elevated)")
	}
	w.startedCommand(c)
}

// startedCommand judges what Start-Process starts as a command of the
// line: the program (-FilePath or the first operand) with -ArgumentList
// or the words after it, so start cmd /c rd /s /q C:\ is cmd /c rd ...
func (w *winJudge) startedCommand(c winCmd) {
	ws := c.words[1:]
	prog, named := paramValue(ws, "filepath", 1)
	var args []string
	for i := 0; i < len(ws); i++ {
		switch t := ws[i]; {
		case strings.HasPrefix(t, "-"):
			if isValueParam(t, startValueParams) && !strings.Contains(t, ":") {
				i++
			}
		case !named && prog == "":
			prog = t
		default:
			args = append(args, t)
		}
	}
	if prog == "" || strings.EqualFold(winName(prog), "start-process") {
		return
	}
	if v, found := paramValue(ws, "argumentlist", 1); found {
		args = nil
		for _, a := range strings.Split(v, ",") {
			args = append(args, unquote(strings.TrimSpace(a)))
		}
	}
	if started, ok := newWinCmd(strings.Join(append([]string{prog}, quoteAll(args)...), " "), w.ps); ok && w.depth < maxDepth {
		w.depth++
		w.command(started, nil)
		w.depth--
	}
}

// startValueParams are Start-Process's parameters that take a value.
var startValueParams = []string{"filepath", "argumentlist", "verb", "workingdirectory", "windowstyle",
	"credential", "redirectstandardinput", "redirectstandardoutput", "redirectstandarderror"}

// quoteAll quotes the words that hold a blank, so that they stay words.
func quoteAll(ws []string) []string {
	out := make([]string, len(ws))
	for i, t := range ws {
		out[i] = t
		if strings.ContainsAny(t, " \t") {
			out[i] = `"` + t + `"`
		}
	}
	return out
}

// stopProcess denies killing the helper or its host, and Get-Process |
// Stop-Process, which kills every process.
//
// The whole line is searched for their names and pids: cutting it into
// commands parts Stop-Process -Id (Get-Process code).Id from the name.
func (w *winJudge) stopProcess(c winCmd, upstream []winCmd) {
	if n := w.p.procs.namedIn(w.line); n != "" {
		w.r.denyf(c.text, "", "kills "+n+", the helper or the editor that hosts it")
	}
	all := len(upstream) > 0 && upstream[len(upstream)-1].name == "ps" && len(winOperands(upstream[len(upstream)-1].words[1:])) == 0
	if all && len(winOperands(c.words[1:])) == 0 || c.name == "taskkill" && strings.Contains(c.text, "*") {
		w.r.denyf(c.text, "", "kills every process, the helper and its host among them")
	}
}

// executionPolicy: lowering the script policy for the process is asked
// about; for the user or the machine it outlives the command: denied.
func (w *winJudge) executionPolicy(c winCmd, _ []winCmd) {
	if v, ok := paramValue(c.words[1:], "scope", 2); ok && strings.EqualFold(v, "process") {
		return
	}
	w.r.denyf(c.text, "", "changes the script execution policy of the user or the machine")
}

// permissions denies icacls ... /T and takeown /R on broad targets.
func (w *winJudge) permissions(c winCmd, _ []winCmd) {
	recursive := false
	var targets []string
	for i, t := range c.words[1:] {
		lt := strings.ToLower(t)
		switch {
		case lt == "/t" || lt == "/r":
			recursive = true
		case lt == "/f" && c.name == "takeown" && i+2 < len(c.words):
			targets = append(targets, c.words[i+2])
		case !strings.HasPrefix(lt, "/") && i == 0 && c.name == "icacls":
			targets = append(targets, t)
		}
	}
	for _, t := range targets {
		if kind, why := w.broad(t); recursive && kind != notBroad {
			w.r.denyf(t, c.text, "changes permissions or owner of "+why)
		}
	}
}

// written denies a write to a protected path.
func (w *winJudge) written(t, in string) {
	if pat := w.p.protect.match(winPath(t), w.dir); pat != "" {
		w.r.denyf(t, in, "writes to a protected path ("+pat+")")
	}
}

// writes judges the file Set-Content, Out-File, New-Item and the like
// write: -Path, -FilePath, -LiteralPath or the first operand.
func (w *winJudge) writes(c winCmd, _ []winCmd) {
	for _, name := range []string{"path", "filepath", "literalpath"} {
		if v, ok := paramValue(c.words[1:], name, len(name)); ok {
			w.written(v, c.text)
		}
	}
	if ops := winOperands(c.words[1:]); len(ops) > 0 {
		w.written(ops[0], c.text)
	}
}

// copies judges the destination of Copy-Item, Move-Item, copy and move
// (-Destination or the last operand), and a protected path moved away.
func (w *winJudge) copies(c winCmd, _ []winCmd) {
	ops := winOperands(c.words[1:])
	if v, ok := paramValue(c.words[1:], "destination", 1); ok {
		ops = append(ops, v)
	}
	if len(ops) < 2 {
		return
	}
	dest := ops[len(ops)-1]
	w.written(dest, c.text)
	for _, src := range ops[:len(ops)-1] {
		w.written(strings.TrimSuffix(winPath(dest), "/")+"/"+baseName(winPath(src)), c.text)
		if pat := w.p.protect.match(winPath(src), w.dir); pat != "" && c.name != "copy-item" {
			w.r.denyf(src, c.text, "moves a protected path away ("+pat+")")
		}
	}
}

// winOperands are the words that are not parameters or switches (nor the
// value of a parameter that takes one, which cannot be told apart: all
// are taken).
func winOperands(ws []string) []string {
	var out []string
	for _, t := range ws {
		if !strings.HasPrefix(t, "-") && !(len(t) == 2 && t[0] == '/') {
			out = append(out, t)
		}
	}
	return out
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// winPath is a Windows path with forward slashes.
func winPath(t string) string { return strings.ReplaceAll(t, `\`, "/") }

// nestedCmd judges cmd /c CODE (and /k) with cmd.exe's rules.
//
// The code may follow the switch at once: cmd /c"rd /s /q C:\".
func (w *winJudge) nestedCmd(c winCmd, _ []winCmd) {
	for i, t := range c.raw[1:] {
		lt := strings.ToLower(t)
		if len(lt) < 2 || !hasField("/c /k /r", lt[:2]) {
			continue
		}
		code := strings.Join(append([]string{unquote(t[2:])}, c.words[i+2:]...), " ")
		w.p.judgeWindows(w.r, code, w.dir, false, w.depth+1)
		return
	}
}

// nestedPowerShell judges powershell -Command CODE with PowerShell's
// rules, and denies -EncodedCommand: text decoded and run unread.
//
// Windows PowerShell takes its first operand and all after it as the
// command (powershell Remove-Item ~); pwsh takes it as a script file.
func (w *winJudge) nestedPowerShell(c winCmd, _ []winCmd) {
	ws := c.words[1:]
	for i := 0; i < len(ws); i++ {
		t := ws[i]
		switch {
		case (param(t, "encodedcommand", 1) || strings.EqualFold(t, "-ec")) && !param(t, "executionpolicy", 2):
			w.r.denyf(c.text, "", "runs text decoded from base64 as code, unread")
			if i+1 < len(ws) {
				if code, ok := decodePowerShell(ws[i+1]); ok {
					w.p.judgeWindows(w.r, code, w.dir, true, w.depth+1)
				}
			}
			return
		case param(t, "command", 1):
			w.p.judgeWindows(w.r, strings.Join(c.words[i+2:], " "), w.dir, true, w.depth+1)
			return
		case param(t, "file", 1):
			return
		case strings.HasPrefix(t, "-"):
			if isValueParam(t, psValueParams) && !strings.Contains(t, ":") {
				i++
			}
		case c.name == "powershell":
			w.p.judgeWindows(w.r, strings.Join(ws[i:], " "), w.dir, true, w.depth+1)
			return
		default:
			return
		}
	}
}

// psValueParams are powershell.exe's parameters that take a value.
var psValueParams = []string{"executionpolicy", "windowstyle", "outputformat", "inputformat",
	"configurationname", "workingdirectory", "psconsolefile", "version", "settingsfile", "custompipename"}

// decodePowerShell decodes -EncodedCommand's base64 of UTF-16LE text.
func decodePowerShell(b64 string) (string, bool) {
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(raw)%2 != 0 {
		return "", false
	}
	u := make([]uint16, len(raw)/2)
	for i := range u {
		u[i] = uint16(raw[2*i]) | uint16(raw[2*i+1])<<8
	}
	return string(utf16.Decode(u)), true
}

// nestedSh judges bash -c CODE, sh -c CODE and wsl CMD with the sh rules.
func (w *winJudge) nestedSh(c winCmd, _ []winCmd) {
	ws := c.words[1:]
	if c.name == "wsl" {
		for len(ws) > 1 && hasField("-d --distribution -u --user --cd", ws[0]) {
			ws = ws[2:]
		}
		if len(ws) > 0 && hasField("-e --exec --", ws[0]) {
			ws = ws[1:]
		}
		w.p.analyze(w.r, strings.Join(ws, " "), w.dir, nil)
		return
	}
	for i, t := range ws {
		if t == "-c" || strings.HasPrefix(t, "-") && strings.Contains(t, "c") && !strings.HasPrefix(t, "--") {
			w.p.analyze(w.r, strings.Join(ws[i+1:], " "), w.dir, nil)
			return
		}
	}
}

// scriptHost denies mshta, regsvr32 and rundll32 given a URL or script
// code: they run what they fetch.
func (w *winJudge) scriptHost(c winCmd, _ []winCmd) {
	lower := strings.ToLower(c.text)
	if strings.Contains(lower, "http:") || strings.Contains(lower, "https:") || strings.Contains(lower, "javascript:") ||
		strings.Contains(lower, "vbscript:") || strings.Contains(lower, "scrobj") {
		w.r.denyf(c.text, "", "runs downloaded code, unread")
	}
}

// runsFetched denies a line that runs text it downloads or decodes:
// iex (iwr URL), iwr URL | iex, [scriptblock]::Create((irm URL)), iex of
// [Convert]::FromBase64String(...).
func (w *winJudge) runsFetched(command string, line winLine) {
	lower := strings.ToLower(command)
	runs, fetches := strings.Contains(lower, "[scriptblock]::create"), false
	for _, pipe := range line.pipes {
		for _, c := range pipe {
			for _, t := range c.words {
				runs = runs || winName(t) == "invoke-expression" // also as the code of powershell -c "iex ..."
			}
			runs = runs || c.name == "invoke-command" || readsCode(c)
			fetches = fetches || c.name == "invoke-webrequest" || c.name == "invoke-restmethod" ||
				c.name == "start-bitstransfer" || c.name == "certutil" || c.name == "bitsadmin"
		}
	}
	for _, s := range []string{"net.webclient", "downloadstring", "downloaddata", "downloadfile", "http://",
		"https://", "frombase64string"} {
		fetches = fetches || strings.Contains(lower, s)
	}
	if runs && fetches {
		w.r.denyf(command, "", "runs downloaded or decoded text as code, unread")
	}
}

// readsCode reports a shell that runs what comes on its standard input:
// powershell -, powershell -Command -, cmd without /c.
func readsCode(c winCmd) bool {
	if len(c.words) == 0 {
		return false
	}
	ws := c.words[1:]
	switch c.name {
	case "powershell", "pwsh":
		return len(ws) > 0 && ws[len(ws)-1] == "-"
	case "cmd":
		for _, t := range ws {
			if lt := strings.ToLower(t); len(lt) >= 2 && hasField("/c /k /r", lt[:2]) {
				return false
			}
		}
		return true
	}
	return false
}

// winVarRef finds $env:NAME, ${env:NAME}, %NAME% and env:NAME.
var winVarRef = lazyRegexp(`(?i)(?:\$\{?env:|%|\benv:)([A-Za-z_][A-Za-z0-9_]*)`)

// secretVars asks about reading a secret variable's value.
func (w *winJudge) secretVars(command string) {
	for _, m := range winVarRef.FindAllStringSubmatch(command, -1) {
		if w.p.secretVar(m[1]) {
			w.r.note(askSecret, m[0], command, "reads the value of "+m[1]+secretWhy)
		}
	}
}

// broad classifies a delete target as the sh rules do, once the variables
// and spellings of Windows are turned into paths, without regard to case.
func (w *winJudge) broad(t string) (targetKind, string) {
	lp := *w.p
	lp.root, lp.home = strings.ToLower(w.p.root), strings.ToLower(w.p.home)
	lp.realRoot, lp.realHome = lp.root, lp.home
	a := &analyzer{p: &lp, env: &shellEnv{home: lp.home, cwd: strings.ToLower(w.dir), vars: map[string]string{}}}
	p := w.expand(strings.ToLower(winPath(t)))
	return a.broad(word{raw: t, text: p, known: true, glob: strings.ContainsAny(p, "*?")})
}

// devicePath is a path through the device namespace (\\?\C:\, \\.\C:\) or
// a drive's administrative share (\\localhost\C$\), which name C:\ too.
var devicePath = lazyRegexp(`^//(?:[?.]|localhost|127\.0\.0\.1)/(?:unc/)?([a-z])[:$]`)

// expand turns Windows' names for places into paths: ~, $HOME,
// $env:USERPROFILE, %USERPROFILE%, the system drive and folders, $PWD.
func (w *winJudge) expand(p string) string {
	home, dir := strings.ToLower(w.p.home), strings.ToLower(w.dir)
	p = devicePath.ReplaceAllString(p, "$1:")
	for _, r := range [][2]string{
		{"%homedrive%%homepath%", home}, {"$env:homedrive$env:homepath", home},
		{"${env:userprofile}", home}, {"$env:userprofile", home}, {"%userprofile%", home}, {"$home", home},
		{"$env:systemdrive", "c:"}, {"%systemdrive%", "c:"}, {"$env:windir", "c:/windows"}, {"%windir%", "c:/windows"},
		{"$env:systemroot", "c:/windows"}, {"%systemroot%", "c:/windows"}, {"$env:programfiles", "c:/program files"},
		{"%programfiles%", "c:/program files"}, {"$pwd", dir}, {"%cd%", dir},
	} {
		if rest, ok := strings.CutPrefix(p, r[0]); ok {
			return r[1] + rest
		}
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		return home + p[1:]
	}
	if p == "/" || strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "//") {
		return "c:" + p // \ and \* are the current drive's root
	}
	return p
}

// onAllowListPlain matches one command of a Windows line against the
// allow list and the "always" entries, by what it runs (Get-ChildItem is
// ls).
func (p *Policy) onAllowListPlain(c winCmd) bool {
	ws := plainWords(c)
	for _, e := range splitEntries(p.cfg.Policy.Allow) {
		if matchEntry(e, ws) {
			return true
		}
	}
	for _, e := range splitEntries(p.alwaysEntries()) {
		e[0] = winName(e[0])
		if matchAlways(e, ws) {
			return true
		}
	}
	return false
}

// insideFold is inside, without regard to case where the file system has
// none.
func insideFold(dir, p string, fold bool) bool {
	if fold {
		dir, p = strings.ToLower(dir), strings.ToLower(p)
	}
	return inside(dir, p)
}
