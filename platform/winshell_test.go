package platform

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// splitWindowsArgs splits a command line as CommandLineToArgvW (and the C
// runtime, .NET and Go) do, to check what a program receives: the program
// name runs to the next quote or white space; then, per argument, 2n
// backslashes before a quote give n and the quote toggles quoting, 2n+1
// give n and a literal quote, and other backslashes are literal.
func splitWindowsArgs(line string) []string {
	var args []string
	prog, rest := splitProgram(line)
	args = append(args, prog)
	for {
		rest = strings.TrimLeft(rest, " \t")
		if rest == "" {
			return args
		}
		var arg string
		arg, rest = nextWindowsArg(rest)
		args = append(args, arg)
	}
}

func splitProgram(line string) (prog, rest string) {
	if strings.HasPrefix(line, `"`) {
		end := strings.IndexByte(line[1:], '"')
		if end < 0 {
			return line[1:], ""
		}
		return line[1 : end+1], line[end+2:]
	}
	if i := strings.IndexAny(line, " \t"); i >= 0 {
		return line[:i], line[i:]
	}
	return line, ""
}

func nextWindowsArg(s string) (arg, rest string) {
	var b strings.Builder
	quoted := false
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\\':
			n := 0
			for i < len(s) && s[i] == '\\' {
				n++
				i++
			}
			if i < len(s) && s[i] == '"' {
				b.WriteString(strings.Repeat(`\`, n/2))
				if n%2 == 1 {
					b.WriteByte('"')
					i++
				}
				continue
			}
			b.WriteString(strings.Repeat(`\`, n))
			continue
		case c == '"':
			quoted = !quoted
		case (c == ' ' || c == '\t') && !quoted:
			return b.String(), s[i:]
		default:
			b.WriteByte(c)
		}
		i++
	}
	return b.String(), ""
}

// tricky holds arguments that quoting gets wrong easily.
var tricky = []string{
	"plain", "", "a b", `a"b`, `"`, `""`, `a\b`, `a\\b`, `trailing\`, `trailing\\`,
	`with space\`, `a\"b`, `a\\"b`, `\\server\share\`, "tab\there", "new\nline",
	`%PATH%`, `100%`, `a^b`, `a&b`, `a|b`, `<in>`, `(x)`, "ünïcødé 日本語 ✓", `C:\Program Files\`,
}

func TestEscapeWindowsArgRoundTrip(t *testing.T) {
	for _, arg := range tricky {
		line := WindowsCommandLine([]string{`C:\bin\prog.exe`, arg, "after"})
		got := splitWindowsArgs(line)
		want := []string{`C:\bin\prog.exe`, arg, "after"}
		if !slices.Equal(got, want) {
			t.Errorf("arg %q: line %s splits to %q", arg, line, got)
		}
	}
}

func TestEscapeWindowsArg(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"", `""`},
		{"a b", `"a b"`},
		{`a"b`, `"a\"b"`},
		{`a\b`, `a\b`},
		{`a\ b\`, `"a\ b\\"`},
		{`a\"b c`, `"a\\\"b c"`},
		{"%PATH% ^&", `"%PATH% ^&"`},
		{"日本", "日本"},
	}
	for _, tt := range tests {
		if got := escapeWindowsArg(tt.in); got != tt.want {
			t.Errorf("escapeWindowsArg(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestWindowsCommandLineProgram(t *testing.T) {
	line := WindowsCommandLine([]string{`C:\Program Files\PowerShell\7\pwsh.exe`, "-NoLogo"})
	if want := `"C:\Program Files\PowerShell\7\pwsh.exe" -NoLogo`; line != want {
		t.Errorf("got %s, want %s", line, want)
	}
}

// cmdStrip is what cmd /s does with the text after /c: it drops the first
// and the last quote and runs the rest as it is.
func cmdStrip(t *testing.T, line string) string {
	t.Helper()
	_, tail, ok := strings.Cut(line, " /c ")
	if !ok || !strings.HasPrefix(tail, `"`) || !strings.HasSuffix(tail, `"`) {
		t.Fatalf("no quoted command after /c in %s", line)
	}
	return tail[1 : len(tail)-1]
}

func TestCmdCommandLine(t *testing.T) {
	const cmdExe = `C:\Windows\system32\cmd.exe`
	tests := []string{
		`echo hello`,
		`echo "a b"`,
		`"C:\Program Files\tool.exe" "arg one" two`,
		`echo 100% & echo %PATH%`,
		`echo a^&b ^| c`,
		`dir "C:\dir with space\"`,
		`echo trailing\`,
		`echo "unbalanced`,
		`echo ünïcødé 日本語 ✓`,
		`if exist x (echo y) else (echo z)`,
	}
	for _, command := range tests {
		argv := WindowsShellArgv("cmd", command, fakeLookPath(map[string]string{"cmd.exe": cmdExe}))
		line := WindowsCommandLine(argv)
		want := cmdExe + ` /d /s /c "` + cmdPreamble + command + `"`
		if line != want {
			t.Errorf("command %q:\n got %s\nwant %s", command, line, want)
		}
		if got := cmdStrip(t, line); got != cmdPreamble+command {
			t.Errorf("cmd would run %q, not %q", got, command)
		}
	}
}

func TestCmdCommandLines(t *testing.T) {
	tests := []struct{ in, want string }{
		{"echo a", "echo a"},
		{"echo a\necho b", "echo a & echo b"},
		{"echo a\r\n\r\necho b\r\n", "echo a & echo b"},
		{"echo a ^\nb", "echo a b"},
		{"if exist x (\n  echo y\n) else (\n  echo z\n)", "if exist x (   echo y ) else (   echo z )"},
	}
	for _, tt := range tests {
		if got := cmdCommand(tt.in); got != tt.want {
			t.Errorf("cmdCommand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCmdScript(t *testing.T) {
	if got := cmdScript("echo a\necho b"); got != cmdPreamble+"echo a & echo b" {
		t.Errorf("cmdScript = %q", got)
	}
	for _, empty := range []string{"", " \r\n "} {
		if got := cmdScript(empty); strings.Contains(got, "chcp") {
			t.Errorf("cmdScript(%q) = %q, want no preamble", empty, got)
		}
	}
}

func fakeLookPath(found map[string]string) func(string) (string, error) {
	return func(name string) (string, error) {
		if p, ok := found[name]; ok {
			return p, nil
		}
		return "", errors.New("not found")
	}
}

func TestWindowsShellArgv(t *testing.T) {
	const pwsh = `C:\Program Files\PowerShell\7\pwsh.exe`
	const winps = `C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`
	both := fakeLookPath(map[string]string{"pwsh.exe": pwsh, "powershell.exe": winps})
	onlyWin := fakeLookPath(map[string]string{"powershell.exe": winps})
	script := powerShellScript("echo hi")
	psArgs := []string{"-NoLogo", "-NoProfile", "-NonInteractive", "-Command", script}
	tests := []struct {
		name, shell string
		look        func(string) (string, error)
		want        []string
	}{
		{"default prefers pwsh", "", both, append([]string{pwsh}, psArgs...)},
		{"default without pwsh", "", onlyWin, append([]string{winps}, psArgs...)},
		{"powershell", "powershell", both, append([]string{winps}, psArgs...)},
		{"pwsh", "PWSH", both, append([]string{pwsh}, psArgs...)},
		{"nothing found", "", fakeLookPath(nil), append([]string{"powershell.exe"}, psArgs...)},
		{"path to pwsh", `D:\tools\pwsh.exe`, both, append([]string{`D:\tools\pwsh.exe`}, psArgs...)},
		{"path to cmd", `C:\Windows\System32\CMD.EXE`, both, []string{`C:\Windows\System32\CMD.EXE`, "/d", "/s", "/c", cmdPreamble + "echo hi"}},
		{"path to bash", `C:\Program Files\Git\bin\bash.exe`, both, []string{`C:\Program Files\Git\bin\bash.exe`, "-c", "echo hi"}},
	}
	for _, tt := range tests {
		if got := WindowsShellArgv(tt.shell, "echo hi", tt.look); !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestPowerShellCommandLine(t *testing.T) {
	const pwsh = `C:\Program Files\PowerShell\7\pwsh.exe`
	look := fakeLookPath(map[string]string{"pwsh.exe": pwsh})
	for _, command := range append(tricky, "Write-Output \"a b\"; exit 3", "Get-ChildItem C:\\dir\\ | Select -First 1") {
		line := WindowsCommandLine(WindowsShellArgv("", command, look))
		got := splitWindowsArgs(line)
		if len(got) != 6 || got[0] != pwsh || got[4] != "-Command" {
			t.Fatalf("command %q: line %s splits to %q", command, line, got)
		}
		script := got[5]
		if !strings.HasPrefix(script, powerShellPreamble+"\n") {
			t.Errorf("command %q: script does not start with the preamble: %q", command, script)
		}
		if !strings.Contains(script, "\n"+command+"\n") {
			t.Errorf("command %q: script does not hold the command on lines of its own: %q", command, script)
		}
	}
}

func TestPowerShellScript(t *testing.T) {
	s := powerShellScript("exit 3 # trailing comment")
	lines := strings.Split(s, "\n")
	if len(lines) != 3 || lines[0] != powerShellPreamble || lines[1] != "exit 3 # trailing comment" {
		t.Fatalf("script lines: %q", lines)
	}
	if !strings.Contains(lines[2], "exit $LASTEXITCODE") {
		t.Errorf("epilogue does not pass the native exit code on: %q", lines[2])
	}
}

func TestWindowsEnv(t *testing.T) {
	got := windowsEnv([]string{"Path=C:\\a", "b=1", "PATH=C:\\b", "=C:=C:\\dir", "A=2"}, `C:\Windows`)
	want := []string{"=C:=C:\\dir", "A=2", "b=1", "PATH=C:\\b", `SYSTEMROOT=C:\Windows`}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	got = windowsEnv([]string{"SystemRoot=D:\\Win"}, `C:\Windows`)
	if want := []string{"SystemRoot=D:\\Win"}; !slices.Equal(got, want) {
		t.Errorf("a set SystemRoot: got %q, want %q", got, want)
	}
}
