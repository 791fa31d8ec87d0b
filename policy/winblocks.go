package policy

import (
	"strconv"
	"strings"
)

// The Windows hard blocks reached in ways that cutting a line into
// commands does not show: code in a string handed to Invoke-Expression
// or [ScriptBlock]::Create, .NET file methods, files downloaded and run
// later in the line, processes named somewhere else in the line.

// addWinBlocks adds their rules to winRules (from windows.go's init, which
// makes the map).
func addWinBlocks() {
	for name, rule := range map[string]winRule{
		"robocopy": (*winJudge).robocopy, "mklink": (*winJudge).mklink,
		"export-csv": (*winJudge).writes, "export-clixml": (*winJudge).writes, "start-transcript": (*winJudge).writes,
		"invoke-webrequest": (*winJudge).outFile, "invoke-restmethod": (*winJudge).outFile,
		"start-bitstransfer": (*winJudge).outFile, "wmic": (*winJudge).wmic,
		"set-mppreference": denyWords("changes or turns off the virus scanner", "-disable", "-exclusion"),
	} {
		winRules[name] = rule
	}
	winAliases["epcsv"] = "export-csv"
}

// namedIn returns the protected process name the text holds: the helper,
// its host, or their pids as words, or "".
func (pi procInfo) namedIn(text string) string {
	lower := strings.ToLower(text)
	for _, n := range pi.names {
		if strings.Contains(lower, n) {
			return n
		}
	}
	for _, f := range strings.FieldsFunc(lower, func(r rune) bool { return r < '0' || r > '9' }) {
		if f == strconv.Itoa(pi.helperPID) || f == strconv.Itoa(pi.hostPID) {
			return "process " + f
		}
	}
	return ""
}

// denyWords denies the command when one of its words starts with one of
// prefixes.
func denyWords(why string, prefixes ...string) winRule {
	return func(w *winJudge, c winCmd, _ []winCmd) {
		for _, t := range c.words[1:] {
			for _, p := range prefixes {
				if strings.HasPrefix(strings.ToLower(t), p) {
					w.r.denyf(c.text, "", why)
					return
				}
			}
		}
	}
}

// codeString finds PowerShell code given as a string to what runs it:
// iex 'code', Invoke-Expression -Command "code", [ScriptBlock]::Create('code'),
// Invoke-Command -ScriptBlock ([scriptblock]::Create("code")).
var codeString = lazyRegexp(`(?i)(?:\[scriptblock\]::create|\biex|\binvoke-expression(?:\s+-c\w*)?)\s*\(?\s*(?:'([^']*)'|"([^"]*)")`)

// codeInStrings judges the code such strings hold as PowerShell lines.
func (w *winJudge) codeInStrings(command string) {
	if !w.ps {
		return
	}
	for _, m := range codeString.FindAllStringSubmatch(command, -1) {
		w.p.judgeWindows(w.r, m[1]+m[2], w.dir, true, w.depth+1)
	}
}

// dotNetWrite finds .NET's file and folder methods given a literal path:
// [IO.File]::WriteAllText('.git\hooks\pre-commit', ...), the second path
// of Copy and Move.
var dotNetWrite = lazyRegexp(`(?i)\[(?:system\.)?io\.(?:file|directory)\]::(\w+)\s*\(\s*['"]([^'"]*)['"](?:\s*,\s*['"]([^'"]*)['"])?`)

// dotNetWrites denies those that write, delete or move a protected path.
func (w *winJudge) dotNetWrites(command string) {
	for _, m := range dotNetWrite.FindAllStringSubmatch(command, -1) {
		method := strings.ToLower(m[1])
		switch {
		case strings.HasPrefix(method, "write"), strings.HasPrefix(method, "append"), strings.HasPrefix(method, "create"),
			method == "delete", method == "setattributes", method == "encrypt":
			w.written(m[2], command)
		case method == "copy" || method == "move" || method == "replace":
			w.written(m[3], command)
			if method != "copy" {
				w.written(m[2], command)
			}
		}
	}
}

// robocopy SOURCE DEST [FILES]: DEST is written.
func (w *winJudge) robocopy(c winCmd, _ []winCmd) {
	if ops := winOperands(c.words[1:]); len(ops) > 1 {
		w.written(ops[1], c.text)
		for _, f := range ops[2:] {
			w.written(strings.TrimSuffix(winPath(ops[1]), "/")+"/"+f, c.text)
		}
	}
}

// mklink LINK TARGET makes LINK.
func (w *winJudge) mklink(c winCmd, _ []winCmd) {
	if ops := winOperands(c.words[1:]); len(ops) > 0 {
		w.written(ops[0], c.text)
	}
}

// outFile judges the file a download is saved to (-OutFile, -Destination).
func (w *winJudge) outFile(c winCmd, _ []winCmd) {
	for _, name := range []string{"outfile", "destination"} {
		if v, ok := paramValue(c.words[1:], name, 2); ok {
			w.written(v, c.text)
		}
	}
}

// wmic: deleting the shadow copies, or processes of the helper or host.
func (w *winJudge) wmic(c winCmd, _ []winCmd) {
	lower := strings.ToLower(c.text)
	deletes := strings.Contains(lower, "delete") || strings.Contains(lower, "terminate")
	switch {
	case deletes && strings.Contains(lower, "shadowcopy"):
		w.r.denyf(c.text, "", "deletes the system's restore points")
	case deletes && strings.Contains(lower, "process"):
		if n := w.p.procs.namedIn(w.line); n != "" {
			w.r.denyf(c.text, "", "kills "+n+", the helper or the editor that hosts it")
		}
	}
}

// downloadTo returns the file a command saves a download to, or "".
func downloadTo(c winCmd) string {
	if len(c.words) == 0 {
		return ""
	}
	ws := c.words[1:]
	switch c.name {
	case "invoke-webrequest", "invoke-restmethod":
		v, _ := paramValue(ws, "outfile", 2)
		return v
	case "start-bitstransfer":
		v, _ := paramValue(ws, "destination", 2)
		return v
	case "certutil", "bitsadmin":
		if ops := winOperands(ws); len(ops) > 1 {
			return ops[len(ops)-1]
		}
	}
	return ""
}

// ranDownloaded denies running, later in the line, a file the line
// downloads: iwr URL -OutFile i.ps1; .\i.ps1, as curl -o x && sh x is.
func (w *winJudge) ranDownloaded(line winLine) {
	saved := map[string]bool{}
	for _, pipe := range line.pipes {
		for _, c := range pipe {
			for _, run := range runsFile(c) {
				if saved[sameFile(run)] {
					w.r.denyf(c.text, "", "runs a file downloaded in this line, unread")
				}
			}
			if f := downloadTo(c); f != "" {
				saved[sameFile(f)] = true
			}
		}
	}
}

// runsFile lists the files a command runs: itself, the script
// powershell -File or cmd /c runs, what Start-Process starts.
func runsFile(c winCmd) []string {
	if len(c.words) == 0 {
		return nil
	}
	out := []string{c.words[0]}
	for i, t := range c.words[1:] {
		if (param(t, "file", 1) || param(t, "filepath", 5) || hasField("/c /k", strings.ToLower(t))) && i+2 < len(c.words) {
			out = append(out, c.words[i+2])
		}
	}
	if c.name == "start-process" && len(c.words) > 1 {
		out = append(out, c.words[1])
	}
	return out
}

// sameFile is a path as two commands of a line would both name it.
func sameFile(p string) string {
	return strings.TrimPrefix(strings.ToLower(winPath(p)), "./")
}
