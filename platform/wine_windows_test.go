//go:build windows

package platform

import (
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// CI runs this package's tests under Wine too (.ci/wine). What Wine lacks
// is found out here, at run time, by probing the behaviour itself, and a
// test that needs it skips naming the limit; nothing is skipped by a list,
// and on Windows every probe finds what it needs.

// wineVersion is Wine's version when the tests run under Wine, else "":
// Wine's ntdll exports wine_get_version, which Windows' does not.
var wineVersion = sync.OnceValue(func() string {
	proc := windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version")
	if proc.Find() != nil {
		return ""
	}
	r, _, _ := proc.Call()
	if r == 0 {
		return "?"
	}
	// r is a pointer to Wine's static C string, returned as a number.
	return windows.BytePtrToString(*(**byte)(unsafe.Pointer(&r)))
})

// onWine names Wine for a skip reason, or says nothing on Windows.
func onWine() string {
	if v := wineVersion(); v != "" {
		return " (Wine " + v + ")"
	}
	return ""
}

// noPowerShell says why PowerShell cannot be tested here, or "" when it
// runs: Wine's powershell.exe is an empty stub that prints nothing.
var noPowerShell = sync.OnceValue(func() string {
	p, err := Start(shellSpec("", "Write-Output termhelper-probe", false))
	if err != nil {
		return ""
	}
	defer p.Close()
	out := collect(p.Output)
	p.Wait()
	<-out.done
	if strings.Contains(out.String(), "termhelper-probe") {
		return ""
	}
	return fmt.Sprintf("no working PowerShell here%s: %s printed nothing for Write-Output",
		onWine(), WindowsShellArgv("", "", exec.LookPath)[0])
})

var stdoutHandleLine = regexp.MustCompile(`stdout handle (\d+)`)

// noConsoleHandles says why a pseudo-console child's standard output does
// not reach the terminal, or "" when it does. On Windows the child's null
// standard handles are filled from the pseudo console; Wine leaves them
// null, so only a program that opens CONOUT$ itself shows its output. The
// probe is a child that reports its handle through CONOUT$.
var noConsoleHandles = sync.OnceValue(func() string {
	p, err := Start(helperSpec("handles", true))
	if err != nil {
		return ""
	}
	defer p.Close()
	out := collect(p.Output)
	p.Wait()
	<-out.done
	m := stdoutHandleLine.FindStringSubmatch(out.String())
	if m == nil {
		return "" // the probe itself failed: let the test show it
	}
	if h, _ := strconv.ParseUint(m[1], 10, 64); h != 0 && windows.Handle(h) != windows.InvalidHandle {
		return ""
	}
	return "a pseudo-console child gets no standard handles here" + onWine() +
		": only a program that opens CONOUT$ shows its output on the terminal"
})

func skipIf(t *testing.T, reason string) {
	t.Helper()
	if reason != "" {
		t.Skip(reason)
	}
}

// notImplementedOnWine is whether err is Wine's answer to a call it does
// not implement (E_NOTIMPL): ResizePseudoConsole is one.
func notImplementedOnWine(err error) bool {
	return wineVersion() != "" && errors.Is(err, syscall.Errno(windows.E_NOTIMPL))
}
