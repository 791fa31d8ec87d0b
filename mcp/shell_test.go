package mcp

import (
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/termhelper/termhelper/platform"
)

// noShell says why the default shell runs nothing here, or "": on Windows
// it is PowerShell, and Wine's powershell.exe is an empty stub.
var noShell = sync.OnceValue(func() string {
	if runtime.GOOS != "windows" {
		return ""
	}
	argv := platform.ShellArgv("", "Write-Output termhelper-probe")
	out, err := exec.Command(argv[0], argv[1:]...).Output()
	if strings.Contains(string(out), "termhelper-probe") {
		return ""
	}
	return "no working PowerShell here: " + argv[0] + " printed nothing for Write-Output (" + errText(err) + ")"
})

func errText(err error) string {
	if err == nil {
		return "exit 0"
	}
	return err.Error()
}

// needShell skips a test whose commands need the default shell to run.
func needShell(t *testing.T) {
	t.Helper()
	if reason := noShell(); reason != "" {
		t.Skip(reason)
	}
}
