package platform

import (
	"os/exec"
	"runtime"
)

// ShellArgv returns the argv that runs command under shell: "/bin/sh -c
// command" on Unix; on Windows, PowerShell with the UTF-8 preamble, or
// cmd.exe (see WindowsShellArgv).
func ShellArgv(shell, command string) []string {
	if runtime.GOOS == "windows" {
		return WindowsShellArgv(shell, command, exec.LookPath)
	}
	if shell == "" {
		shell = "/bin/sh"
	}
	return []string{shell, "-c", command}
}

// FoldEnvCase is whether environment names compare case-insensitively.
const FoldEnvCase = runtime.GOOS == "windows"
