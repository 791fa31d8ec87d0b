package policy

import (
	"strings"
)

// winCmd is one command of a cmd.exe or PowerShell line.
type winCmd struct {
	words []string // quotes removed
	raw   []string // as written
	text  string   // the command's own text, for reasons
	name  string   // what it runs (winName): aliases resolved, lower case
	// redirs are the files its output is redirected to (> x, 2>> y, *> z).
	redirs []string
}

// winLine is a line cut into pipelines of commands.
type winLine struct {
	pipes [][]winCmd
}

// winSplit cuts a cmd.exe or PowerShell line into commands: at newlines,
// ;, &, &&, ||, and at the brackets around code that PowerShell runs
// ((...), $(...), {...}); | joins the stages of a pipeline. It is
// deliberately coarse: PowerShell runs $(...) inside double quotes, so for
// it double quotes do not hide separators; for cmd.exe they do, and ^
// escapes the next character.
func winSplit(line string, ps bool) winLine {
	var l winLine
	var stage []winCmd
	var cur strings.Builder
	flush := func() {
		if c, ok := newWinCmd(cur.String(), ps); ok {
			stage = append(stage, c)
		}
		cur.Reset()
	}
	endPipe := func() {
		flush()
		if len(stage) > 0 {
			l.pipes = append(l.pipes, stage)
		}
		stage = nil
	}
	quote := byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			cur.WriteByte(c)
			if c == quote {
				quote = 0
			}
		case c == '\'' && ps, c == '"' && !ps:
			quote = c
			cur.WriteByte(c)
		case (c == '`' && ps || c == '^' && !ps) && i+1 < len(line):
			cur.WriteByte(line[i+1])
			i++
		case c == '&' && i > 0 && line[i-1] == '>':
			cur.WriteByte(c) // 2>&1
		case c == '|' && (i+1 >= len(line) || line[i+1] != '|'):
			flush()
		case strings.IndexByte("\n\r;&|(){}", c) >= 0:
			endPipe()
		default:
			cur.WriteByte(c)
		}
	}
	endPipe()
	return l
}

// newWinCmd splits one command's text into words and redirections.
func newWinCmd(text string, ps bool) (winCmd, bool) {
	c := winCmd{text: strings.TrimSpace(text)}
	fields := winFields(text, ps)
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if target, ok := redirTarget(f); ok {
			if target == "" && i+1 < len(fields) {
				i++
				target = fields[i]
			}
			c.redirs = append(c.redirs, unquote(target))
			continue
		}
		c.raw = append(c.raw, f)
		c.words = append(c.words, unquote(f))
	}
	for len(c.words) > 0 && (c.words[0] == "." || c.words[0] == "") {
		c.words, c.raw = c.words[1:], c.raw[1:] // . script.ps1 runs script.ps1
	}
	if len(c.words) == 0 {
		return c, len(c.redirs) > 0
	}
	c.name = winName(c.words[0])
	return c, true
}

// winFields splits on blanks outside quotes.
func winFields(s string, ps bool) []string {
	var out []string
	var cur strings.Builder
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
			cur.WriteByte(c)
		case c == '"' || c == '\'' && ps:
			quote = c
			cur.WriteByte(c)
		case c == ' ' || c == '\t':
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteByte(c)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// redirTarget recognises > x, >>x, 2>x, *>>x; an empty target means the
// next field. Duplications such as 2>&1 are not files.
func redirTarget(f string) (string, bool) {
	i := strings.IndexByte(f, '>')
	if i < 0 || strings.Trim(f[:i], "0123456789*") != "" {
		return "", false
	}
	rest := strings.TrimPrefix(f[i+1:], ">")
	if strings.HasPrefix(rest, "&") {
		return "", false
	}
	return rest, true
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return strings.TrimSpace(strings.Trim(s, `"'`)) // an unclosed quote cut at a bracket
}

// winAliases are PowerShell's built-in aliases and cmd.exe's commands,
// by what they run. Commands that read and show are given the POSIX name
// of the allow list (Get-ChildItem is ls), so the allow list means the
// same on every system.
var winAliases = map[string]string{
	"rm": "remove-item", "del": "remove-item", "erase": "remove-item", "rd": "remove-item",
	"rmdir": "remove-item", "ri": "remove-item",
	"iex": "invoke-expression", "icm": "invoke-command",
	"iwr": "invoke-webrequest", "curl": "invoke-webrequest", "wget": "invoke-webrequest",
	"irm": "invoke-restmethod", "saps": "start-process", "start": "start-process",
	"spps": "stop-process", "kill": "stop-process",
	"gci": "ls", "dir": "ls", "get-childitem": "ls", "gc": "cat", "type": "cat", "get-content": "cat",
	"write": "echo", "write-output": "echo", "write-host": "echo", "gl": "pwd", "get-location": "pwd",
	"sl": "cd", "chdir": "cd", "set-location": "cd", "push-location": "pushd", "pop-location": "popd",
	"gps": "ps", "get-process": "ps", "sls": "grep", "select-string": "grep", "findstr": "grep",
	"gcm": "which", "get-command": "which", "get-date": "date",
	"start-sleep": "sleep", "cls": "clear", "clear-host": "clear",
	"copy": "copy-item", "cp": "copy-item", "cpi": "copy-item", "xcopy": "copy-item", "robocopy": "copy-item",
	"move": "move-item", "mv": "move-item", "mi": "move-item", "ren": "rename-item", "rni": "rename-item",
	"sc": "set-content", "ac": "add-content", "tee": "tee-object", "ni": "new-item", "md": "new-item",
	"mkdir": "new-item", "si": "set-item",
}

// winName is the command a word runs: its base name in lower case, without
// .exe, aliases resolved.
func winName(w string) string {
	n := cmdBase(strings.ReplaceAll(w, `\`, "/"))
	if a, ok := winAliases[n]; ok {
		return a
	}
	return n
}
