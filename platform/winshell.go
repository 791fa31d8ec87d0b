package platform

import (
	"path"
	"sort"
	"strings"
)

// The Windows command line is built here, without build tags, so that its
// quoting is tested on every system: Windows hands a program one string,
// and each program splits it by its own rules.

// powerShellPreamble makes PowerShell read and write UTF-8, whatever the
// console's code page, so that non-ASCII text survives both ways.
const powerShellPreamble = "[Console]::OutputEncoding=[Text.Encoding]::UTF8;$OutputEncoding=[Text.Encoding]::UTF8;"

// powerShellEpilogue makes the exit code that of the last command, as sh
// does: with -Command, PowerShell itself only exits 0 or 1. It runs on a
// line of its own, so that a trailing comment in the command cannot hide it.
const powerShellEpilogue = "\n$__thOk=$?; if ($__thOk) { exit 0 }; " +
	"if ((Test-Path variable:LASTEXITCODE) -and $LASTEXITCODE) { exit $LASTEXITCODE }; exit 1"

// cmdPreamble switches the command's console to UTF-8 (code page 65001)
// before the command runs, as the PowerShell preamble does. cmd, and the
// console programs it starts, write to a pipe in the console's code page,
// which cannot hold most of Unicode ("日本" leaves cmd as "??"), so no
// decoding in the helper could restore the text; with 65001 it arrives as
// UTF-8, as it already does from Go, node, Rust and git. The console is
// the command's own (its pseudo console, or the hidden one that
// CREATE_NO_WINDOW gives it), never the user's. chcp.com is named by its
// full path: cmd looks for a bare name in the current folder, the
// project's, before PATH.
const cmdPreamble = `"%SystemRoot%\System32\chcp.com" 65001 >nul 2>&1 & `

// Shell kinds, by the rules their command lines follow.
const (
	kindPowerShell = "powershell"
	kindCmd        = "cmd"
	kindPosix      = "posix"
)

// WindowsShellArgv returns the argv that runs command under shell on
// Windows. shell is the config's: "" (PowerShell: pwsh if lookPath finds
// it, else powershell.exe), "pwsh", "powershell", "cmd", or a path. The
// program is looked up here, so that CreateProcess never searches the
// current directory, which is the project's. Pass the result to
// WindowsCommandLine, which knows cmd's rules.
func WindowsShellArgv(shell, command string, lookPath func(string) (string, error)) []string {
	exe, kind := windowsShell(shell, lookPath)
	switch kind {
	case kindPowerShell:
		return []string{exe, "-NoLogo", "-NoProfile", "-NonInteractive", "-Command", powerShellScript(command)}
	case kindCmd:
		return []string{exe, "/d", "/s", "/c", cmdScript(command)}
	}
	return []string{exe, "-c", command}
}

// windowsShell finds the program for shell and the rules it follows.
func windowsShell(shell string, lookPath func(string) (string, error)) (exe, kind string) {
	find := func(name string) string {
		if p, err := lookPath(name); err == nil {
			return p
		}
		return name
	}
	switch strings.ToLower(shell) {
	case "":
		if p, err := lookPath("pwsh.exe"); err == nil {
			return p, kindPowerShell
		}
		return find("powershell.exe"), kindPowerShell
	case "pwsh":
		return find("pwsh.exe"), kindPowerShell
	case "powershell":
		return find("powershell.exe"), kindPowerShell
	case "cmd":
		return find("cmd.exe"), kindCmd
	}
	return shell, windowsShellKind(shell)
}

// windowsShellKind tells a shell's rules from its file name.
func windowsShellKind(exe string) string {
	base := strings.ToLower(path.Base(strings.ReplaceAll(exe, `\`, "/")))
	switch strings.TrimSuffix(base, ".exe") {
	case "cmd":
		return kindCmd
	case "pwsh", "powershell":
		return kindPowerShell
	}
	return kindPosix
}

// powerShellScript is what PowerShell runs for command: the UTF-8
// preamble, the command, and the exit-code epilogue, each on its own line.
func powerShellScript(command string) string {
	return powerShellPreamble + "\n" + command + powerShellEpilogue
}

// cmdScript is what cmd runs for command: the code page preamble, then the
// command as one line. An empty command stays empty: a line ending in "&"
// is a syntax error to cmd.
func cmdScript(command string) string {
	line := cmdCommand(command)
	if strings.TrimSpace(line) == "" {
		return line
	}
	return cmdPreamble + line
}

// cmdCommand turns a possibly multi-line command into the one line that
// cmd /c runs: cmd stops at the first line break. Lines run one after
// another, as in a batch file ("&"), except where a parenthesized block
// opens or closes, which cmd reads across lines with spaces; a line ending
// in the caret goes on with the next, as it would there. Blank lines are
// dropped.
func cmdCommand(command string) string {
	lines := strings.Split(strings.ReplaceAll(command, "\r\n", "\n"), "\n")
	var b strings.Builder
	sep := ""
	for _, line := range lines {
		line = strings.TrimRight(line, "\r")
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			continue
		}
		if sep == " & " && strings.HasPrefix(trimmed, ")") {
			sep = " "
		}
		b.WriteString(sep)
		if cont, ok := strings.CutSuffix(line, "^"); ok {
			b.WriteString(cont)
			sep = ""
			continue
		}
		b.WriteString(line)
		sep = " & "
		if strings.HasSuffix(trimmed, "(") {
			sep = " "
		}
	}
	return b.String()
}

// WindowsCommandLine joins argv into the single command line that
// CreateProcess takes (and syscall.SysProcAttr.CmdLine). Arguments are
// quoted for the rules of CommandLineToArgvW, which the C runtime, .NET and
// Go programs share, except what follows cmd's /c or /k: cmd takes that
// text as it is, so it is passed as it is, wrapped in the one pair of
// quotes that /s tells cmd to strip.
func WindowsCommandLine(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	parts := []string{quoteProgram(argv[0])}
	if windowsShellKind(argv[0]) == kindCmd {
		if i := cmdCommandIndex(argv); i > 0 {
			for _, a := range argv[1:i] {
				parts = append(parts, escapeWindowsArg(a))
			}
			tail := strings.Join(argv[i:], " ")
			if hasSwitch(argv[1:i], "/s") {
				tail = `"` + tail + `"`
			}
			return strings.Join(append(parts, tail), " ")
		}
	}
	for _, a := range argv[1:] {
		parts = append(parts, escapeWindowsArg(a))
	}
	return strings.Join(parts, " ")
}

// cmdCommandIndex is the index of the first argument after /c or /k.
func cmdCommandIndex(argv []string) int {
	for i, a := range argv[1:] {
		if strings.EqualFold(a, "/c") || strings.EqualFold(a, "/k") {
			return i + 2
		}
	}
	return -1
}

func hasSwitch(args []string, sw string) bool {
	for _, a := range args {
		if strings.EqualFold(a, sw) {
			return true
		}
	}
	return false
}

// quoteProgram quotes the program name, which Windows splits by simpler
// rules than the arguments: up to the next quote, or to white space.
func quoteProgram(p string) string {
	if strings.ContainsAny(p, " \t") || p == "" {
		return `"` + p + `"`
	}
	return p
}

// escapeWindowsArg quotes one argument for CommandLineToArgvW: backslashes
// are literal except before a quote, where they are doubled and the quote
// escaped; an argument with spaces is wrapped in quotes, and the
// backslashes that end it doubled so that they do not escape the closing
// quote.
func escapeWindowsArg(s string) string {
	if s == "" {
		return `""`
	}
	if !strings.ContainsAny(s, " \t\n\v\"") {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			slashes++
		case '"':
			b.WriteString(strings.Repeat(`\`, slashes+1))
			slashes = 0
		default:
			slashes = 0
		}
		b.WriteByte(s[i])
	}
	b.WriteString(strings.Repeat(`\`, slashes))
	b.WriteByte('"')
	return b.String()
}

// windowsEnv prepares an environment for CreateProcess: names are
// compared without case and the last setting wins, as os/exec does; the
// block is sorted by name without case, as Windows documents; and
// SYSTEMROOT is kept, since many programs (anything using Winsock) fail
// without it.
func windowsEnv(env []string, systemRoot string) []string {
	byName := map[string]string{}
	for _, kv := range env {
		byName[strings.ToUpper(envName(kv))] = kv
	}
	if _, ok := byName["SYSTEMROOT"]; !ok && systemRoot != "" {
		byName["SYSTEMROOT"] = "SYSTEMROOT=" + systemRoot
	}
	names := make([]string, 0, len(byName))
	for name := range byName {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]string, 0, len(names))
	for _, name := range names {
		out = append(out, byName[name])
	}
	return out
}

// envName is the name of "NAME=value"; Windows keeps a few variables whose
// name starts with "=" ("=C:=C:\dir"), so the first "=" is part of it.
func envName(kv string) string {
	if i := strings.IndexByte(kv[min(1, len(kv)):], '='); i >= 0 {
		return kv[:i+min(1, len(kv))]
	}
	return kv
}
