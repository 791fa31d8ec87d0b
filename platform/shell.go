package platform

// ShellArgv returns the argv that runs command under shell on Unix
// ("/bin/sh -c command").
func ShellArgv(shell, command string) []string {
	if shell == "" {
		shell = "/bin/sh"
	}
	return []string{shell, "-c", command}
}
