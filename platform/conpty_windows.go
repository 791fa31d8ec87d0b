//go:build windows

package platform

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The pseudo console is driven through kernel32 directly rather than
// github.com/UserExistsError/conpty (v0.1.4), which cannot do three things
// a command needs here: create the process suspended, so that it is in its
// job before it can start a child; give stderr a pipe of its own; and let
// go of the console's ends of the pipes, without which the output never
// reaches its end until the console is closed, and closing it (its Close)
// also closes the handle a reader is blocked on.

var conptyAvailable = sync.OnceValue(func() bool {
	k := windows.NewLazySystemDLL("kernel32.dll")
	for _, name := range []string{"CreatePseudoConsole", "ResizePseudoConsole", "ClosePseudoConsole"} {
		if k.NewProc(name).Find() != nil {
			return false
		}
	}
	return true
})

// errNoConPTY is returned before Windows 10 1809, which has no ConPTY.
var errNoConPTY = fmt.Errorf("%w: ConPTY needs Windows 10 1809 or later; use mode \"pipes\"", ErrUnsupported)

// pseudoConsole is one ConPTY; its console host (conhost.exe) renders what
// the command writes as VT text on the output pipe.
type pseudoConsole struct {
	mu     sync.Mutex
	h      windows.Handle
	closed bool
	once   sync.Once
}

// newPseudoConsole creates a console of cols x rows and returns our ends of
// its input and output.
func newPseudoConsole(cols, rows int) (pc *pseudoConsole, in, out *os.File, err error) {
	if !conptyAvailable() {
		return nil, nil, nil, errNoConPTY
	}
	var ptyIn, inW, outR, ptyOut windows.Handle
	if err := windows.CreatePipe(&ptyIn, &inW, nil, 0); err != nil {
		return nil, nil, nil, err
	}
	if err := windows.CreatePipe(&outR, &ptyOut, nil, 0); err != nil {
		closeHandles(ptyIn, inW)
		return nil, nil, nil, err
	}
	var h windows.Handle
	err = windows.CreatePseudoConsole(consoleSize(cols, rows), ptyIn, ptyOut, 0, &h)
	// The console host holds its own copies: with ours closed, the output
	// ends (broken pipe, read as EOF) when the host exits.
	closeHandles(ptyIn, ptyOut)
	if err != nil {
		closeHandles(inW, outR)
		return nil, nil, nil, err
	}
	return &pseudoConsole{h: h}, os.NewFile(uintptr(inW), "conpty-in"), os.NewFile(uintptr(outR), "conpty-out"), nil
}

func consoleSize(cols, rows int) windows.Coord {
	if cols <= 0 {
		cols = 160
	}
	if rows <= 0 {
		rows = 48
	}
	return windows.Coord{X: int16(min(cols, 32767)), Y: int16(min(rows, 32767))}
}

func (pc *pseudoConsole) resize(cols, rows int) error {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.closed {
		return errors.New("resize: the terminal is closed")
	}
	return windows.ResizePseudoConsole(pc.h, consoleSize(cols, rows))
}

// close closes the console once; the host paints its last frame, ends
// the processes still attached, and exits, which ends the output. Before
// Windows 11 24H2 the call waits until the output has been read or its
// read end closed, so it must not run on the reader's goroutine. A
// concurrent caller waits for the first.
func (pc *pseudoConsole) close() {
	pc.once.Do(func() {
		pc.mu.Lock()
		pc.closed = true
		h := pc.h
		pc.mu.Unlock()
		windows.ClosePseudoConsole(h)
	})
}

func closeHandles(hs ...windows.Handle) {
	for _, h := range hs {
		if h != 0 && h != windows.InvalidHandle {
			windows.CloseHandle(h)
		}
	}
}

// launch describes one CreateProcess call.
type launch struct {
	exe, cmdLine, dir string
	env               []string
	console           *pseudoConsole // attach to it (nil: no console attribute)
	stderr            windows.Handle // the only handle the child inherits, or 0
}

// createSuspended starts the process with its first thread suspended, so
// that the caller can put it in a job before it runs any code.
func createSuspended(l launch) (*windows.ProcessInformation, error) {
	attrs, err := windows.NewProcThreadAttributeList(2)
	if err != nil {
		return nil, err
	}
	defer attrs.Delete()
	if l.console != nil {
		if err := setConsoleAttribute(attrs, l.console.h); err != nil {
			return nil, err
		}
	}
	si := &windows.StartupInfoEx{ProcThreadAttributeList: attrs.List()}
	si.Cb = uint32(unsafe.Sizeof(*si))
	// Null standard handles are filled from the pseudo console by the
	// child's console setup; without this flag the child could inherit the
	// helper's own redirected stdio, which carries the protocol.
	si.Flags = windows.STARTF_USESTDHANDLES
	inherit := l.stderr != 0
	if inherit {
		si.StdErr = l.stderr
		// Only this handle, not every inheritable handle of the helper.
		if err := attrs.Update(windows.PROC_THREAD_ATTRIBUTE_HANDLE_LIST, unsafe.Pointer(&l.stderr), unsafe.Sizeof(l.stderr)); err != nil {
			return nil, err
		}
	}
	return createProcess(l, si, inherit)
}

var procUpdateProcThreadAttribute = windows.NewLazySystemDLL("kernel32.dll").NewProc("UpdateProcThreadAttribute")

// setConsoleAttribute attaches the process to the console. The attribute's
// value is the console handle itself, not a pointer to memory, so it is
// passed as a number: attrs.Update would keep it as a Go pointer, which the
// garbage collector must never see.
func setConsoleAttribute(attrs *windows.ProcThreadAttributeListContainer, hpc windows.Handle) error {
	ok, _, err := procUpdateProcThreadAttribute.Call(uintptr(unsafe.Pointer(attrs.List())), 0,
		windows.PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE, uintptr(hpc), unsafe.Sizeof(hpc), 0, 0)
	if ok == 0 {
		return err
	}
	return nil
}

func createProcess(l launch, si *windows.StartupInfoEx, inherit bool) (*windows.ProcessInformation, error) {
	exe, err := windows.UTF16PtrFromString(l.exe)
	if err != nil {
		return nil, err
	}
	cmdLine, err := windows.UTF16PtrFromString(l.cmdLine)
	if err != nil {
		return nil, err
	}
	var dir *uint16
	if l.dir != "" {
		if dir, err = windows.UTF16PtrFromString(l.dir); err != nil {
			return nil, err
		}
	}
	env, err := envBlock(l.env)
	if err != nil {
		return nil, err
	}
	flags := uint32(windows.EXTENDED_STARTUPINFO_PRESENT | windows.CREATE_UNICODE_ENVIRONMENT | windows.CREATE_SUSPENDED)
	var pi windows.ProcessInformation
	if err := windows.CreateProcess(exe, cmdLine, nil, nil, inherit, flags, env, dir, &si.StartupInfo, &pi); err != nil {
		return nil, err
	}
	return &pi, nil
}

// envBlock is the environment as CreateProcess takes it: NUL-terminated
// UTF-16 strings, then one more NUL.
func envBlock(env []string) (*uint16, error) {
	var block []uint16
	for _, kv := range env {
		u, err := windows.UTF16FromString(kv)
		if err != nil {
			return nil, err
		}
		block = append(block, u...) // u ends with its NUL
	}
	block = append(block, 0)
	if len(block) == 1 {
		block = append(block, 0) // an empty block is two NULs
	}
	return &block[0], nil
}
